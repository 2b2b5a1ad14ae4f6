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
///
/// The limits on connections, in all and per address, are kept here rather than by
/// libmicrohttpd, which refuses the newcomer: a connection that opens past either sheds the one
/// (of all, or of its address) that has sent the least for the longest — no request line before
/// a request line, then the longest waiting — and never one whose head is complete. Only when
/// every other one has sent its head is the newcomer itself closed. So slow clients, even from
/// the one address of a proxy, cannot keep a client whose request arrives at once out.
final class ConnectionWatch: @unchecked Sendable {
    /// One open connection, as the watch sees it.
    final class Entry {
        enum Phase { case awaitingHead, receivingBody, answering }
        let descriptor: Int32
        /// The peer's numeric address.
        let address: String
        var phase = Phase.awaitingHead
        /// The current request's first line has arrived (its head may still be coming).
        var requestLine = false
        /// When the current phase began (monotonic nanoseconds).
        var since: UInt64
        /// When the body must have arrived, once the head is in.
        var bodyDeadline: UInt64 = 0
        var firstRequest = true
        var shutDown = false

        init(descriptor: Int32, address: String, now: UInt64) {
            self.descriptor = descriptor
            self.address = address
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
        /// 0 for none.
        var perAddress: Int
    }

    private let limits: Limits
    private let lock = NSLock()
    private var table = [ObjectIdentifier: Entry]()
    private var byAddress = [String: [ObjectIdentifier: Entry]]()
    /// Connections registered and not yet shut down.
    private var live = 0
    private var timer: DispatchSourceTimer?
    /// Connections the watch closed, for tests and the log (read through `counts`).
    private var closedHeads = 0
    private var closedBodies = 0
    /// Connections shed to make room for a newer one (of all, or of one address).
    private var shed = 0

    /// Connections closed for a late head, for a late body, and shed, read under the lock the
    /// sweep and the notifications write them under.
    var counts: (heads: Int, bodies: Int, shed: Int) { lock.withLock { (closedHeads, closedBodies, shed) } }

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
        lock.withLock {
            let id = ObjectIdentifier(entry)
            table[id] = entry
            byAddress[entry.address, default: [:]][id] = entry
            live += 1
            if limits.perAddress > 0, let group = byAddress[entry.address],
               group.values.lazy.filter({ !$0.shutDown }).count > limits.perAddress {
                shedOne(among: group.values, toAdmit: entry)
            }
            if live > limits.connectionLimit { shedOne(among: table.values, toAdmit: entry) }
        }
    }

    /// Shuts down the connection among `entries` that has sent the least for the longest (none
    /// with a complete head), or `newcomer` when there is no other.
    private func shedOne(among entries: some Sequence<Entry>, toAdmit newcomer: Entry) {
        var victim: Entry?
        for entry in entries where entry !== newcomer && !entry.shutDown && entry.phase == .awaitingHead {
            guard let chosen = victim else {
                victim = entry
                continue
            }
            if (entry.requestLine ? 1 : 0, entry.since) < (chosen.requestLine ? 1 : 0, chosen.since) { victim = entry }
        }
        shut(victim ?? newcomer)
        shed += 1
    }

    /// Under the lock.
    private func shut(_ entry: Entry) {
        entry.shutDown = true
        live -= 1
        _ = Glibc.shutdown(entry.descriptor, Int32(SHUT_RDWR))
    }

    /// Unregistered before libmicrohttpd closes the socket, under the lock the sweep holds while it
    /// shuts one down: a descriptor number is never shut down after it was given to another socket.
    func closed(_ entry: Entry) {
        lock.withLock {
            let id = ObjectIdentifier(entry)
            guard table.removeValue(forKey: id) != nil else { return }
            byAddress[entry.address]?[id] = nil
            if byAddress[entry.address]?.isEmpty == true { byAddress[entry.address] = nil }
            if !entry.shutDown { live -= 1 }
        }
    }

    func requestLineArrived(_ entry: Entry) {
        lock.withLock { entry.requestLine = true }
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
            entry.requestLine = false
        }
    }

    private func sweep() {
        let now = Self.now()
        lock.withLock {
            // Near the limit, a head gets a second: room for a client whose request comes at once.
            let crowded = live * 4 >= limits.connectionLimit * 3
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
                if overdue { shut(entry) }
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
        var buffer = [CChar](repeating: 0, count: 64)
        efferent_mhd_client_address(connection, &buffer, socklen_t(buffer.count))
        let address = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        let entry = ConnectionWatch.Entry(descriptor: efferent_mhd_connection_fd(connection), address: address, now: ConnectionWatch.now())
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
