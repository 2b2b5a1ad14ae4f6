import EfferentSystem
import Foundation
import Testing
@testable import EfferentMicroHTTPD
import EfferentTestSupport

/// Echoes method, target, version, body length and client address; refuses `/refuse` before the
/// body, stops taking a body past 1000 bytes, streams `/stream` in pieces.
struct EchoHandler: MicroHTTPHandler {
    final class Exchange: MicroHTTPExchange {
        let head: MicroHTTPHead
        var received = 0
        var overLimit = false
        init(head: MicroHTTPHead) { self.head = head }

        func earlyReply() -> MicroHTTPReply? {
            head.target.hasPrefix("/refuse") ? MicroHTTPReply(status: 404, headers: [], body: .bytes(Array("no".utf8))) : nil
        }

        func receive(_ chunk: [UInt8]) -> Bool {
            received += chunk.count
            overLimit = received > 1000
            return !overLimit
        }

        func finish() -> MicroHTTPReply {
            if overLimit { return MicroHTTPReply(status: 413, headers: [], body: .bytes(Array("over 1000".utf8))) }
            switch head.target {
            case "/split":
                return MicroHTTPReply(status: 200, headers: [("X-Note", "a\r\nInjected: yes")], body: .bytes(Array("split".utf8)))
            case "/stream":
                let pieces = Pieces()
                return MicroHTTPReply(status: 200, headers: [("Content-Type", "text/plain")], body: .stream { pieces.next() })
            default:
                let text = "\(head.method) \(head.target) \(head.version) \(received) \(head.clientAddress) \(head.headers["x-a"] ?? "-")"
                return MicroHTTPReply(status: 200, headers: [("Content-Type", "text/plain")], body: .bytes(Array(text.utf8)))
            }
        }
    }

    /// 300 lines of 1000 bytes, more than any single buffer libmicrohttpd reads into.
    final class Pieces: Sendable {
        private let sentCount = Mutex(0)
        func next() -> [UInt8]? {
            guard let sent = sentCount.withLock({ sent -> Int? in
                guard sent < 300 else { return nil }
                sent += 1
                return sent
            }) else { return nil }
            return Array(String(format: "%04d", sent).utf8) + [UInt8](repeating: 0x2E, count: 995) + [0x0A]
        }
    }

    func begin(_ head: MicroHTTPHead) -> any MicroHTTPExchange { Exchange(head: head) }
}

@Suite(.serialized) struct MicroHTTPDaemonTests {
    @Test func answersKeepsRawTargetAndStreamsBodies() throws {
        let daemon = try MicroHTTPDaemon(configuration: .init(port: 0), handler: EchoHandler())
        defer { daemon.stop() }
        #expect(daemon.port > 0)
        let client = try RawHTTPConnection(port: daemon.port)
        // Two requests on one connection: keep-alive holds, and the target is as sent (not decoded).
        let first = try client.exchange("GET /a%2Fb?x=1&y=%20 HTTP/1.1\r\nHost: t\r\nX-A: one\r\n\r\n")
        #expect(first.status == 200)
        #expect(first.body == "GET /a%2Fb?x=1&y=%20 HTTP/1.1 0 127.0.0.1 one")
        #expect(first.headers["connection"]?.lowercased() != "close")
        let second = try client.exchange("PUT /p HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello")
        #expect(second.body == "PUT /p HTTP/1.1 5 127.0.0.1 -")
    }

    /// Bound first, served second: a request sent between the two waits in the backlog and is
    /// answered once the daemon serves the listener; the port is the listener's.
    @Test func aListenerBoundFirstIsServedSecond() throws {
        let listener = try MicroHTTPListener(host: "127.0.0.1", port: 0)
        #expect(listener.port > 0)
        let early = try RawHTTPConnection(port: listener.port)
        early.send("GET /early HTTP/1.1\r\nHost: t\r\n\r\n")
        let daemon = try MicroHTTPDaemon(configuration: .init(port: 0), listener: listener, handler: EchoHandler())
        defer { daemon.stop() }
        #expect(daemon.port == listener.port)
        let answer = try early.readResponse()
        #expect(answer.status == 200)
        #expect(answer.body == "GET /early HTTP/1.1 0 127.0.0.1 -")
        #expect(try RawHTTPConnection(port: listener.port).exchange("GET /later HTTP/1.1\r\nHost: t\r\n\r\n").status == 200)
    }

    /// A listener no daemon took gives its port back when it goes.
    @Test func anUnservedListenerClosesItsPort() throws {
        var port = 0
        do {
            let listener = try MicroHTTPListener(host: "127.0.0.1", port: 0)
            port = listener.port
        }
        #expect(throws: (any Error).self) { try RawHTTPConnection(port: port) }
        #expect(try MicroHTTPListener(host: "127.0.0.1", port: port).port == port)
    }

    @Test func refusesEarlyAndStopsTakingABody() throws {
        let daemon = try MicroHTTPDaemon(configuration: .init(port: 0), handler: EchoHandler())
        defer { daemon.stop() }
        let refused = try RawHTTPConnection(port: daemon.port).exchange("GET /refuse HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(refused.status == 404)
        let chunked = try RawHTTPConnection(port: daemon.port).exchange(
            "PUT /p HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n" + String(repeating: "3e8\r\n" + String(repeating: "a", count: 1000) + "\r\n", count: 3) + "0\r\n\r\n")
        #expect(chunked.status == 413)
        #expect(chunked.body == "over 1000")
    }

    /// A streamed body goes out chunked, piece by piece, whole.
    @Test func streamsAnAnswerInPieces() throws {
        let daemon = try MicroHTTPDaemon(configuration: .init(port: 0), handler: EchoHandler())
        defer { daemon.stop() }
        let answer = try RawHTTPConnection(port: daemon.port).exchange("GET /stream HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        #expect(answer.status == 200)
        #expect(answer.headers["transfer-encoding"] == "chunked")
        let lines = RawHTTPConnection.dechunked(answer.body).split(separator: "\n")
        #expect(lines.count == 300)
        #expect(lines.first?.hasPrefix("0001.") == true && lines.last?.hasPrefix("0300.") == true)
        #expect(lines.allSatisfy { $0.count == 999 })
    }

    /// A header libmicrohttpd will not send (a line break in it) turns the answer into a 500,
    /// rather than an answer silently missing the header.
    @Test func anAnswerWithARefusedHeaderIsA500() throws {
        let daemon = try MicroHTTPDaemon(configuration: .init(port: 0), handler: EchoHandler())
        defer { daemon.stop() }
        let answer = try RawHTTPConnection(port: daemon.port).exchange("GET /split HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(answer.status == 500)
        #expect(answer.headers["injected"] == nil && answer.headers["x-note"] == nil)
        #expect(answer.headers["content-type"] == "application/json")
        #expect(answer.body.hasPrefix(#"{"error":"the answer to this request could not be built"#))
    }

    @Test func refusesANonNumericAddress() {
        #expect(throws: MicroHTTPDaemonError.badAddress("localhost")) {
            try MicroHTTPDaemon(configuration: .init(host: "localhost", port: 0), handler: EchoHandler())
        }
    }
}
