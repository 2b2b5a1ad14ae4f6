@testable import EfferentHTTP
import EfferentTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The deadlines libmicrohttpd's idle timeout cannot give, over loopback: a head trickled a byte
/// at a time is closed at its deadline, a body slower than the floor at its own, and a request
/// that arrives at once is answered as before. Behind a trusted proxy, requests in flight are
/// capped per forwarded address instead of per connection address.
@Suite(.serialized) struct DeadlineTests {
    static func daemon(head: Double = 1, grace: Double = 1, perClient: Int? = nil, trustProxy: Bool = false) throws -> (HTTPDaemon, RoutedResponder) {
        let router = Router(configuration: Router.Configuration(trustProxy: trustProxy, requestsPerClient: perClient))
        TestServer.addRoutes(to: router)
        let responder = router.responder()
        let daemon = try HTTPDaemon(configuration: .init(port: 0, connectionsPerAddress: trustProxy ? 0 : 32, headTimeoutSeconds: head,
                                                         minimumBodyBytesPerSecond: 1000, bodyGraceSeconds: grace), responder: responder)
        return (daemon, responder)
    }

    /// Sends one byte every 100 ms until the server closes the connection; how many it took.
    static func trickle(_ connection: RawHTTPConnection, _ bytes: [UInt8], seconds: Double) -> (closed: Bool, sent: Int) {
        let until = Date().addingTimeInterval(seconds)
        var sent = 0
        while Date() < until {
            guard connection.isOpen else { return (true, sent) }
            connection.send([bytes[sent % bytes.count]])
            sent += 1
            usleep(100_000)
        }
        return (!connection.isOpen, sent)
    }

    @Test func aHeadThatTricklesIsClosedAtItsDeadline() throws {
        let (daemon, _) = try Self.daemon(head: 1)
        defer { daemon.stop() }
        let slow = try RawHTTPConnection(port: daemon.port)
        let result = Self.trickle(slow, Array("GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ".utf8) + [UInt8](repeating: 97, count: 500), seconds: 4)
        #expect(result.closed, "the head never ended and bytes kept coming; the connection is closed anyway")
        #expect(daemon.deadlineClosures.heads >= 1)
        let quick = try RawHTTPConnection(port: daemon.port)
        quick.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try quick.readResponse().status == 200)
    }

    @Test func aBodySlowerThanTheFloorIsClosedAtItsDeadline() throws {
        // 100 bytes at 1,000 bytes a second after a 1 s grace: due within 1.1 s; it comes at 10 a second.
        let (daemon, _) = try Self.daemon(grace: 1)
        defer { daemon.stop() }
        let slow = try RawHTTPConnection(port: daemon.port)
        slow.send("PUT /items/7 HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n")
        let result = Self.trickle(slow, [UInt8](repeating: 98, count: 100), seconds: 4)
        #expect(result.closed && result.sent < 100, "sent \(result.sent) of 100 before the close")
        #expect(daemon.deadlineClosures.bodies >= 1)
        let quick = try RawHTTPConnection(port: daemon.port)
        quick.send("PUT /items/7 HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc")
        #expect(try quick.readResponse().body == "item 7 took 3")
    }

    @Test func behindATrustedProxyRequestsAreCappedPerForwardedAddress() throws {
        let (daemon, responder) = try Self.daemon(grace: 30, perClient: 2, trustProxy: true)
        defer { daemon.stop() }
        // Two requests from one forwarded client stay in flight (their bodies not yet sent)...
        let held = try (0..<2).map { _ in try RawHTTPConnection(port: daemon.port) }
        for connection in held {
            connection.send("PUT /items/1 HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 203.0.113.9\r\nContent-Length: 5\r\n\r\n")
        }
        let gate = try #require(responder.clients)
        #expect(eventually { gate.inFlight("203.0.113.9") == 2 }, "both held requests are in flight")
        // ...so a third from it is refused, while another client behind the same proxy is answered.
        let third = try RawHTTPConnection(port: daemon.port)
        third.send("GET /health HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 203.0.113.9\r\n\r\n")
        let refused = try third.readResponse()
        #expect(refused.status == 429 && refused.headers["retry-after"] == "1")
        let other = try RawHTTPConnection(port: daemon.port)
        other.send("GET /health HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 198.51.100.4\r\n\r\n")
        #expect(try other.readResponse().status == 200)
        // Once the held requests finish, the client has room again.
        for connection in held {
            connection.send("hello")
            #expect(try connection.readResponse().status == 200)
        }
        let again = try RawHTTPConnection(port: daemon.port)
        again.send("GET /health HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 203.0.113.9\r\n\r\n")
        #expect(try again.readResponse().status == 200)
    }
}
