import Foundation
import Testing
@testable import EfferentMicroHTTPD
import EfferentTestSupport

/// Echoes method, target, body length and client address; refuses `/refuse` before the body.
struct EchoResponder: HTTPResponder {
    func admit(_ head: HTTPRequestHead) -> HTTPAdmission {
        head.target.hasPrefix("/refuse") ? .refuse(HTTPResponse(status: 404, body: Array("no".utf8))) : .accept(maxBodyBytes: 1000)
    }
    func bodyTooLarge(_ head: HTTPRequestHead, limit: Int) -> HTTPResponse {
        HTTPResponse(status: 413, body: Array("over \(limit)".utf8))
    }
    func respond(to request: HTTPRequest) -> HTTPResponse {
        if request.target == "/split" {
            return HTTPResponse(status: 200, headers: [("X-Note", "a\r\nInjected: yes")], body: Array("split".utf8))
        }
        let text = "\(request.method) \(request.target) \(request.body.count) \(request.clientAddress) \(request.header("x-a") ?? "-")"
        return HTTPResponse(status: 200, headers: [("Content-Type", "text/plain")], body: Array(text.utf8))
    }
}

@Suite(.serialized) struct HTTPDaemonTests {
    @Test func answersKeepsRawTargetAndStreamsBodies() throws {
        let daemon = try HTTPDaemon(configuration: .init(port: 0), responder: EchoResponder())
        defer { daemon.stop() }
        #expect(daemon.port > 0)
        let client = try RawHTTPConnection(port: daemon.port)
        // Two requests on one connection: keep-alive holds, and the target is as sent (not decoded).
        let first = try client.exchange("GET /a%2Fb?x=1&y=%20 HTTP/1.1\r\nHost: t\r\nX-A: one\r\n\r\n")
        #expect(first.status == 200)
        #expect(first.body == "GET /a%2Fb?x=1&y=%20 0 127.0.0.1 one")
        #expect(first.headers["connection"]?.lowercased() != "close")
        let second = try client.exchange("PUT /p HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello")
        #expect(second.body == "PUT /p 5 127.0.0.1 -")
    }

    @Test func refusesEarlyAndOverLimit() throws {
        let daemon = try HTTPDaemon(configuration: .init(port: 0), responder: EchoResponder())
        defer { daemon.stop() }
        let refused = try RawHTTPConnection(port: daemon.port).exchange("GET /refuse HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(refused.status == 404)
        let declared = try RawHTTPConnection(port: daemon.port)
            .exchange("PUT /p HTTP/1.1\r\nHost: t\r\nContent-Length: 1000000000\r\n\r\n")
        #expect(declared.status == 413)
        #expect(declared.body == "over 1000")
        let chunked = try RawHTTPConnection(port: daemon.port).exchange(
            "PUT /p HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n" + String(repeating: "3e8\r\n" + String(repeating: "a", count: 1000) + "\r\n", count: 3) + "0\r\n\r\n")
        #expect(chunked.status == 413)
    }

    /// A header libmicrohttpd will not send (a line break in it) turns the answer into a 500,
    /// rather than an answer silently missing the header.
    @Test func anAnswerWithARefusedHeaderIsA500() throws {
        let daemon = try HTTPDaemon(configuration: .init(port: 0), responder: EchoResponder())
        defer { daemon.stop() }
        let answer = try RawHTTPConnection(port: daemon.port).exchange("GET /split HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(answer.status == 500)
        #expect(answer.headers["injected"] == nil && answer.headers["x-note"] == nil)
        #expect(answer.headers["content-type"] == "application/json")
        #expect(answer.body.hasPrefix(#"{"error":"the answer to this request could not be built"#))
    }

    @Test func refusesANonNumericAddress() {
        #expect(throws: HTTPDaemonError.badAddress("localhost")) {
            try HTTPDaemon(configuration: .init(host: "localhost", port: 0), responder: EchoResponder())
        }
    }
}
