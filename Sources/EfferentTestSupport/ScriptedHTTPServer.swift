import EfferentSystem
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A loopback HTTP server that answers every request by running a script over the raw socket:
/// for tests of a client facing a hostile or broken service (an answer declaring a gigabyte, a
/// body that drips a byte a second, a connection cut midway). One thread per connection.
public final class ScriptedHTTPServer: Sendable {
    /// Writes raw bytes to the client; false once the client has gone.
    public struct Connection: Sendable {
        let descriptor: Int32

        @discardableResult
        public func write(_ bytes: [UInt8]) -> Bool {
            var offset = 0
            while offset < bytes.count {
                let sent = LoopbackSocket.send(descriptor, bytes[offset...])
                if sent <= 0 { return false }
                offset += sent
            }
            return true
        }

        @discardableResult
        public func write(_ text: String) -> Bool { write(Array(text.utf8)) }
    }

    public let port: Int
    private let listener: Int32
    private let stopped = StopFlag()

    final class StopFlag: Sendable {
        private let value = Atomic(false)
        var isSet: Bool { value.load(ordering: .acquiring) }
        func set() { value.store(true, ordering: .releasing) }
    }

    /// `script` gets each request's head (request line and headers) and answers it.
    public init(script: @escaping @Sendable (_ requestHead: String, _ connection: Connection) -> Void) throws {
        let listener = LoopbackSocket.open()
        LoopbackSocket.reuseAddress(listener)
        guard LoopbackSocket.bind(listener, port: 0), LoopbackSocket.listen(listener, backlog: 64) else {
            LoopbackSocket.close(listener)
            throw POSIXError(.EADDRINUSE)
        }
        port = LoopbackSocket.localPort(listener)
        self.listener = listener
        let stopped = self.stopped
        Thread { Self.acceptLoop(listener: listener, stopped: stopped, script: script) }.start()
    }

    public var url: String { "http://127.0.0.1:\(port)" }

    private static func acceptLoop(listener: Int32, stopped: StopFlag,
                                   script: @escaping @Sendable (String, Connection) -> Void) {
        while true {
            let client = LoopbackSocket.accept(listener)
            if client < 0 {
                if stopped.isSet { return }
                continue
            }
            Thread {
                defer { LoopbackSocket.close(client) }
                var head = [UInt8]()
                // The head ends at the first blank line; request bodies are not read (clients under test
                // send none). A first byte that cannot start an HTTP method (a TLS ClientHello) is
                // answered at once, as a plain-HTTP server answers one.
                while let received = LoopbackSocket.receive(client, limit: 1), let byte = received.first {
                    head.append(byte)
                    if head.count == 1 && !(65...90).contains(byte) { break }
                    if head.count >= 4 && head.suffix(4) == [13, 10, 13, 10] { break }
                }
                script(String(decoding: head, as: UTF8.self), Connection(descriptor: client))
            }.start()
        }
    }

    deinit {
        stopped.set()
        LoopbackSocket.shutdown(listener)
        LoopbackSocket.close(listener)
    }
}
