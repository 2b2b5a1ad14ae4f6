import EfferentHTTP
import Foundation
import Testing

/// The two hooks a local server needs from the layer: a check of every head before its route,
/// and headers every answer carries — refusals, unknown paths and the layer's own errors included.
@Suite struct AdmitAndHeadersTests {
    static let headers = [("Cache-Control", "no-store"), ("Content-Security-Policy", "default-src 'none'")]

    /// Lets through only heads that carry `x-key: right`.
    static let admit: @Sendable (HTTPRequestHead) throws -> Void = { head in
        guard head.header("x-key") == "right" else { throw HTTPError(403, "this server wants the right key") }
    }

    @Test(arguments: Transport.allCases)
    func theCheckRunsBeforeTheRouteAndItsRefusalIsTheAnswer(_ transport: Transport) throws {
        let server = try TestServer(transport, admit: Self.admit, headers: Self.headers)
        let refused = try server.send(HTTPRequest(method: "GET", target: "/health"))
        #expect(refused.status == 403 && refused.error == "this server wants the right key")
        let unknownPath = try server.send(HTTPRequest(method: "GET", target: "/nothing/here"))
        #expect(unknownPath.status == 403, "an unknown path is refused by the check, not answered 404")
        let bigBody = try server.send(HTTPRequest(method: "PUT", target: "/items/1", body: [UInt8](repeating: 1, count: 500)))
        #expect(bigBody.status == 403, "the check comes before the body ceiling")
        let admitted = try server.send(HTTPRequest(method: "GET", target: "/health", headers: ["X-Key": "right"]))
        #expect(admitted.status == 200)
        #expect(server.log.all.contains { $0.contains("\"status\":403") }, "a refusal is logged as any answer")
    }

    @Test(arguments: Transport.allCases)
    func everyAnswerCarriesTheHeadersUnlessItSetsItsOwn(_ transport: Transport) throws {
        let server = try TestServer(transport, headers: Self.headers)
        let answers = [
            try server.send(HTTPRequest(method: "GET", target: "/health")),
            try server.send(HTTPRequest(method: "GET", target: "/nothing")),
            try server.send(HTTPRequest(method: "DELETE", target: "/health")),
            try server.send(HTTPRequest(method: "GET", target: "/items/x")),
            try server.send(HTTPRequest(method: "GET", target: "/secret")),
            try server.send(HTTPRequest(method: "GET", target: "/export")),
        ]
        #expect(answers.map(\.status) == [200, 404, 405, 400, 500, 200])
        for answer in answers {
            #expect(answer.headers["cache-control"] == "no-store" && answer.headers["content-security-policy"] == "default-src 'none'",
                    "\(answer.status) \(answer.headers)")
        }
        let own = try server.send(HTTPRequest(method: "GET", target: "/own-cache"))
        #expect(own.headers["cache-control"] == "max-age=60" && own.headers["content-security-policy"] == "default-src 'none'")
    }

    @Test func queriesArePercentDecodedAndMayRepeatANameWhereAListIsTaken() throws {
        let query = try HTTPQuery("metric=steps&metric=heart%20Rate&since=2025-06-01&empty=&plus=a+b")
        #expect(query.values("metric") == ["steps", "heart Rate"])
        #expect(try query.value("since") == "2025-06-01")
        #expect(try query.value("empty") == nil && query.names.contains("empty"))
        #expect(try query.value("plus") == "a b")
        #expect(throws: HTTPError(400, "metric is given more than once in the query")) { try query.value("metric") }
        #expect(throws: HTTPError(400, "the query is not valid percent-encoding")) { try HTTPQuery("a=%zz") }
        #expect(throws: HTTPError(400, "the query is not valid percent-encoding")) { try HTTPQuery("a=%ff") }
        #expect(HTTPQuery.decode("%E2%9C%93") == "✓")
    }
}
