import EfferentCore
import EfferentHTTP
import EfferentReader

/// The route table: pages (one shell, drawn by its script from the API), the page's own files,
/// the answers the CLI gives, the views the pages draw, the streamed export, the OpenAPI document.
extension Dashboard {
    /// The paths of the pages; each serves the same shell, which reads its path and asks the API.
    static let pages = ["/", "/metrics/:metric", "/sleep", "/sleep/:night", "/workouts", "/workouts/:start", "/catalogue"]

    func addRoutes(to table: RouteTable) {
        // Each parameter is percent-decoded once, here, before it is read: the pages ask for
        // `encodeURIComponent` of what they were given (`15%3A24%3A46Z` for `15:24:46Z`).
        table.router.parameter("metric") { text in
            guard let name = HTTPQuery.decodeSegment(text), Self.isMetricName(name) else {
                throw HTTPError(400, "a metric name is letters, digits and dots, such as heartRate or workout.heartRate.average")
            }
            return name
        }
        table.router.parameter("night") { text in
            guard let day = HTTPQuery.decodeSegment(text).flatMap({ CalendarDay($0) }) else {
                throw HTTPError(400, "a night is named by its evening's date, a real day written YYYY-MM-DD")
            }
            return day
        }
        table.router.parameter("start") { text in
            guard let written = HTTPQuery.decodeSegment(text), let start = InstantArgument.seconds(written) else {
                throw HTTPError(400, "a workout is named by its start, in Unix seconds or as 2025-06-01T07:00:00Z")
            }
            return start
        }
        table.router.parameter("kind") { text in
            guard let kind = ExportKind(rawValue: String(text)) else {
                throw HTTPError(400, "export takes daily, statistics, sleep, workouts, samples, overview or route")
            }
            return kind
        }

        for page in Self.pages {
            table.get(page) { [self] request, _ in try shell(request) }
        }
        for (path, asset) in DashboardAssets.files {
            table.get(path) { _, _ in HTTPResponse(status: 200, headers: [("Content-Type", asset.type)], body: asset.bytes) }
        }
        // The charts' colours and rules come from the renderer's own stylesheet, so a chart in the
        // page and one `efferent plot` saved look alike.
        let chartStyle = Array(ChartStyle.pageStylesheet.utf8)
        table.get("/assets/chart.css") { _, _ in HTTPResponse(status: 200, headers: [("Content-Type", "text/css; charset=utf-8")], body: chartStyle) }
        table.get("/api/openapi.json") { _, _ in
            HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: DashboardAssets.openAPI)
        }

        // What the CLI answers, as the CLI answers it (the same functions).
        for kind in AnswerRequest.Kind.allCases {
            table.get("/api/v1/\(kind.rawValue)") { [self] request, _ in try answer(kind, request) }
        }
        table.get("/api/v1/export/:kind") { [self] request, p in try export(p.get("kind"), request) }

        // What the pages draw.
        table.get("/api/v1/status") { [self] _, _ in try Self.json(status()) }
        table.get("/api/v1/pages/today") { [self] request, _ in try Self.json(todayPage(request)) }
        table.get("/api/v1/pages/metric/:metric") { [self] request, p in try Self.json(metricPage(p.get("metric"), request)) }
        table.get("/api/v1/pages/sleep") { [self] request, _ in try Self.json(sleepPage(request)) }
        table.get("/api/v1/pages/night/:night") { [self] request, p in try Self.json(nightPage(p.get("night"), request)) }
        table.get("/api/v1/pages/workouts") { [self] request, _ in try Self.json(workoutsPage(request)) }
        table.get("/api/v1/pages/workout/:start") { [self] request, p in try Self.json(workoutPage(p.get("start"), request)) }
        table.get("/api/v1/pages/catalogue") { [self] _, _ in try Self.json(cataloguePage()) }
    }

    /// Letters, digits and dots as metric names are written (underscores and hyphens too, which
    /// some sources' type names carry); anything else is refused before a lookup.
    static func isMetricName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 120 && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "_" || $0 == "-") }
    }

    /// The page shell; a visit that brought the token in its address is sent on to the same page
    /// without it, with the cookie set, so the token leaves the address bar and the history.
    func shell(_ request: HTTPRequest) throws -> HTTPResponse {
        let query = try HTTPQuery(request.query)
        if try query.value("token") != nil {
            let rest = request.query.split(separator: "&").filter { pair in
                HTTPQuery.decode(pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0]) != "token"
            }
            let location = String(request.path) + (rest.isEmpty ? "" : "?" + rest.joined(separator: "&"))
            return HTTPResponse(status: 303, headers: [("Location", location), ("Set-Cookie", gate.cookie)])
        }
        return HTTPResponse(status: 200, headers: [("Content-Type", "text/html; charset=utf-8")], body: DashboardAssets.shell)
    }

    static func json(_ value: JSONValue) throws -> HTTPResponse { json(bytes: try value.canonicalBytes()) }

    /// An answer already JSON text.
    static func json(bytes: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: 200, headers: [("Content-Type", "application/json; charset=utf-8")], body: bytes)
    }
}
