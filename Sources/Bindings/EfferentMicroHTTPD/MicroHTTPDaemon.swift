internal import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import EfferentSystem

/// An HTTP/1.1 server on libmicrohttpd (https://www.gnu.org/software/libmicrohttpd/manual/).
///
/// A few poll threads (libmicrohttpd's epoll mode with a thread pool) serve every connection, so
/// an idle or slow one costs a descriptor and a little memory, never a thread. What may block —
/// a handler's answer, a body piece a route's sink parses, a streamed answer's next piece — runs
/// on a bounded pool of worker threads while its connection is suspended, so a handler blocked
/// on the database holds one worker, never a poll thread. Connection, idle-time and per-address
/// limits (shedding the slowest heads, not refusing newcomers) keep slow or half-open clients
/// from starving others. Each request is an exchange its handler creates: the body is handed to
/// it as it arrives, and it decides how much to keep.
public final class MicroHTTPDaemon: Sendable {
    public struct Configuration: Sendable {
        public var host: String
        public var port: Int
        public var connectionLimit: Int
        public var idleTimeoutSeconds: Int
        /// 0 for no cap (behind a proxy every connection comes from its one address).
        public var connectionsPerAddress: Int
        /// PEM texts; both or neither (Debian's libmicrohttpd does TLS with GnuTLS).
        public var tlsKey: String?
        public var tlsCertificate: String?
        /// Seconds a request's whole head may take to arrive, however its bytes trickle.
        public var headTimeoutSeconds: Double
        /// A body may take `bodyGraceSeconds` plus its declared length at this rate (bytes/s);
        /// one of unknown length, 60 s.
        public var minimumBodyBytesPerSecond: Double
        public var bodyGraceSeconds: Double
        /// libmicrohttpd's poll threads (each serves its share of the connections with epoll).
        public var pollThreads: Int
        /// The most threads answering requests at once; more requests wait their turn.
        public var workers: Int

        public init(host: String = "127.0.0.1", port: Int = 8750, connectionLimit: Int = 8192, idleTimeoutSeconds: Int = 30,
                    connectionsPerAddress: Int = 32, tlsKey: String? = nil, tlsCertificate: String? = nil,
                    headTimeoutSeconds: Double = 10, minimumBodyBytesPerSecond: Double = 16 * 1024, bodyGraceSeconds: Double = 10,
                    pollThreads: Int = 4, workers: Int = 32) {
            self.host = host
            self.port = port
            self.connectionLimit = connectionLimit
            self.idleTimeoutSeconds = idleTimeoutSeconds
            self.connectionsPerAddress = connectionsPerAddress
            self.tlsKey = tlsKey
            self.tlsCertificate = tlsCertificate
            self.headTimeoutSeconds = headTimeoutSeconds
            self.minimumBodyBytesPerSecond = minimumBodyBytesPerSecond
            self.bodyGraceSeconds = bodyGraceSeconds
            self.pollThreads = pollThreads
            self.workers = workers
        }
    }

    private let daemon: OpaquePointerBox
    private let context: Unmanaged<DaemonContext>
    /// The port actually bound (the one asked for, or the one the system chose for port 0).
    public let port: Int
    /// The connections allowed at once: the one asked for, or fewer when the process may not
    /// open that many files.
    public let connectionLimit: Int

    /// Each connection's memory pool: libmicrohttpd parses the request line, headers, query
    /// arguments and chunk headers into it, and a request that does not fit gets no answer (500
    /// parameters) or an HTML 500 (a 100 KB chunk extension). 32 KiB is its default; 256 KiB takes
    /// what any real client sends. It is mapped, not touched: an idle connection holds the pages
    /// its bytes filled. (Kept here rather than in the shim's header: SwiftPM does not rebuild
    /// Swift code when a C header changes.)
    static let connectionMemory = 256 * 1024

    /// Descriptors kept for everything but connections (the database, the log, the listening socket).
    static let reservedDescriptors = 256

    /// Serves `handler` on `listener` when given (bound already, its port known before anything
    /// answers), else on a socket of its own bound to the configuration's host and port.
    public init(configuration: Configuration, listener: MicroHTTPListener? = nil, handler: any MicroHTTPHandler) throws(MicroHTTPDaemonError) {
        let files = Int(clamping: efferent_raise_open_files())
        let limit = max(16, min(configuration.connectionLimit, files - Self.reservedDescriptors))
        let watch = ConnectionWatch(limits: .init(headSeconds: configuration.headTimeoutSeconds,
                                                  idleSeconds: Double(configuration.idleTimeoutSeconds),
                                                  bodyGraceSeconds: configuration.bodyGraceSeconds,
                                                  bodyBytesPerSecond: configuration.minimumBodyBytesPerSecond,
                                                  unknownBodySeconds: 60, connectionLimit: limit,
                                                  perAddress: configuration.connectionsPerAddress))
        let pollThreads = max(1, configuration.pollThreads)
        let context = Unmanaged.passRetained(DaemonContext(handler: handler, watch: watch, workers: WorkerPool(maximum: configuration.workers)))
        let isIPv6: Bool
        var storage: sockaddr_storage
        do { (storage, isIPv6) = try Self.address(host: configuration.host, port: configuration.port) } catch {
            context.release()
            throw error
        }
        let listenDescriptor = listener?.take() ?? -1
        var flags = UInt32(MHD_USE_EPOLL_INTERNAL_THREAD.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ITC.rawValue)
        if isIPv6 { flags |= UInt32(MHD_USE_IPv6.rawValue) }
        // libmicrohttpd's own cap sits above the watch's, which sheds the slowest heads to keep
        // within it: a shed connection still counts until its poll thread has closed it. No cap
        // per address there: the watch keeps that one too, shedding rather than refusing.
        let started: OpaquePointer? = withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                efferent_mhd_start(flags, address, accessHandler, context.toOpaque(), requestCompleted, uriLogged, connectionNotified,
                                   UInt32(limit + limit / 4 + 64), UInt32(configuration.idleTimeoutSeconds),
                                   0, Self.connectionMemory, UInt32(pollThreads),
                                   configuration.tlsKey, configuration.tlsCertificate, listenDescriptor)
            }
        }
        guard let started else {
            context.release()
            if listenDescriptor >= 0 { close(listenDescriptor) }
            throw .cannotListen(configuration.host, listener?.port ?? configuration.port)
        }
        self.daemon = OpaquePointerBox(started)
        self.context = context
        self.connectionLimit = limit
        self.port = listener?.port ?? Int(efferent_mhd_port(started))
        watch.start()
    }

    /// `host` and `port` as a socket address, and whether it is IPv6.
    static func address(host: String, port: Int) throws(MicroHTTPDaemonError) -> (sockaddr_storage, Bool) {
        var storage = sockaddr_storage()
        if host.contains(":") {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(clamping: port).bigEndian)
            guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else { throw .badAddress(host) }
            withUnsafeBytes(of: address) { raw in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: raw) } }
            return (storage, true)
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(clamping: port).bigEndian)
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { throw .badAddress(host) }
        withUnsafeBytes(of: address) { raw in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: raw) } }
        return (storage, false)
    }

    /// Connections closed for a head or a body past its deadline, since the daemon started.
    public var deadlineClosures: (heads: Int, bodies: Int) {
        let counts = context.takeUnretainedValue().watch.counts
        return (counts.heads, counts.bodies)
    }

    /// Connections shed to make room for newer ones, past the connection limit or an address's.
    public var shedConnections: Int { context.takeUnretainedValue().watch.counts.shed }

    /// Requests being handled right now.
    public var inFlight: Int { context.takeUnretainedValue().inFlight.load(ordering: .relaxed) }

    /// Stops accepting new connections; requests in flight go on.
    public func quiesce() {
        daemon.withPointer { pointer in
            let socket = MHD_quiesce_daemon(pointer)
            if socket >= 0 { close(socket) }
        }
    }

    /// Stops accepting, lets requests in flight finish (up to `grace` seconds), then stops.
    public func shutDown(grace: Double = 30) {
        quiesce()
        let deadline = Date().addingTimeInterval(grace)
        while inFlight > 0 && Date() < deadline { usleep(10_000) }
        stop()
    }

    /// Stops the daemon at once, closing every connection. Answers being made are finished first
    /// (libmicrohttpd may not stop with a connection suspended, and each is resumed by the
    /// worker making its answer); nothing new is suspended meanwhile.
    public func stop() {
        let context = context.takeUnretainedValue()
        daemon.take { pointer in
            context.stopping.store(true, ordering: .sequentiallyConsistent)
            while context.suspended.load(ordering: .sequentiallyConsistent) > 0 { usleep(1000) }
            MHD_stop_daemon(pointer)
        }
        context.workers.stop()
        context.watch.stop()
    }

    deinit {
        stop()
        context.release()
    }
}

public enum MicroHTTPDaemonError: Error, Equatable, CustomStringConvertible {
    case badAddress(String)
    case cannotListen(String, Int)

    public var description: String {
        switch self {
        case let .badAddress(host): "\(host) is not a numeric IPv4 or IPv6 address to listen on (for example 127.0.0.1 or ::1)."
        case let .cannotListen(host, port): "Cannot listen on \(host.contains(":") ? "[\(host)]" : host):\(port): the port is in use, needs more privileges, or the TLS key and certificate do not load."
        }
    }
}

/// The daemon handle, taken exactly once by `stop()`. Kept as its address so the lock can hold it.
private final class OpaquePointerBox: Sendable {
    private let address: Mutex<Int>
    init(_ pointer: OpaquePointer) { address = Mutex(Int(bitPattern: UnsafeRawPointer(pointer))) }
    func withPointer(_ body: (OpaquePointer) -> Void) {
        address.withLock { if let p = OpaquePointer(bitPattern: $0) { body(p) } }
    }
    func take(_ body: (OpaquePointer) -> Void) {
        let taken = address.withLock { value -> Int in defer { value = 0 }; return value }
        if let pointer = OpaquePointer(bitPattern: taken) { body(pointer) }
    }
}

final class DaemonContext: Sendable {
    let handler: any MicroHTTPHandler
    let watch: ConnectionWatch
    let workers: WorkerPool
    let inFlight = Atomic<Int>(0)
    /// Connections suspended for a worker and not yet resumed.
    let suspended = Atomic<Int>(0)
    /// Set by `stop()`: nothing more is suspended.
    let stopping = Atomic<Bool>(false)
    init(handler: any MicroHTTPHandler, watch: ConnectionWatch, workers: WorkerPool) {
        self.handler = handler
        self.watch = watch
        self.workers = workers
    }
}

/// A socket bound and listening before any daemon serves it: a server that must know its port
/// before it can make what answers (the dashboard names its own address in its Host check) binds
/// first, then hands the listener to the daemon with the answers. Connections that arrive in
/// between wait in the socket's backlog. A listener no daemon took is closed when it goes.
public final class MicroHTTPListener: Sendable {
    public let host: String
    /// The port bound (the one asked for, or the one the system chose for port 0).
    public let port: Int
    /// The socket, until a daemon takes it.
    private let descriptor: Mutex<Int32?>

    public init(host: String, port: Int) throws(MicroHTTPDaemonError) {
        var (storage, isIPv6) = try MicroHTTPDaemon.address(host: host, port: port)
        let socket = Glibc.socket(isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard socket >= 0 else { throw .cannotListen(host, port) }
        var yes: Int32 = 1
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        if isIPv6 { setsockopt(socket, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &yes, socklen_t(MemoryLayout<Int32>.size)) }
        let length = socklen_t(isIPv6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(socket, $0, length) }
        }
        guard bound == 0, listen(socket, SOMAXCONN) == 0 else {
            close(socket)
            throw .cannotListen(host, port)
        }
        var named = sockaddr_storage()
        var namedLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &named) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &namedLength) }
        }
        let bigEndianPort: UInt16 = withUnsafeBytes(of: named) { raw in
            isIPv6 ? raw.load(as: sockaddr_in6.self).sin6_port : raw.load(as: sockaddr_in.self).sin_port
        }
        self.host = host
        self.port = Int(UInt16(bigEndian: bigEndianPort))
        descriptor = Mutex(socket)
    }

    /// The socket, handed over once (the daemon closes it when it stops).
    func take() -> Int32? { descriptor.withLock { taken in defer { taken = nil }; return taken } }

    deinit {
        if let socket = take() { close(socket) }
    }
}
