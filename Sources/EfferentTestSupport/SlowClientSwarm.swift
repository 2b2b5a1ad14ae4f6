import EfferentSystem
import Foundation
import EfferentSystem
#if canImport(Glibc)
import Glibc
#endif

/// Slow clients, as a slowloris attack runs them: `count` connections to a loopback port, spread
/// over `sources` addresses (`firstSource`, the next …), each sending a request head a byte at a
/// time (every `interval` seconds) and never finishing it; a connection the server closes is
/// opened again at once. One thread drives them all. Stops (closing every connection) when
/// released or `stop()` is called.
public final class SlowClientSwarm: Sendable {
    private struct State {
        var running = true
        /// Connections whose first byte went out (the server accepted them) at least once.
        var opened = Set<Int>()
        var reconnects = 0
    }

    private let port: Int
    private let count: Int
    private let sources: Int
    private let firstSource: Int
    private let interval: Double
    private let state = Mutex(State())
    private let finished = DispatchSemaphore(value: 0)

    public init(port: Int, count: Int, sources: Int, firstSource: Int = 2, interval: Double = 1) {
        self.port = port
        self.count = count
        self.sources = sources
        self.firstSource = firstSource
        self.interval = interval
        Self.raiseOpenFiles()
        Thread { [self] in run() }.start()
    }

    deinit { stop() }

    /// Connections the server closed (and the swarm reopened).
    public var reconnects: Int { state.withLock { $0.reconnects } }

    /// The address the `index`th source sends from.
    public static func source(_ index: Int) -> String { "127.0.0.\(index)" }

    /// Waits (up to `timeout` seconds, a bound for a failure only) until every connection has
    /// been accepted at least once; whether they all were.
    public func waitUntilOpen(timeout: Double = 60) -> Bool {
        let until = Date().addingTimeInterval(timeout)
        while Date() < until {
            if state.withLock({ $0.opened.count }) >= count { return true }
            usleep(20_000)
        }
        return false
    }

    public func stop() {
        let wasRunning = state.withLock { state -> Bool in
            defer { state.running = false }
            return state.running
        }
        guard wasRunning else { return }
        finished.wait()
    }

    /// Each connection is a descriptor: the soft limit on open files goes up to the hard one.
    public static func raiseOpenFiles() {
        LoopbackSocket.raiseOpenFiles()
    }

    private func connectOne(_ index: Int) -> Int32 {
        let fd = LoopbackSocket.open(nonBlocking: true)
        guard fd >= 0 else { return -1 }
        LoopbackSocket.bind(fd, address: Self.source(firstSource + index % sources), port: 0)
        LoopbackSocket.connect(fd, port: port)
        return fd
    }

    /// Whether the connection still stands: a read of 0 (closed) or an error other than "would
    /// block" means the server let it go.
    private func alive(_ fd: Int32) -> Bool {
        let found = LoopbackSocket.poll(fd, peek: false)
        return found == .wouldBlock || found == .connecting
    }

    private func run() {
        let head = Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".utf8)
        var sockets = [Int32](repeating: -1, count: count)
        var sent = [Int](repeating: 0, count: count)
        while state.withLock({ $0.running }) {
            var opened = [Int]()
            var reconnects = 0
            for index in 0..<count {
                if sockets[index] >= 0, !alive(sockets[index]) {
                    LoopbackSocket.close(sockets[index])
                    sockets[index] = -1
                    reconnects += 1
                }
                if sockets[index] < 0 {
                    sockets[index] = connectOne(index)
                    sent[index] = 0
                    if sockets[index] < 0 { continue }
                }
                // One more byte of a head that never ends.
                let byte: UInt8 = sent[index] < head.count ? head[sent[index]] : UInt8(ascii: "a")
                if LoopbackSocket.send(sockets[index], [byte][...]) == 1 {
                    sent[index] += 1
                    opened.append(index)
                }
            }
            state.withLock { state in
                state.opened.formUnion(opened)
                state.reconnects += reconnects
            }
            usleep(useconds_t(interval * 1_000_000))
        }
        for fd in sockets where fd >= 0 { LoopbackSocket.close(fd) }
        finished.signal()
    }
}
