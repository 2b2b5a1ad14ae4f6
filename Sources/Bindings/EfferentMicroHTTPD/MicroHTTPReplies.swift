internal import CMicroHTTPD
import Foundation
import EfferentSystem

func queue(_ reply: MicroHTTPReply, on connection: OpaquePointer, context: DaemonContext) -> MHD_Result {
    if let result = queueIfWhole(reply, on: connection, context: context) { return result }
    // A header libmicrohttpd refused (a line break or tab in it, or no memory): the answer would
    // go out without it, so a plain 500 goes instead; if even that fails, the connection closes.
    return queueIfWhole(unbuildable, on: connection, context: context) ?? .NO
}

/// The answer sent when a reply cannot be built as the exchange gave it.
let unbuildable = MicroHTTPReply(
    status: 500, headers: [("Content-Type", "application/json")],
    body: .bytes(Array(#"{"error":"the answer to this request could not be built; try again, and tell the operator if it keeps failing"}"#.utf8)))

/// Queues `reply` with every one of its headers, or nothing (nil) when libmicrohttpd refuses one
/// (`MHD_add_response_header` answers `MHD_NO`).
private func queueIfWhole(_ reply: MicroHTTPReply, on connection: OpaquePointer, context: DaemonContext) -> MHD_Result? {
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
        let stream = ReplyStream(next: next, connection: SuspendedConnection(connection), context: context)
        let box = Unmanaged.passRetained(stream).toOpaque()
        created = MHD_create_response_from_callback(UInt64.max, 32 * 1024, streamRead, box, streamFreed)
        if created == nil { Unmanaged<ReplyStream>.fromOpaque(box).release() } else { stream.produce() }
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

/// A streamed body between libmicrohttpd's reads. Its pieces are produced on a worker (the next
/// piece of an export may decrypt a day of the mirror or read the database), a few ahead of the
/// socket: libmicrohttpd's poll thread only copies what is ready. When nothing is, the connection
/// is suspended and the producing worker resumes it with the next piece; when the pieces ahead
/// pass `aheadBytes`, the worker stops until the socket has taken some, so a slow reader holds
/// that much memory and no thread.
final class ReplyStream: Sendable {
    private struct State {
        var pieces: [[UInt8]] = []
        var offset = 0
        var ahead = 0
        var ended = false
        var failed = false
        var producing = false
        /// The connection is suspended until the next piece (or the end) is ready.
        var waiting = false
        /// libmicrohttpd is done with the response: nothing more is produced or resumed.
        var released = false
    }

    /// How far production runs ahead of the socket.
    static let aheadBytes = 256 * 1024

    private let next: @Sendable () throws -> [UInt8]?
    private let connection: SuspendedConnection
    private let context: DaemonContext
    private let state = Mutex(State())

    init(next: @escaping @Sendable () throws -> [UInt8]?, connection: SuspendedConnection, context: DaemonContext) {
        self.next = next
        self.connection = connection
        self.context = context
    }

    /// Starts a worker producing, unless one is or the stream has ended.
    func produce() {
        let start = state.withLock { state -> Bool in
            guard !state.producing, !state.ended, !state.released, state.ahead < Self.aheadBytes else { return false }
            state.producing = true
            return true
        }
        if start { context.workers.submit { [self] in run() } }
    }

    private func run() {
        while true {
            var piece: [UInt8]?
            var failed = false
            do { piece = try next() } catch { failed = true }
            // Resumed under the lock, so a suspension the poll thread makes under it is always
            // the one resumed (libmicrohttpd forbids resuming a connection not suspended).
            let more = state.withLock { state -> Bool in
                if let piece, !piece.isEmpty {
                    state.pieces.append(piece)
                    state.ahead += piece.count
                } else if piece == nil {
                    state.ended = true
                    state.failed = failed
                }
                if state.waiting, !state.released, state.ended || state.ahead > 0 {
                    state.waiting = false
                    context.resume(connection)
                }
                guard !state.ended, !state.released, state.ahead < Self.aheadBytes else {
                    state.producing = false
                    return false
                }
                return true
            }
            if !more { return }
        }
    }

    /// Copies up to `count` ready bytes into `buffer`: how many, 0 when none are ready (the
    /// connection is then suspended until they are), -1 at the end, -2 when the producer failed.
    func read(into buffer: UnsafeMutableRawPointer, count: Int) -> Int {
        let (copied, refill) = state.withLock { state -> (Int, Bool) in
            while let first = state.pieces.first, state.offset >= first.count {
                state.pieces.removeFirst()
                state.offset = 0
            }
            guard let first = state.pieces.first else {
                if state.ended { return (state.failed ? -2 : -1, false) }
                if context.suspend(connection.connection) == nil { return (-2, false) }
                state.waiting = true
                return (0, !state.producing)
            }
            let n = min(count, first.count - state.offset)
            first.withUnsafeBytes { raw in buffer.copyMemory(from: raw.baseAddress! + state.offset, byteCount: n) }
            state.offset += n
            state.ahead -= n
            return (n, !state.producing && state.ahead < Self.aheadBytes / 2)
        }
        if refill { produce() }
        return copied
    }

    /// libmicrohttpd has destroyed the response (sent, or the connection closed).
    func release() {
        state.withLock { state in
            state.released = true
            state.pieces = []
        }
    }
}

/// libmicrohttpd's read callback for a streamed body (`MHD_ContentReaderCallback`): -1 at the
/// end, -2 when the producer failed (`MHD_CONTENT_READER_END_OF_STREAM`, `…_END_WITH_ERROR`).
private let streamRead: MHD_ContentReaderCallback = { cls, _, buffer, max in
    guard let cls, let buffer, max > 0 else { return -2 }
    let stream = Unmanaged<ReplyStream>.fromOpaque(cls).takeUnretainedValue()
    return stream.read(into: UnsafeMutableRawPointer(buffer), count: max)
}

private let streamFreed: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    let stream = Unmanaged<ReplyStream>.fromOpaque(cls)
    stream.takeUnretainedValue().release()
    stream.release()
}
