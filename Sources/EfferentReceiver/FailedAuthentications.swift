import Foundation
import EfferentSystem

/// Wrong or missing tokens per client address, in one-minute windows: past the limit an address
/// is answered 429 with `Retry-After` until its window ends. Only failures are counted, and a
/// request is judged by its token before this is asked, so the right token always gets through.
final class FailedAuthentications: Sendable {
    private struct State {
        /// The minute the counts are for; a new minute starts them over, so memory stays bounded
        /// by one minute's addresses.
        var minute: Int64 = 0
        var failures: [String: Int] = [:]
    }

    let limit: Int
    private let state = Mutex(State())

    init(limit: Int) { self.limit = limit }

    /// Counts one failure from `address`; returns the seconds to wait when it is over the limit.
    func fail(_ address: String, now: Date) -> Int? {
        let second = Int64(now.timeIntervalSince1970)
        let minute = second - second % 60
        return state.withLock { state -> Int? in
            if state.minute != minute { state = State(minute: minute) }
            let failures = state.failures[address, default: 0] + 1
            state.failures[address] = failures
            return failures > limit ? Int(minute + 60 - second) : nil
        }
    }
}
