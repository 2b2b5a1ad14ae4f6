import Foundation
import Synchronization

/// Counts requests per client address and class in one-minute windows, in this process's memory
/// (one SQLite service is one process).
final class RateLimiter: Sendable {
    enum Kind: String, Sendable {
        case claims, writes, edits

        var sentence: String {
            switch self {
            case .claims: "too many claims and registrations from here just now"
            case .writes: "too many writes from here just now"
            case .edits: "too many edits from here just now"
            }
        }
    }

    private struct Window {
        var start: Int64
        var count: Int
    }

    private let limits: RateLimits
    private let windows = Mutex<[String: Window]>([:])
    private let lastSweep = Atomic<Int64>(0)

    init(limits: RateLimits) { self.limits = limits }

    /// Counts one request; throws a 429 with `Retry-After` when the address is over its limit.
    func admit(_ kind: Kind, from address: String, now: Date) throws(ServiceError) {
        let limit = switch kind {
        case .claims: limits.claims
        case .writes: limits.writes
        case .edits: limits.edits
        }
        let second = Int64(now.timeIntervalSince1970)
        let minute = second - second % 60
        let key = kind.rawValue + " " + address
        let allowed = windows.withLock { windows -> Bool in
            var window = windows[key] ?? Window(start: minute, count: 0)
            if window.start != minute { window = Window(start: minute, count: 0) }
            window.count += 1
            windows[key] = window
            return window.count <= limit
        }
        sweep(olderThan: minute)
        guard allowed else { throw ServiceError(429, kind.sentence, retryAfter: Int(minute + 60 - second)) }
    }

    /// Drops windows from earlier minutes, at most once a minute, so memory stays bounded.
    private func sweep(olderThan minute: Int64) {
        let previous = lastSweep.load(ordering: .relaxed)
        guard previous < minute, lastSweep.compareExchange(expected: previous, desired: minute, ordering: .relaxed).exchanged else { return }
        windows.withLock { windows in windows = windows.filter { $0.value.start >= minute } }
    }
}
