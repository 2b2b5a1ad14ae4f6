import EfferentHTTP
import EfferentTestSupport
import Foundation
import Testing

/// When the connection table is full, a newcomer is not refused: the head-less connection that
/// has sent the least for the longest is shed instead, and never one whose head is complete.
@Suite(.serialized) struct SheddingTests {
    final class Counting: HTTPBodySink {
        var count = 0
        func take(_ bytes: [UInt8]) throws { count += bytes.count }
    }

    @Test func aFullTableShedsTheSlowestHeadsNotTheNewcomerNorARequestUnderWay() throws {
        let headIn = DispatchSemaphore(value: 0)
        let router = Router()
        router.get("/health") { _, _ in HTTPResponse(status: 200, body: Array("ok".utf8)) }
        router.on("POST", "/held", body: BodyLimit(bytes: 100), sink: { _, _ in
            headIn.signal()
            return Counting()
        }) { _, _, sink in HTTPResponse(status: 200, body: Array("held \(sink.count)".utf8)) }
        let daemon = try HTTPDaemon(configuration: .init(port: 0, connectionLimit: 64, connectionsPerAddress: 32), responder: router.responder())
        defer { daemon.stop() }
        #expect(daemon.connectionLimit == 64)
        // A request whose head is in and whose body is still to come holds its place throughout.
        let underWay = try RawHTTPConnection(port: daemon.port)
        underWay.send("POST /held HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n")
        #expect(headIn.wait(timeout: .now() + 10) == .success)

        // 200 slow connections from ten addresses: three times the table.
        let swarm = SlowClientSwarm(port: daemon.port, count: 200, sources: 10)
        defer { swarm.stop() }
        #expect(swarm.waitUntilOpen(), "every slow connection was accepted, shedding an older one")
        let result = GoodClient(port: daemon.port, target: "/health", host: "x").ask(30, pause: 0.02)
        swarm.stop()
        #expect(result.answered >= 29, "\(result)")
        #expect(daemon.shedConnections > 0)
        underWay.send("hello")
        #expect(try underWay.readResponse().body == "held 5", "a connection with a complete head is never shed")
    }
}
