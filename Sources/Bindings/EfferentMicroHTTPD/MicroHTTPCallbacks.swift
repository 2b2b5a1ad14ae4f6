internal import CMicroHTTPD
import Foundation
import EfferentSystem

/// One request's state between libmicrohttpd's calls, kept in its `con_cls`. Touched on the
/// connection's poll thread only, except `handoff`, which a worker fills.
final class RequestState {
    let target: String
    var exchange: (any MicroHTTPExchange)?
    /// An answer is queued (or about to be): any further body is dropped.
    var answered = false
    /// The exchange wants no more of the body; it is read and dropped until it ends.
    var dropping = false
    /// A refusal made from the head, held until a small body has been read and dropped.
    var heldRefusal: MicroHTTPReply?
    /// The answer is being made on a worker (counted in `inFlight` until it is queued).
    var finishing = false
    /// Bytes at the start of the next body call that a worker has already taken.
    var taken = 0
    /// What a worker hands back while the connection is suspended.
    let handoff = Handoff()
    init(target: String) { self.target = target }
}

/// What a worker hands the poll thread: whether the exchange still wants the body, and the
/// answer once made.
final class Handoff: Sendable {
    let refused = Atomic<Bool>(false)
    let reply = Mutex<MicroHTTPReply?>(nil)
}

/// The exchange, carried to a worker and back. It is used by one thread at a time: the poll
/// thread suspends the connection before the worker starts and touches the exchange again only
/// after the worker has resumed it (libmicrohttpd's resume passes through its own mutex).
struct ExchangeTransfer: @unchecked Sendable {
    let exchange: any MicroHTTPExchange
}

/// A connection a worker will resume, kept as its address (a pointer is not Sendable).
struct SuspendedConnection: Sendable {
    let address: Int
    init(_ connection: OpaquePointer) { address = Int(bitPattern: UnsafeRawPointer(connection)) }
    var connection: OpaquePointer { OpaquePointer(bitPattern: address)! }
}

extension DaemonContext {
    /// Suspends `connection` for a worker to resume; false when the daemon is stopping, since it
    /// may then suspend nothing more (the caller closes the connection instead).
    func suspend(_ connection: OpaquePointer) -> SuspendedConnection? {
        suspended.add(1, ordering: .sequentiallyConsistent)
        if stopping.load(ordering: .sequentiallyConsistent) {
            suspended.subtract(1, ordering: .sequentiallyConsistent)
            return nil
        }
        MHD_suspend_connection(connection)
        return SuspendedConnection(connection)
    }

    func resume(_ connection: SuspendedConnection) {
        MHD_resume_connection(connection.connection)
        suspended.subtract(1, ordering: .sequentiallyConsistent)
    }
}

/// libmicrohttpd hands the raw request target here before anything else, undecoded: what a
/// signed read signs (protocol §7), so it is kept for the access handler. The request line has
/// arrived, which the connection watch counts in a head's favour when it must shed one.
let uriLogged: efferent_uri_log_callback = { cls, uri, connection in
    let target = uri.map { String(cString: $0) } ?? "/"
    if let cls, let connection, let entry = watchedEntry(connection) {
        Unmanaged<DaemonContext>.fromOpaque(cls).takeUnretainedValue().watch.requestLineArrived(entry)
    }
    return Unmanaged.passRetained(RequestState(target: target)).toOpaque()
}

let requestCompleted: MHD_RequestCompletedCallback = { cls, connection, slot, _ in
    if let cls, let connection, let entry = watchedEntry(connection) {
        Unmanaged<DaemonContext>.fromOpaque(cls).takeUnretainedValue().watch.requestCompleted(entry)
    }
    guard let slot, let raw = slot.pointee else { return }
    let state = Unmanaged<RequestState>.fromOpaque(raw)
    if let cls, state.takeUnretainedValue().finishing {
        Unmanaged<DaemonContext>.fromOpaque(cls).takeUnretainedValue().inFlight.subtract(1, ordering: .relaxed)
    }
    state.release()
    slot.pointee = nil
}

/// Called first with the head, then with each piece of the body, then once with none at the end
/// (https://www.gnu.org/software/libmicrohttpd/manual/html_node/microhttpd_002dcb.html), always
/// on the connection's poll thread. The head is judged here (a route match, a token looked up by
/// its hash: no waiting); a body piece a route's sink parses or inflates, and the answer, are
/// made on a worker while the connection is suspended, so a poll thread never waits on a
/// handler and the other connections it serves go on.
let accessHandler: MHD_AccessHandlerCallback = { cls, connection, _, method, version, uploadData, uploadSize, slot in
    guard let cls, let connection, let slot, let raw = slot.pointee, let uploadSize else { return .NO }
    let context = Unmanaged<DaemonContext>.fromOpaque(cls).takeUnretainedValue()
    let state = Unmanaged<RequestState>.fromOpaque(raw).takeUnretainedValue()

    guard let exchange = state.exchange else {
        // First call: the head only. Answering here would make libmicrohttpd drop keep-alive
        // (measured-facts.md), so only refusals are queued now; the answer waits for the last call.
        let head = MicroHTTPHead(method: method.map { String(cString: $0) } ?? "GET", target: state.target,
                                 version: version.map { String(cString: $0) } ?? "HTTP/1.1",
                                 headers: requestHeaders(connection), clientAddress: clientAddress(connection))
        if let entry = watchedEntry(connection) {
            context.watch.headArrived(entry, declaredLength: head.headers["content-length"].flatMap { Int($0) })
        }
        let exchange = context.handler.begin(head)
        state.exchange = exchange
        guard let early = exchange.earlyReply() else { return .YES }
        // A refusal while the client is still sending its body closes the connection under it,
        // and many clients then report a broken pipe rather than the refusal. A body of modest
        // declared size is read and dropped first, so the sentence arrives (and keep-alive
        // holds); anything larger is refused at once, before a byte of it is read.
        if let declared = head.headers["content-length"].flatMap({ Int($0) }), declared > 0, declared <= heldRefusalBodyLimit {
            state.heldRefusal = early
            state.dropping = true
            return .YES
        }
        state.answered = true
        return queue(early, on: connection, context: context)
    }

    let count = uploadSize.pointee
    if count > 0 {
        // A piece a worker took is left in libmicrohttpd's buffer (reported unread) while the
        // connection is suspended, so libmicrohttpd calls with nothing more until the worker is
        // done; after the resume it comes again at the start of this call, and is consumed here.
        let skip = min(state.taken, count)
        state.taken = 0
        if skip == count || state.answered || state.dropping || state.handoff.refused.load(ordering: .relaxed) {
            uploadSize.pointee = 0
            return .YES
        }
        guard let uploadData else {
            uploadSize.pointee = 0
            return .YES
        }
        let piece = [UInt8](UnsafeRawBufferPointer(start: uploadData + skip, count: count - skip))
        guard exchange.receiveMayBlock else {
            uploadSize.pointee = 0
            if !exchange.receive(piece) { state.dropping = true }
            return .YES
        }
        guard let suspended = context.suspend(connection) else { return .NO }
        state.taken = count
        let handoff = state.handoff
        let transfer = ExchangeTransfer(exchange: exchange)
        context.workers.submit {
            if !transfer.exchange.receive(piece) { handoff.refused.store(true, ordering: .relaxed) }
            context.resume(suspended)
        }
        return .YES
    }

    if state.answered { return .YES }
    if let held = state.heldRefusal {
        state.answered = true
        if let entry = watchedEntry(connection) { context.watch.bodyArrived(entry) }
        return queue(held, on: connection, context: context)
    }
    if state.finishing {
        // Called again after the worker resumed the connection: the answer is ready.
        guard let reply = state.handoff.reply.withLock({ $0.take() }) else { return .YES }
        state.answered = true
        state.finishing = false
        context.inFlight.subtract(1, ordering: .relaxed)
        return queue(reply, on: connection, context: context)
    }
    if let entry = watchedEntry(connection) { context.watch.bodyArrived(entry) }
    guard let suspended = context.suspend(connection) else { return .NO }
    state.finishing = true
    context.inFlight.add(1, ordering: .relaxed)
    let handoff = state.handoff
    let transfer = ExchangeTransfer(exchange: exchange)
    context.workers.submit {
        let reply = transfer.exchange.finish()
        handoff.reply.withLock { $0 = reply }
        context.resume(suspended)
    }
    return .YES
}

/// The largest declared body read and dropped before a refusal made from the head is sent.
let heldRefusalBodyLimit = 1 << 20

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

