import EfferentCore
import EfferentHTTP
import EfferentReader

/// What `/api/v1/export/:kind` writes.
enum ExportKind: String, Sendable, CaseIterable {
    case daily, statistics, sleep, workouts, samples, overview, route
}

/// `/api/v1/export/:kind`: a whole answer as CSV or JSON Lines, or a workout's route as GPX, as a
/// download. Samples are streamed a day at a time with no row limit (a decade of heart rate
/// never sits in memory whole); every other answer is bounded by its range and written whole.
extension Dashboard {
    static let exportParameters: [ExportKind: Set<String>] = [
        .daily: ["since", "until", "metric", "format"], .statistics: ["since", "until", "metric", "groupBy", "format"],
        .sleep: ["since", "until", "format"], .workouts: ["since", "until", "activity", "format"],
        .samples: ["since", "until", "metric", "format"], .overview: ["since", "until", "format"], .route: ["start"],
    ]

    func export(_ kind: ExportKind, _ request: HTTPRequest) throws -> HTTPResponse {
        let query = try HTTPQuery(request.query)
        let allowed = Self.exportParameters[kind] ?? []
        if let unknown = query.names.subtracting(allowed).sorted().first {
            throw HTTPError(400, "\(unknown.prefix(40)) is not a parameter of export \(kind.rawValue); it takes \(allowed.sorted().joined(separator: ", "))")
        }
        if kind == .route {
            guard let text = try query.value("start"), let start = InstantArgument.seconds(text) else {
                throw HTTPError(400, "export route needs start, the workout's start as workouts lists it (2025-06-01T07:00:00Z)")
            }
            let gpx = try RouteGPX(from: context.source, start: start)
            return HTTPResponse(status: 200, headers: [("Content-Type", "application/gpx+xml"),
                                                       ("Content-Disposition", "attachment; filename=\"route-\(start).gpx\"")],
                                body: Array(gpx.text.utf8))
        }
        let format: AnswerFormat
        switch try query.value("format") ?? "csv" {
        case "csv": format = .csv
        case "jsonl", "ndjson": format = .ndjson
        default: throw HTTPError(400, "format takes csv or jsonl")
        }
        let answerKind = AnswerRequest.Kind(rawValue: kind.rawValue)!
        var (question, _) = try Self.question(answerKind, query, allowed: allowed.union(["format"]))
            .resolvingNames(with: NameResolver(source: context.source))
        // A file holds every row, never a page.
        question.complete = true
        let type = format == .csv ? "text/csv; charset=utf-8" : "application/x-ndjson"
        let name = "efferent-\(kind.rawValue)\(question.metric.map { "-" + $0 } ?? "").\(format == .csv ? "csv" : "jsonl")"
        let headers = [("Content-Type", type), ("Content-Disposition", "attachment; filename=\"\(name)\"")]
        if kind == .samples {
            guard let metric = question.metric else { throw AnswerError.metricRequired }
            // The days by the one rule (AnswerScope), cut to the archive: a file of 0001…9999 reads the archive's days only.
            let scope = try AnswerScope(question, today: today, held: try context.source.days())
            let range = scope.range ?? DayRange.nothing(from: today)
            return HTTPResponse(status: 200, headers: headers, stream: SamplesExport(source: context.source, metric: metric, range: range, format: format))
        }
        let answer = try question.answer(from: context.source, today: today)
        let table = answer.table
        let text = format == .csv ? try table.csv() : try table.ndjson()
        return HTTPResponse(status: 200, headers: headers, body: Array(text.utf8))
    }
}
