import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// IPv4 TCP sockets as plain descriptors, for the test support's bare clients and servers (exact
/// bytes on the wire, slow clients, a black-holed port): every `sockaddr` and buffer pointer of
/// `socket(2)`, `bind(2)`, `connect(2)`, `send(2)` and `recv(2)` stays here.
public enum LoopbackSocket {
    /// A new TCP socket (non-blocking when asked); -1 when none could be made.
    public static func open(nonBlocking: Bool = false) -> Int32 {
        socket(AF_INET, Int32(SOCK_STREAM.rawValue) | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0), 0)
    }

    /// Binds `descriptor` to `address` (dotted IPv4) and `port` (0: the kernel picks).
    @discardableResult
    public static func bind(_ descriptor: Int32, address: String = "127.0.0.1", port: Int = 0) -> Bool {
        var socketAddress = make(address, port)
        return withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    /// Connects `descriptor` to `address`:`port`; whether it connected (a non-blocking socket
    /// answers false while the connection is still being made).
    @discardableResult
    public static func connect(_ descriptor: Int32, address: String = "127.0.0.1", port: Int) -> Bool {
        var socketAddress = make(address, port)
        return withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    /// Starts listening with room for `backlog` connections not yet accepted.
    public static func listen(_ descriptor: Int32, backlog: Int32) -> Bool { Glibc.listen(descriptor, backlog) == 0 }

    /// The port `descriptor` is bound to.
    public static func localPort(_ descriptor: Int32) -> Int {
        var socketAddress = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return Int(UInt16(bigEndian: socketAddress.sin_port))
    }

    /// The next connection waiting on a listening `descriptor`; negative on failure.
    public static func accept(_ descriptor: Int32) -> Int32 { Glibc.accept(descriptor, nil, nil) }

    /// Lets the listener's address be bound again while old connections linger (`SO_REUSEADDR`).
    public static func reuseAddress(_ descriptor: Int32) {
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    }

    /// A blocking receive on `descriptor` gives up after `seconds` (`SO_RCVTIMEO`).
    public static func receiveTimeout(_ descriptor: Int32, seconds: Int) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Sends as much of `bytes` as the kernel takes at once, never raising SIGPIPE; how many bytes
    /// went, or ≤ 0 when none could.
    public static func send(_ descriptor: Int32, _ bytes: ArraySlice<UInt8>) -> Int {
        bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Receives up to `limit` bytes (waiting for some); empty at the end of the stream, nil on an
    /// error or a receive timeout.
    public static func receive(_ descriptor: Int32, limit: Int) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: limit)
        let n = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        guard n >= 0 else { return nil }
        return Array(buffer[..<n])
    }

    /// What a read that does not wait finds on a connection.
    public enum Readiness: Equatable, Sendable {
        /// A byte is there to read.
        case data
        /// The peer closed the connection.
        case closed
        /// Nothing yet, the connection stands (`EAGAIN`).
        case wouldBlock
        /// The connection is still being made (`EINPROGRESS`, `ENOTCONN`).
        case connecting
        /// Any other error: the connection is gone.
        case failed
    }

    /// Reads (or with `peek`, looks at) one byte without waiting.
    public static func poll(_ descriptor: Int32, peek: Bool) -> Readiness {
        var byte: UInt8 = 0
        let n = recv(descriptor, &byte, 1, Int32(MSG_DONTWAIT) | (peek ? Int32(MSG_PEEK) : 0))
        if n > 0 { return .data }
        if n == 0 { return .closed }
        switch errno {
        case EAGAIN, EWOULDBLOCK: return .wouldBlock
        case EINPROGRESS, ENOTCONN: return .connecting
        default: return .failed
        }
    }

    /// Ends both directions of the connection (a thread blocked in `accept` on it returns).
    public static func shutdown(_ descriptor: Int32) { _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR)) }

    public static func close(_ descriptor: Int32) { _ = Glibc.close(descriptor) }

    /// Raises this process's soft limit on open files to the hard one (each connection is one).
    public static func raiseOpenFiles() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    private static func make(_ address: String, _ port: Int) -> sockaddr_in {
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, address, &socketAddress.sin_addr)
        return socketAddress
    }
}
