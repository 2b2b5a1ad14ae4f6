import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Slow clients, as a slowloris attack runs them: `count` connections to a loopback port, spread
/// over `sources` addresses (127.0.0.2 …), each sending a request head one byte a second and
/// never finishing it; a connection the server closes is opened again at once. One thread drives
/// them all. Stops (closing every connection) when released or `stop()` is called.
public final class SlowClientSwarm: @unchecked Sendable {
    private let port: Int
    private let count: Int
    private let sources: Int
    private let lock = NSLock()
    private var running = true
    private var sockets: [Int32]
    private var finished = DispatchSemaphore(value: 0)
    /// Connections the server closed (and the swarm reopened).
    public private(set) var reconnects = 0

    public init(port: Int, count: Int, sources: Int) {
        self.port = port
        self.count = count
        self.sources = sources
        sockets = [Int32](repeating: -1, count: count)
        Thread { self.run() }.start()
    }

    deinit { stop() }

    public func stop() {
        let wasRunning = lock.withLock { () -> Bool in
            defer { running = false }
            return running
        }
        guard wasRunning else { return }
        finished.wait()
    }

    private func connectOne(_ index: Int) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, "127.0.0.\(2 + index % sources)", &local.sin_addr)
        _ = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr)
        _ = withUnsafePointer(to: &remote) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        return fd
    }

    /// Whether the connection still stands: a read of 0 (closed) or an error other than "would
    /// block" means the server let it go.
    private func alive(_ fd: Int32) -> Bool {
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, Int32(MSG_DONTWAIT))
        return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINPROGRESS || errno == ENOTCONN)
    }

    private func run() {
        let head = Array("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".utf8)
        var sent = [Int](repeating: 0, count: count)
        while lock.withLock({ running }) {
            for index in 0..<count {
                if sockets[index] >= 0, !alive(sockets[index]) {
                    close(sockets[index])
                    sockets[index] = -1
                    lock.withLock { reconnects += 1 }
                }
                if sockets[index] < 0 {
                    sockets[index] = connectOne(index)
                    sent[index] = 0
                }
                // One more byte of a head that never ends.
                let byte: UInt8 = sent[index] < head.count ? head[sent[index]] : UInt8(ascii: "a")
                var one = byte
                if send(sockets[index], &one, 1, Int32(MSG_NOSIGNAL)) == 1 { sent[index] += 1 }
            }
            usleep(1_000_000)
        }
        for fd in sockets where fd >= 0 { close(fd) }
        finished.signal()
    }
}
