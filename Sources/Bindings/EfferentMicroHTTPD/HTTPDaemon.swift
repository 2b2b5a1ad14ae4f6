internal import CMicroHTTPD
import Foundation
import Synchronization

/// What the service does with requests; the daemon calls it from its connection threads.
public protocol HTTPResponder: Sendable {
    /// Called once the head has arrived, before any body is read: refuse early, or accept a body
    /// of at most `maxBodyBytes`.
    func admit(_ head: HTTPRequestHead) -> HTTPAdmission
    /// The answer when a body passes the limit `admit` set (declared or as it arrives).
    func bodyTooLarge(_ head: HTTPRequestHead, limit: Int) -> HTTPResponse
    /// The answer to a whole request.
    func respond(to request: HTTPRequest) -> HTTPResponse
}

public enum HTTPAdmission: Sendable {
    case accept(maxBodyBytes: Int)
    case refuse(HTTPResponse)
}

/// An HTTP/1.1 server on libmicrohttpd (https://www.gnu.org/software/libmicrohttpd/manual/).
///
/// One thread per connection: a handler blocked on the database holds only its own connection,
/// never the accept loop. Connection, idle-time and per-address limits keep slow or half-open
/// clients from starving others. Bodies are read into memory only up to the limit `admit` gives.
public final class HTTPDaemon: Sendable {
    public struct Configuration: Sendable {
        public var host: String
        public var port: Int
        public var connectionLimit: Int
        public var idleTimeoutSeconds: Int
        public var connectionsPerAddress: Int
        /// PEM texts; both or neither.
        public var tlsKey: String?
        public var tlsCertificate: String?

        public init(host: String = "127.0.0.1", port: Int = 8750, connectionLimit: Int = 512, idleTimeoutSeconds: Int = 30,
                    connectionsPerAddress: Int = 64, tlsKey: String? = nil, tlsCertificate: String? = nil) {
            self.host = host
            self.port = port
            self.connectionLimit = connectionLimit
            self.idleTimeoutSeconds = idleTimeoutSeconds
            self.connectionsPerAddress = connectionsPerAddress
            self.tlsKey = tlsKey
            self.tlsCertificate = tlsCertificate
        }
    }

    private let daemon: OpaquePointerBox
    private let context: Unmanaged<DaemonContext>
    /// The port actually bound (the one asked for, or the one the system chose for port 0).
    public let port: Int

    public init(configuration: Configuration, responder: any HTTPResponder) throws(HTTPDaemonError) {
        let context = Unmanaged.passRetained(DaemonContext(responder: responder))
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
                efferent_mhd_start(flags, address, accessHandler, context.toOpaque(), requestCompleted, uriLogged,
                                   UInt32(configuration.connectionLimit), UInt32(configuration.idleTimeoutSeconds),
                                   UInt32(configuration.connectionsPerAddress),
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
    }

    deinit {
        stop()
        context.release()
    }
}

public enum HTTPDaemonError: Error, Equatable, CustomStringConvertible {
    case badAddress(String)
    case cannotListen(String, Int)

    public var description: String {
        switch self {
        case let .badAddress(host): "\(host) is not a numeric IPv4 or IPv6 address to listen on (for example 127.0.0.1 or ::1)."
        case let .cannotListen(host, port): "Cannot listen on \(host.contains(":") ? "[\(host)]" : host):\(port): the port is in use or needs more privileges."
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

private final class DaemonContext: Sendable {
    let responder: any HTTPResponder
    let inFlight = Atomic<Int>(0)
    init(responder: any HTTPResponder) { self.responder = responder }
}

/// One request's state between libmicrohttpd's calls, kept in its `con_cls`.
private final class RequestState {
    let target: String
    var head: HTTPRequestHead?
    var body: [UInt8] = []
    var limit = 0
    var answered = false
    var overLimit = false
    init(target: String) { self.target = target }
}

private let uriLogged: efferent_uri_log_callback = { _, uri, _ in
    let target = uri.map { String(cString: $0) } ?? "/"
    return Unmanaged.passRetained(RequestState(target: target)).toOpaque()
}

private let requestCompleted: MHD_RequestCompletedCallback = { _, _, slot, _ in
    guard let slot, let raw = slot.pointee else { return }
    Unmanaged<RequestState>.fromOpaque(raw).release()
    slot.pointee = nil
}

private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, _, method, _, uploadData, uploadSize, slot in
    guard let cls, let connection, let slot, let raw = slot.pointee, let uploadSize else { return .NO }
    let context = Unmanaged<DaemonContext>.fromOpaque(cls).takeUnretainedValue()
    let state = Unmanaged<RequestState>.fromOpaque(raw).takeUnretainedValue()

    guard let head = state.head else {
        // First call: the head only. Answering here would make libmicrohttpd drop keep-alive
        // (measured-facts.md), so only refusals are queued now; the answer waits for the last call.
        let head = HTTPRequestHead(method: method.map { String(cString: $0) } ?? "GET", target: state.target,
                                   headers: requestHeaders(connection), clientAddress: clientAddress(connection))
        state.head = head
        switch context.responder.admit(head) {
        case let .refuse(response):
            state.answered = true
            return queue(response, on: connection)
        case let .accept(limit):
            state.limit = limit
            if let declared = head.headers["content-length"].flatMap({ Int($0) }), declared > limit {
                state.answered = true
                return queue(context.responder.bodyTooLarge(head, limit: limit), on: connection)
            }
            return .YES
        }
    }

    let count = uploadSize.pointee
    if count > 0 {
        defer { uploadSize.pointee = 0 }
        // Past the limit the rest is read and dropped, never kept: libmicrohttpd cannot answer
        // in the middle of an upload, so the refusal goes out when the body ends.
        if state.answered || state.overLimit { return .YES }
        if state.body.count + count > state.limit {
            state.overLimit = true
            state.body = []
            return .YES
        }
        if let uploadData {
            uploadData.withMemoryRebound(to: UInt8.self, capacity: count) {
                state.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: count))
            }
        }
        return .YES
    }

    if state.answered { return .YES }
    state.answered = true
    if state.overLimit { return queue(context.responder.bodyTooLarge(head, limit: state.limit), on: connection) }
    context.inFlight.add(1, ordering: .relaxed)
    defer { context.inFlight.subtract(1, ordering: .relaxed) }
    let request = HTTPRequest(method: head.method, target: head.target, lowercasedHeaders: head.headers, body: state.body,
                              clientAddress: head.clientAddress)
    state.body = []
    return queue(context.responder.respond(to: request), on: connection)
}

private final class HeaderCollector {
    var headers: [String: String] = [:]
}

private func requestHeaders(_ connection: OpaquePointer) -> [String: String] {
    let collector = HeaderCollector()
    let box = Unmanaged.passUnretained(collector).toOpaque()
    MHD_get_connection_values(connection, .HEADER_KIND, { cls, _, key, value in
        guard let cls, let key else { return .YES }
        let collector = Unmanaged<HeaderCollector>.fromOpaque(cls).takeUnretainedValue()
        let name = String(cString: key).lowercased()
        let text = value.map { String(cString: $0) } ?? ""
        // Repeated headers are joined as RFC 9110 §5.3 allows.
        collector.headers[name] = collector.headers[name].map { "\($0), \(text)" } ?? text
        return .YES
    }, box)
    return collector.headers
}

private func clientAddress(_ connection: OpaquePointer) -> String {
    var buffer = [CChar](repeating: 0, count: 64)
    efferent_mhd_client_address(connection, &buffer, socklen_t(buffer.count))
    return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
}

private func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
    if let result = queueIfWhole(response, on: connection) { return result }
    // A header libmicrohttpd refused (a line break or tab in it, or no memory): the answer would
    // go out without it, so a plain 500 goes instead; if even that fails, the connection closes.
    return queueIfWhole(unbuildable, on: connection) ?? .NO
}

/// The answer sent when a response cannot be built as the responder gave it.
let unbuildable = HTTPResponse(status: 500, headers: [("Content-Type", "application/json")],
                               body: Array(#"{"error":"the answer to this request could not be built; try again, and tell the operator if it keeps failing"}"#.utf8))

/// Queues `response` with every one of its headers, or nothing (nil) when libmicrohttpd refuses one
/// (`MHD_add_response_header` answers `MHD_NO`).
private func queueIfWhole(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result? {
    let created: OpaquePointer? = response.body.withUnsafeBytes { raw in
        MHD_create_response_from_buffer(raw.count, UnsafeMutableRawPointer(mutating: raw.baseAddress), .RESPMEM_MUST_COPY)
    }
    guard let created else { return .NO }
    defer { MHD_destroy_response(created) }
    for (name, value) in response.headers {
        guard MHD_add_response_header(created, name, value) == .YES else { return nil }
    }
    return MHD_queue_response(connection, UInt32(response.status), created)
}
