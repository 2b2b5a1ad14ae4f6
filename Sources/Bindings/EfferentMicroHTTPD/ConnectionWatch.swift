internal import CMicroHTTPD
import Foundation

/// Deadlines libmicrohttpd does not keep: for a request's whole head, and for its body however
/// its bytes trickle. libmicrohttpd's idle timeout restarts with every byte, so a client sending
/// one header byte a second (slowloris) holds its connection — and with enough of them, every
/// connection the daemon allows — for good.
///
/// Every connection is registered when it opens and watched from a thread of its own: one still
/// waiting for its request head after `headSeconds` (for a keep-alive connection, after the idle
/// timeout plus that), or still sending a body past its own deadline, has its socket shut down,
/// which makes libmicrohttpd close it. When the daemon runs close to its connection limit, heads
/// get one second: a client whose request arrives at once always finds room.
final class ConnectionWatch: @unchecked Sendable {
    /// One open connection, as the watch sees it.
    final class Entry {
        enum Phase { case awaitingHead, receivingBody, answering }
        let descriptor: Int32
        var phase = Phase.awaitingHead
        /// When the current phase began (monotonic nanoseconds).
        var since: UInt64
        /// When the body must have arrived, once the head is in.
        var bodyDeadline: UInt64 = 0
        var firstRequest = true
        var shutDown = false

        init(descriptor: Int32, now: UInt64) {
            self.descriptor = descriptor
            since = now
        }
    }

    struct Limits {
        var headSeconds: Double
        var idleSeconds: Double
        /// A body may take this long plus its declared length at `bodyBytesPerSecond`.
        var bodyGraceSeconds: Double
        var bodyBytesPerSecond: Double
        /// A body of unknown length (chunked) gets this long.
        var unknownBodySeconds: Double
        var connectionLimit: Int
    }

    private let limits: Limits
    private let lock = NSLock()
    private var table = [ObjectIdentifier: Entry]()
    private var timer: DispatchSourceTimer?
    /// Connections the watch closed, for tests and the log.
    private(set) var closedHeads = 0
    private(set) var closedBodies = 0

    init(limits: Limits) {
        self.limits = limits
    }

    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    func start() {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "efferent.connection-watch"))
        timer.schedule(deadline: .now() + 0.2, repeating: 0.2)
        timer.setEventHandler { [weak self] in self?.sweep() }
        timer.resume()
        self.timer = timer
    }

    func stop() {
        timer?.cancel()
        timer = nil
    }

    func opened(_ entry: Entry) {
        lock.withLock { table[ObjectIdentifier(entry)] = entry }
    }

    /// Unregistered before libmicrohttpd closes the socket, under the lock the sweep holds while it
    /// shuts one down: a descriptor number is never shut down after it was given to another socket.
    func closed(_ entry: Entry) {
        lock.withLock { table[ObjectIdentifier(entry)] = nil }
    }

    func headArrived(_ entry: Entry, declaredLength: Int?) {
        let now = Self.now()
        let seconds = declaredLength.map { limits.bodyGraceSeconds + Double($0) / limits.bodyBytesPerSecond } ?? limits.unknownBodySeconds
        lock.withLock {
            entry.phase = .receivingBody
            entry.since = now
            entry.bodyDeadline = now + UInt64(seconds * 1e9)
        }
    }

    func bodyArrived(_ entry: Entry) {
        lock.withLock { entry.phase = .answering }
    }

    func requestCompleted(_ entry: Entry) {
        let now = Self.now()
        lock.withLock {
            entry.phase = .awaitingHead
            entry.since = now
            entry.firstRequest = false
        }
    }

    private func sweep() {
        let now = Self.now()
        lock.withLock {
            // Near the limit, a head gets a second: room for a client whose request comes at once.
            let crowded = table.count * 4 >= limits.connectionLimit * 3
            for entry in table.values where !entry.shutDown {
                let overdue: Bool
                switch entry.phase {
                case .awaitingHead:
                    var allowed = entry.firstRequest ? limits.headSeconds : limits.idleSeconds + limits.headSeconds
                    if crowded { allowed = min(allowed, 1) }
                    overdue = now > entry.since + UInt64(allowed * 1e9)
                    if overdue { closedHeads += 1 }
                case .receivingBody:
                    overdue = now > entry.bodyDeadline
                    if overdue { closedBodies += 1 }
                case .answering:
                    overdue = false
                }
                if overdue {
                    entry.shutDown = true
                    _ = Glibc.shutdown(entry.descriptor, Int32(SHUT_RDWR))
                }
            }
        }
    }
}

/// libmicrohttpd's connection notifications: a connection opened (registered with the watch,
/// its entry kept as the socket context) or closed (unregistered and released).
let connectionNotified: efferent_connection_callback = { cls, connection, socketContext, code in
    guard let cls, let connection, let socketContext else { return }
    let context = Unmanaged<DaemonContext>.fromOpaque(cls).takeUnretainedValue()
    switch code.rawValue {
    case 0: // MHD_CONNECTION_NOTIFY_STARTED
        let entry = ConnectionWatch.Entry(descriptor: efferent_mhd_connection_fd(connection), now: ConnectionWatch.now())
        context.watch.opened(entry)
        socketContext.pointee = Unmanaged.passRetained(entry).toOpaque()
    case 1: // MHD_CONNECTION_NOTIFY_CLOSED
        guard let raw = socketContext.pointee else { return }
        let entry = Unmanaged<ConnectionWatch.Entry>.fromOpaque(raw)
        context.watch.closed(entry.takeUnretainedValue())
        entry.release()
        socketContext.pointee = nil
    default:
        return
    }
}

/// The watch's entry for the connection a callback is about, if it has one.
func watchedEntry(_ connection: OpaquePointer) -> ConnectionWatch.Entry? {
    efferent_mhd_socket_context(connection).map { Unmanaged<ConnectionWatch.Entry>.fromOpaque($0).takeUnretainedValue() }
}
