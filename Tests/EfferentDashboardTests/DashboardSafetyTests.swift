import EfferentCore
@testable import EfferentDashboard
import EfferentHTTP
import Foundation
import Testing

/// The safety of a local server that shows health data (issue 16, item 3), each in process and
/// over loopback: the Host must be the dashboard's own, everything but its code needs the token,
/// a browser gets it as an HttpOnly SameSite=Strict cookie, only GET is taken, and every answer
/// carries a strict Content-Security-Policy and `Cache-Control: no-store`.
@Suite struct DashboardSafetyTests {
    @Test(arguments: Transport.allCases)
    func aForeignHostIsRefusedWhateverItAsksFor(_ transport: Transport) async throws {
        let harness = try await DashboardHarness(days: SampleDays.make())
        for host in ["evil.example:\(harness.port)", "127.0.0.1.nip.io:\(harness.port)", "127.0.0.1:\(harness.port + 1)", "localhost"] {
            for target in ["/api/v1/pages/today", "/", "/assets/app.js", "/no/such/path"] {
                let answer = try harness.get(target, over: transport, headers: ["Host": host])
                #expect(answer.status == 403, "\(host) \(target) → \(answer.status)")
                #expect(answer.body.contains("answers only for the address it printed"))
            }
        }
        let page = try harness.get("/", over: transport, headers: ["Host": "evil.example", "Accept": "text/html"])
        #expect(page.headers["content-type"] == "text/html; charset=utf-8" && page.body.contains("<p id=\"refusal\">"), "a browser gets a page")
        for host in [harness.host, "localhost:\(harness.port)", "[::1]:\(harness.port)"] {
            #expect(try harness.get("/api/v1/status", over: transport, headers: ["Host": host]).status == 200, "\(host)")
        }
    }

    @Test func aRequestWithNoHostAtAllIsRefused() async throws {
        let harness = try await DashboardHarness(days: SampleDays.make())
        let answer = try harness.raw("GET /api/v1/status HTTP/1.0\r\nAuthorization: Bearer \(DashboardHarness.token)\r\n\r\n")
        #expect(answer.status == 403)
        #expect(try harness.raw("GET /api/v1/status HTTP/1.1\r\nAuthorization: Bearer \(DashboardHarness.token)\r\n\r\n").status == 400)
    }

    @Test(arguments: Transport.allCases)
    func theTokenIsRequiredForEverythingButThePagesOwnFiles(_ transport: Transport) async throws {
        let harness = try await DashboardHarness(days: SampleDays.make())
        for target in ["/api/v1/pages/today", "/api/v1/daily?metric=steps", "/api/openapi.json", "/api/v1/export/samples?metric=heartRate", "/catalogue"] {
            let missing = try harness.get(target, over: transport, token: false)
            #expect(missing.status == 401 && missing.body.contains("access token"), "\(target)")
            #expect(missing.headers["www-authenticate"]?.hasPrefix("Bearer") == true)
            let wrong = try harness.get(target, over: transport, headers: ["Authorization": "Bearer " + String(DashboardHarness.token.dropLast()) + "x"])
            #expect(wrong.status == 401, "\(target) with a wrong token")
        }
        for target in ["/assets/app.js", "/assets/app.css", "/assets/chart.css", "/favicon.svg", "/favicon.ico"] {
            #expect(try harness.get(target, over: transport, token: false).status == 200, "\(target) holds no value")
        }
        let cookie = "efferent_dashboard_\(harness.port)=\(DashboardHarness.token)"
        #expect(try harness.get("/api/v1/pages/catalogue", over: transport, token: false, headers: ["Cookie": "theme=dark; " + cookie]).status == 200)
        #expect(try harness.get("/api/v1/pages/catalogue", over: transport, token: false,
                                headers: ["Cookie": "efferent_dashboard_1=\(DashboardHarness.token)"]).status == 401, "another port's cookie is not this one's")
        #expect(try harness.get("/api/v1/status?token=\(DashboardHarness.token)", over: transport, token: false).status == 401,
                "the API takes the token from a header or the cookie, not from its address")
    }

    /// The printed address: the page answers with the cookie and sends the browser on to the same
    /// page without the token (other parameters kept), so the token leaves the address bar.
    @Test(arguments: Transport.allCases)
    func thePrintedAddressSetsAStrictHttpOnlyCookie(_ transport: Transport) async throws {
        let harness = try await DashboardHarness(days: SampleDays.make())
        let login = try harness.get("/metrics/steps?range=7D&token=\(DashboardHarness.token)&until=2025-05-20", over: transport, token: false)
        #expect(login.status == 303)
        #expect(login.headers["location"] == "/metrics/steps?range=7D&until=2025-05-20")
        #expect(login.headers["set-cookie"] == "efferent_dashboard_\(harness.port)=\(DashboardHarness.token); Path=/; HttpOnly; SameSite=Strict")
        #expect(try harness.get("/?token=nope", over: transport, token: false).status == 401)
    }

    @Test(arguments: Transport.allCases)
    func onlyGetAndHeadAreTaken(_ transport: Transport) async throws {
        let harness = try await DashboardHarness(days: SampleDays.make())
        for method in ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"] {
            let answer = try harness.get("/api/v1/daily", over: transport, method: method)
            #expect(answer.status == 405 && answer.headers["allow"] == "GET, HEAD" && answer.error == "the dashboard only reads; it answers GET and HEAD",
                    "\(method) → \(answer.status)")
        }
        let head = try harness.get("/api/v1/status", over: transport, method: "HEAD")
        #expect(head.status == 200)
    }

    /// Every answer — pages, files, data, refusals — carries the policy and is never stored.
    @Test(arguments: Transport.allCases)
    func everyAnswerCarriesAStrictPolicyAndIsNeverCached(_ transport: Transport) async throws {
        let harness = try await DashboardHarness(days: SampleDays.make())
        let answers = [
            try harness.get("/", over: transport), try harness.get("/assets/app.js", over: transport),
            try harness.get("/api/v1/pages/metric/heartRate?range=7D&until=2025-06-01", over: transport),
            try harness.get("/api/v1/export/samples?metric=heartRate&since=2025-05-01&until=2025-05-01", over: transport),
            try harness.get("/api/v1/status", over: transport, token: false), try harness.get("/nothing", over: transport),
            try harness.get("/api/v1/daily?metric=steps&since=nope", over: transport),
            try harness.get("/", over: transport, headers: ["Host": "evil.example"]), try harness.get("/", over: transport, method: "POST"),
        ]
        #expect(answers.map(\.status) == [200, 200, 200, 200, 401, 404, 400, 403, 405])
        for answer in answers {
            let policy = answer.headers["content-security-policy"] ?? ""
            #expect(policy.contains("default-src 'none'") && policy.contains("script-src 'self'") && policy.contains("connect-src 'self'")
                    && policy.contains("frame-ancestors 'none'") && !policy.contains("unsafe"), "\(answer.status): \(policy)")
            #expect(answer.headers["cache-control"] == "no-store", "\(answer.status)")
            #expect(answer.headers["x-content-type-options"] == "nosniff" && answer.headers["referrer-policy"] == "no-referrer")
        }
    }

    @Test func listeningEverywhereTakesNumericHostsButNoNames() {
        let gate = DashboardGate(token: "t", host: "0.0.0.0", port: 8765)
        func admitted(_ host: String) -> Bool {
            (try? gate.admit(HTTPRequestHead(method: "GET", target: "/api/v1/status", version: "HTTP/1.1",
                                             headers: ["host": host, "authorization": "Bearer t"], clientAddress: "10.0.0.2"))) != nil
        }
        #expect(admitted("192.168.1.20:8765") && admitted("[fe80::1]:8765") && admitted("127.0.0.1:8765"))
        #expect(!admitted("myhost.local:8765") && !admitted("rebind.example:8765"))
        let loopback = DashboardGate(token: "t", host: "127.0.0.1", port: 8765)
        #expect(DashboardGate.isLoopback("127.0.0.1") && DashboardGate.isLoopback("::1") && !DashboardGate.isLoopback("0.0.0.0"))
        #expect(loopback.hosts == ["127.0.0.1:8765", "localhost:8765", "[::1]:8765"])
        #expect(DashboardGate.newToken().count == 43 && DashboardGate.newToken() != DashboardGate.newToken())
    }

    /// `/mcp` refuses a page of another site by its Origin, but a page of this dashboard under any
    /// of the names the Host check takes is its own (issue 45: `Origin: http://localhost:PORT`
    /// was refused with `Host: 127.0.0.1:PORT`).
    @Test func mcpTakesItsOwnOriginUnderEveryNameTheHostCheckTakes() {
        let gate = DashboardGate(token: "t", host: "127.0.0.1", port: 8765)
        func status(origin: String?, host: String = "127.0.0.1:8765") -> Int {
            var headers = ["host": host, "authorization": "Bearer t"]
            headers["origin"] = origin
            do {
                try gate.admit(HTTPRequestHead(method: "POST", target: "/mcp", version: "HTTP/1.1", headers: headers, clientAddress: "127.0.0.1"))
                return 200
            } catch let refusal as DashboardRefusal {
                return refusal.status
            } catch {
                return 0
            }
        }
        for origin in [nil, "http://127.0.0.1:8765", "http://localhost:8765", "http://[::1]:8765", "HTTP://LOCALHOST:8765"] {
            #expect(status(origin: origin) == 200, "\(origin ?? "no Origin")")
            #expect(status(origin: origin, host: "localhost:8765") == 200, "\(origin ?? "no Origin") with Host localhost")
        }
        for origin in ["http://evil.example", "http://localhost:8766", "null", "http://127.0.0.1:8765.evil.example", "file://", "http://localhost"] {
            #expect(status(origin: origin) == 403, "\(origin)")
        }
    }
}
