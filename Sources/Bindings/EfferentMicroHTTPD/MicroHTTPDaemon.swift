internal import CMicroHTTPD
import Foundation
import Synchronization

/// An HTTP/1.1 server on libmicrohttpd (https://www.gnu.org/software/libmicrohttpd/manual/).
///
/// One thread per connection: a handler blocked on the database holds only its own connection,
/// never the accept loop. Connection, idle-time and per-address limits keep slow or half-open
/// clients from starving others. Each request is an exchange its handler creates: the body is
/// handed to it as it arrives, and it decides how much to keep.
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

        public init(host: String = "127.0.0.1", port: Int = 8750, connectionLimit: Int = 512, idleTimeoutSeconds: Int = 30,
                    connectionsPerAddress: Int = 32, tlsKey: String? = nil, tlsCertificate: String? = nil,
                    headTimeoutSeconds: Double = 10, minimumBodyBytesPerSecond: Double = 16 * 1024, bodyGraceSeconds: Double = 10) {
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
        }
    }

    private let daemon: OpaquePointerBox
    private let context: Unmanaged<DaemonContext>
    /// The port actually bound (the one asked for, or the one the system chose for port 0).
    public let port: Int

    /// Each connection's memory pool: libmicrohttpd parses the request line, headers, query
    /// arguments and chunk headers into it, and a request that does not fit gets no answer (500
    /// parameters) or an HTML 500 (a 100 KB chunk extension). 32 KiB is its default; 256 KiB takes
    /// what any real client sends, and 512 connections at most hold 128 MiB. (Kept here rather
    /// than in the shim's header: SwiftPM does not rebuild Swift code when a C header changes.)
    static let connectionMemory = 256 * 1024

    public init(configuration: Configuration, handler: any MicroHTTPHandler) throws(MicroHTTPDaemonError) {
        let watch = ConnectionWatch(limits: .init(headSeconds: configuration.headTimeoutSeconds,
                                                  idleSeconds: Double(configuration.idleTimeoutSeconds),
                                                  bodyGraceSeconds: configuration.bodyGraceSeconds,
                                                  bodyBytesPerSecond: configuration.minimumBodyBytesPerSecond,
                                                  unknownBodySeconds: 60, connectionLimit: configuration.connectionLimit))
        let context = Unmanaged.passRetained(DaemonContext(handler: handler, watch: watch))
        var storage = sockaddr_storage()
        let isIPv6: Bool
        if configuration.host.contains(":") {
            isIPv6 = true
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(clamping: configuration.port).bigEndian)
            guard inet_pton(AF_INET6, configuration.host, &address.sin6_addr) == 1 else {
                context.release()
                throw .badAddress(configuration.host)
            }
            withUnsafeBytes(of: address) { raw in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: raw) } }
        } else {
            isIPv6 = false
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(clamping: configuration.port).bigEndian)
            guard inet_pton(AF_INET, configuration.host, &address.sin_addr) == 1 else {
                context.release()
                throw .badAddress(configuration.host)
            }
            withUnsafeBytes(of: address) { raw in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: raw) } }
        }
        var flags = UInt32(MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_THREAD_PER_CONNECTION.rawValue
                           | MHD_USE_POLL.rawValue | MHD_USE_ITC.rawValue)
        if isIPv6 { flags |= UInt32(MHD_USE_IPv6.rawValue) }
        let started: OpaquePointer? = withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                efferent_mhd_start(flags, address, accessHandler, context.toOpaque(), requestCompleted, uriLogged, connectionNotified,
                                   UInt32(configuration.connectionLimit), UInt32(configuration.idleTimeoutSeconds),
                                   UInt32(configuration.connectionsPerAddress), Self.connectionMemory,
                                   configuration.tlsKey, configuration.tlsCertificate)
            }
        }
        guard let started else {
            context.release()
            throw .cannotListen(configuration.host, configuration.port)
        }
        self.daemon = OpaquePointerBox(started)
        self.context = context
        self.port = Int(efferent_mhd_port(started))
        watch.start()
    }

    /// Connections closed for a head or a body past its deadline, since the daemon started.
    public var deadlineClosures: (heads: Int, bodies: Int) {
        let watch = context.takeUnretainedValue().watch
        return (watch.closedHeads, watch.closedBodies)
    }

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

    /// Stops the daemon at once, closing every connection.
    public func stop() {
        daemon.take { MHD_stop_daemon($0) }
        context.takeUnretainedValue().watch.stop()
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
    let inFlight = Atomic<Int>(0)
    init(handler: any MicroHTTPHandler, watch: ConnectionWatch) {
        self.handler = handler
        self.watch = watch
    }
}
