import Foundation
import EfferentSystem

/// Counts requests per client address and class in one-minute windows. Where the counts live is
/// the store's choice: in this process's memory for SQLite (one service is one process), in the
/// database for PostgreSQL (every process behind the load balancer shares them).
final class RateLimiter: Sendable {
    enum Kind: String, Sendable {
        case claims, writes, edits, links, kits

        var sentence: String {
            switch self {
            case .claims: "too many claims and registrations from here just now"
            case .writes: "too many writes from here just now"
            case .edits: "too many edits from here just now"
            case .links: "too many requests for shared links from here just now; wait a minute and try again"
            case .kits: "too many recovery-kit requests from here just now"
            }
        }
    }

    private let limits: RateLimits
    private let counter: any RequestCounter

    init(limits: RateLimits, counter: any RequestCounter) {
        self.limits = limits
        self.counter = counter
    }

    /// Counts one request; throws a 429 with `Retry-After` when the address is over its limit.
    func admit(_ kind: Kind, from address: String, now: Date) throws {
        let limit = switch kind {
        case .claims: limits.claims
        case .writes: limits.writes
        case .edits: limits.edits
        case .links: limits.links
        case .kits: limits.kits
        }
        let second = Int64(now.timeIntervalSince1970)
        let minute = second - second % 60
        let count = try counter.count(kind.rawValue + " " + address, minute: minute)
        guard count <= limit else { throw ServiceError(429, kind.sentence, retryAfter: Int(minute + 60 - second)) }
    }
}

/// Where request counts are kept: one counter per key, reset when a new minute begins.
public protocol RequestCounter: Sendable {
    /// Counts one request under `key` in the minute starting at `minute` (Unix seconds) and
    /// returns how many that minute has seen, this one included.
    func count(_ key: String, minute: Int64) throws -> Int
}

/// Request counts in this process's memory.
final class MemoryRequestCounter: RequestCounter {
    private struct Window {
        var start: Int64
        var count: Int
    }

    private let windows = Mutex<[String: Window]>([:])
    private let sweeps = MinuteGate()

    func count(_ key: String, minute: Int64) -> Int {
        let count = windows.withLock { windows -> Int in
            var window = windows[key] ?? Window(start: minute, count: 0)
            if window.start != minute { window = Window(start: minute, count: 0) }
            window.count += 1
            windows[key] = window
            return window.count
        }
        // Windows from earlier minutes are dropped once a minute, so memory stays bounded.
        if sweeps.opens(for: minute) {
            windows.withLock { windows in windows = windows.filter { $0.value.start >= minute } }
        }
        return count
    }
}

/// Lets one caller through per new minute, whichever thread asks first: the request counters'
/// sweep of old counts.
final class MinuteGate: Sendable {
    private let last = Atomic<Int64>(0)

    func opens(for minute: Int64) -> Bool {
        let previous = last.load(ordering: .relaxed)
        return previous < minute && last.compareExchange(expected: previous, desired: minute, ordering: .relaxed).exchanged
    }
}
