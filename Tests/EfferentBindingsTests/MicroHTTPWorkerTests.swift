import Foundation
import EfferentSystem
import Testing
import EfferentMicroHTTPD
import EfferentTestSupport

/// Handlers run on workers, never on libmicrohttpd's poll threads: with one poll thread, an
/// answer, a body piece or a streamed piece that blocks holds its own connection only, and the
/// others on that thread are answered meanwhile. Stopping waits for the answer being made.
@Suite(.serialized) struct MicroHTTPWorkerTests {
    /// Where a handler waits until the test lets it go, and says it has started waiting.
    final class Gate: Sendable {
        let entered = DispatchSemaphore(value: 0)
        let opened = DispatchSemaphore(value: 0)
        func pass() {
            entered.signal()
            opened.wait()
        }
        /// Whether a handler reached the gate within 10 s (a bound for a failure only).
        func reached() -> Bool { entered.wait(timeout: .now() + 10) == .success }
        func open(_ count: Int = 1) { for _ in 0..<count { opened.signal() } }
    }

    struct BlockingHandler: MicroHTTPHandler {
        let gate: Gate

        final class Exchange: MicroHTTPExchange {
            let head: MicroHTTPHead
            let gate: Gate
            var received = 0
            init(head: MicroHTTPHead, gate: Gate) {
                self.head = head
                self.gate = gate
            }

            func earlyReply() -> MicroHTTPReply? { nil }

            func receive(_ chunk: [UInt8]) -> Bool {
                if head.target == "/block-body", received == 0 { gate.pass() }
                received += chunk.count
                return true
            }

            func finish() -> MicroHTTPReply {
                switch head.target {
                case "/block": gate.pass()
                case "/block-stream":
                    let gate = self.gate
                    let sent = Counter()
                    return MicroHTTPReply(status: 200, headers: [], body: .stream {
                        switch sent.next() {
                        case 0: return Array("first ".utf8)
                        case 1:
                            gate.pass()
                            return Array("second".utf8)
                        default: return nil
                        }
                    })
                default: break
                }
                return MicroHTTPReply(status: 200, headers: [], body: .bytes(Array("\(head.target) \(received)".utf8)))
            }
        }

        func begin(_ head: MicroHTTPHead) -> any MicroHTTPExchange { Exchange(head: head, gate: gate) }
    }

    final class Counter: Sendable {
        private let value = Mutex(0)
        func next() -> Int { value.withLock { value in defer { value += 1 }; return value } }
    }

    static func daemon(_ gate: Gate) throws -> MicroHTTPDaemon {
        try MicroHTTPDaemon(configuration: .init(port: 0, pollThreads: 1, workers: 4), handler: BlockingHandler(gate: gate))
    }

    static func quick(_ port: Int) throws -> String {
        try RawHTTPConnection(port: port).exchange("GET /quick HTTP/1.1\r\nHost: t\r\n\r\n").body
    }

    @Test func aBlockedAnswerStallsNoOtherConnection() throws {
        let gate = Gate()
        let daemon = try Self.daemon(gate)
        defer { daemon.stop() }
        let blocked = try RawHTTPConnection(port: daemon.port)
        blocked.send("GET /block HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(gate.reached())
        #expect(try Self.quick(daemon.port) == "/quick 0")
        gate.open()
        #expect(try blocked.readResponse().body == "/block 0")
    }

    @Test func aBlockedBodyPieceStallsNoOtherConnection() throws {
        let gate = Gate()
        let daemon = try Self.daemon(gate)
        defer { daemon.stop() }
        let blocked = try RawHTTPConnection(port: daemon.port)
        blocked.send("PUT /block-body HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n")
        #expect(gate.reached())
        #expect(try Self.quick(daemon.port) == "/quick 0")
        gate.open()
        #expect(try blocked.readResponse().body == "/block-body 11", "every chunk arrives once, in order")
    }

    @Test func aBlockedStreamStallsNoOtherConnection() throws {
        let gate = Gate()
        let daemon = try Self.daemon(gate)
        defer { daemon.stop() }
        let blocked = try RawHTTPConnection(port: daemon.port)
        blocked.send("GET /block-stream HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        #expect(gate.reached())
        #expect(try Self.quick(daemon.port) == "/quick 0")
        gate.open()
        #expect(RawHTTPConnection.dechunked(try blocked.readResponse().body) == "first second")
    }

    @Test func stoppingWaitsForTheAnswerBeingMade() throws {
        let gate = Gate()
        let daemon = try Self.daemon(gate)
        let blocked = try RawHTTPConnection(port: daemon.port)
        blocked.send("GET /block HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(gate.reached())
        let stopped = DispatchSemaphore(value: 0)
        Thread {
            daemon.stop()
            stopped.signal()
        }.start()
        gate.open()
        #expect(stopped.wait(timeout: .now() + 10) == .success, "stop returns once the worker has resumed its connection")
        #expect(daemon.inFlight == 0)
    }
}
