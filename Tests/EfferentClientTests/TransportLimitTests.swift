@testable import EfferentClient
import EfferentCore
import EfferentTestSupport
import Foundation
import Testing

/// A reader facing a hostile service: answers are measured against their route's ceiling as they
/// arrive (declared or streamed), a body that drips stops within its stall limit, and a service
/// asking to be left alone for minutes is waited on for at most half a minute, said aloud.
@Suite struct TransportLimitTests {
    static func request(_ ceiling: Int = 1 << 20) -> ClientRequest {
        ClientRequest(method: "GET", target: "/b/x/d?from=2026-01-01&to=2026-01-31", maxAnswerBytes: ceiling)
    }

    @Test func aDeclaredGigabyteIsRefusedBeforeItsBody() async throws {
        let server = try ScriptedHTTPServer { _, connection in
            connection.write("HTTP/1.1 200 OK\r\nContent-Length: 1073741824\r\n\r\n")
            for _ in 0..<64 where connection.write([UInt8](repeating: 0, count: 65_536)) {}
        }
        await #expect(throws: ArchiveError.answerTooLarge(limit: 1 << 20)) {
            _ = try await CurlTransport(endpoint: server.url).send(Self.request())
        }
    }

    @Test func aStreamedAnswerPastItsCeilingIsCutAsItArrives() async throws {
        let server = try ScriptedHTTPServer { _, connection in
            connection.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
            let chunk = "10000\r\n" + String(repeating: "a", count: 65_536) + "\r\n"
            for _ in 0..<64 where connection.write(chunk) {}
            connection.write("0\r\n\r\n")
        }
        await #expect(throws: ArchiveError.answerTooLarge(limit: 1 << 20)) {
            _ = try await CurlTransport(endpoint: server.url).send(Self.request())
        }
        // The same stream under a ceiling it fits in arrives whole.
        let whole = try await CurlTransport(endpoint: server.url).send(Self.request(8 << 20))
        #expect(whole.status == 200 && whole.body.count == 64 * 65_536)
    }

    @Test func aBodyThatDripsIsAbandonedAtTheStallLimit() async throws {
        let server = try ScriptedHTTPServer { _, connection in
            connection.write("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n")
            for _ in 0..<1000 {
                guard connection.write([0x61]) else { return }
                usleep(500_000)
            }
        }
        let transport = CurlTransport(endpoint: server.url, deadline: 600, stallSeconds: 2)
        await #expect(throws: ArchiveError.noConnection(endpoint: server.url,
                                                        reason: "it connected but did not finish answering within 600 s, or stalled below 1 KiB/s")) {
            _ = try await transport.send(Self.request())
        }
    }

    @Test func aDeadlineEndsAnAnswerHoweverItTrickles() async throws {
        let server = try ScriptedHTTPServer { _, connection in
            connection.write("HTTP/1.1 200 OK\r\nContent-Length: 100000000\r\n\r\n")
            // Fast enough for the stall floor, far too slow to finish.
            for _ in 0..<10_000 {
                guard connection.write([UInt8](repeating: 0x61, count: 4096)) else { return }
                usleep(100_000)
            }
        }
        let transport = CurlTransport(endpoint: server.url, deadline: 2)
        await #expect(throws: ArchiveError.noConnection(endpoint: server.url,
                                                        reason: "it connected but did not finish answering within 2 s, or stalled below 1 KiB/s")) {
            _ = try await transport.send(Self.request(1 << 30))
        }
    }

    @Test func aTLSHandshakeWithAPlainHTTPServiceSaysSo() async throws {
        let server = try ScriptedHTTPServer { _, connection in connection.write("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n") }
        let endpoint = "https://127.0.0.1:\(server.port)"
        do {
            _ = try await CurlTransport(endpoint: endpoint).send(Self.request())
            Issue.record("a TLS client talking to plain HTTP must fail")
        } catch {
            #expect(error.description.hasPrefix("Cannot reach the archive service at \(endpoint): the TLS handshake failed ("))
            #expect(error.description.hasSuffix("if the service speaks plain HTTP, its address starts with http://."))
        }
    }

    @Test func aRetryAfterOfMinutesIsCappedAndSaid() {
        let policy = RetryPolicy(delays: [2, 4], jitter: 0)
        #expect(policy.delay(attempt: 0, retryAfter: 240) == RetryPolicy.maxRetryAfter)
        #expect(policy.delay(attempt: 0, retryAfter: 1) == 2)
        let notice = ArchiveClient.retryNotice(.refused(status: 503, message: "busy"), wait: 30, asked: 240, attempt: 2, of: 3)
        #expect(notice == "the archive service answered 503 (busy); trying again in 30 s (attempt 2 of 3); it asked for 240 s, which is more than this client waits")
    }
}
