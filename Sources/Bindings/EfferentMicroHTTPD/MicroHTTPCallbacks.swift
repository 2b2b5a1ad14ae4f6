internal import CMicroHTTPD
import Foundation

/// One request's state between libmicrohttpd's calls, kept in its `con_cls`.
final class RequestState {
    let target: String
    var exchange: (any MicroHTTPExchange)?
    /// An answer is queued (or about to be): any further body is dropped.
    var answered = false
    /// The exchange wants no more of the body; it is read and dropped until it ends.
    var dropping = false
    /// A refusal made from the head, held until a small body has been read and dropped.
    var heldRefusal: MicroHTTPReply?
    /// Where each piece of the body is copied to be handed over; reused, so a long body costs
    /// one allocation rather than one per piece.
    var piece: [UInt8] = []
    init(target: String) { self.target = target }
}

/// libmicrohttpd hands the raw request target here before anything else, undecoded: what a
/// signed read signs (protocol §7), so it is kept for the access handler.
let uriLogged: efferent_uri_log_callback = { _, uri, _ in
    let target = uri.map { String(cString: $0) } ?? "/"
    return Unmanaged.passRetained(RequestState(target: target)).toOpaque()
}

let requestCompleted: MHD_RequestCompletedCallback = { cls, connection, slot, _ in
    if let cls, let connection, let entry = watchedEntry(connection) {
        Unmanaged<DaemonContext>.fromOpaque(cls).takeUnretainedValue().watch.requestCompleted(entry)
    }
    guard let slot, let raw = slot.pointee else { return }
    Unmanaged<RequestState>.fromOpaque(raw).release()
    slot.pointee = nil
}

/// Called first with the head, then with each piece of the body, then once with none at the end
/// (https://www.gnu.org/software/libmicrohttpd/manual/html_node/microhttpd_002dcb.html).
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
        return queue(early, on: connection)
    }

    let count = uploadSize.pointee
    if count > 0 {
        defer { uploadSize.pointee = 0 }
        if state.answered || state.dropping { return .YES }
        guard let uploadData else { return .YES }
        state.piece.removeAll(keepingCapacity: true)
        state.piece.append(contentsOf: UnsafeRawBufferPointer(start: uploadData, count: count))
        if !exchange.receive(state.piece) { state.dropping = true }
        return .YES
    }

    if state.answered { return .YES }
    state.answered = true
    if let entry = watchedEntry(connection) { context.watch.bodyArrived(entry) }
    if let held = state.heldRefusal { return queue(held, on: connection) }
    context.inFlight.add(1, ordering: .relaxed)
    defer { context.inFlight.subtract(1, ordering: .relaxed) }
    return queue(exchange.finish(), on: connection)
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

private func queue(_ reply: MicroHTTPReply, on connection: OpaquePointer) -> MHD_Result {
    if let result = queueIfWhole(reply, on: connection) { return result }
    // A header libmicrohttpd refused (a line break or tab in it, or no memory): the answer would
    // go out without it, so a plain 500 goes instead; if even that fails, the connection closes.
    return queueIfWhole(unbuildable, on: connection) ?? .NO
}

/// The answer sent when a reply cannot be built as the exchange gave it.
let unbuildable = MicroHTTPReply(
    status: 500, headers: [("Content-Type", "application/json")],
    body: .bytes(Array(#"{"error":"the answer to this request could not be built; try again, and tell the operator if it keeps failing"}"#.utf8)))

/// Queues `reply` with every one of its headers, or nothing (nil) when libmicrohttpd refuses one
/// (`MHD_add_response_header` answers `MHD_NO`).
private func queueIfWhole(_ reply: MicroHTTPReply, on connection: OpaquePointer) -> MHD_Result? {
    let created: OpaquePointer?
    switch reply.body {
    case let .bytes(body) where body.isEmpty:
        created = MHD_create_response_from_buffer(0, nil, .RESPMEM_PERSISTENT)
    case let .bytes(body):
        // Sent from one copy the box owns (a range answer is ~130 KB: 15 µs to allocate, copy and free), freed by
        // libmicrohttpd's free callback when the response is done with.
        let held = HeldBody(body)
        let box = Unmanaged.passRetained(held).toOpaque()
        created = MHD_create_response_from_buffer_with_free_callback_cls(held.count, held.address, heldBodyFreed, box)
        if created == nil { Unmanaged<HeldBody>.fromOpaque(box).release() }
    case let .stream(next):
        // The stream's state travels as the callback's context, released by libmicrohttpd's free
        // callback when the response is done with (sent, or the connection gone).
        let stream = Unmanaged.passRetained(ReplyStream(next: next)).toOpaque()
        created = MHD_create_response_from_callback(UInt64.max, 32 * 1024, streamRead, stream, streamFreed)
        if created == nil { Unmanaged<ReplyStream>.fromOpaque(stream).release() }
    }
    guard let created else { return .NO }
    defer { MHD_destroy_response(created) }
    for (name, value) in reply.headers {
        guard MHD_add_response_header(created, name, value) == .YES else { return nil }
    }
    return MHD_queue_response(connection, UInt32(reply.status), created)
}

/// A reply's bytes while libmicrohttpd sends them, in memory this box owns until libmicrohttpd
/// calls `heldBodyFreed`. An array's storage address is valid only inside `withUnsafeBytes`
/// (keeping it past the closure was undefined behaviour, issue 31), so the bytes are copied once
/// into an allocation whose address is ours to hand out.
private final class HeldBody {
    let address: UnsafeMutableRawPointer
    let count: Int

    init(_ bytes: [UInt8]) {
        count = bytes.count
        address = UnsafeMutableRawPointer.allocate(byteCount: max(1, bytes.count), alignment: 1)
        bytes.withUnsafeBytes { source in
            if let base = source.baseAddress { address.copyMemory(from: base, byteCount: source.count) }
        }
    }

    deinit { address.deallocate() }
}

private let heldBodyFreed: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    Unmanaged<HeldBody>.fromOpaque(cls).release()
}

/// A streamed body between libmicrohttpd's reads: the piece being sent and how far it has gone.
private final class ReplyStream {
    let next: @Sendable () throws -> [UInt8]?
    var piece: [UInt8] = []
    var offset = 0
    init(next: @escaping @Sendable () throws -> [UInt8]?) { self.next = next }
}

/// Copies up to `max` bytes of the stream into libmicrohttpd's buffer; -1 at the end, -2 when the
/// producer failed (`MHD_CONTENT_READER_END_OF_STREAM`, `…_END_WITH_ERROR`).
private let streamRead: MHD_ContentReaderCallback = { cls, _, buffer, max in
    guard let cls, let buffer, max > 0 else { return -2 }
    let stream = Unmanaged<ReplyStream>.fromOpaque(cls).takeUnretainedValue()
    while stream.offset >= stream.piece.count {
        do {
            guard let piece = try stream.next() else { return -1 }
            stream.piece = piece
            stream.offset = 0
        } catch {
            return -2
        }
    }
    let count = min(max, stream.piece.count - stream.offset)
    stream.piece.withUnsafeBytes { raw in
        UnsafeMutableRawPointer(buffer).copyMemory(from: raw.baseAddress! + stream.offset, byteCount: count)
    }
    stream.offset += count
    return count
}

private let streamFreed: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    Unmanaged<ReplyStream>.fromOpaque(cls).release()
}
