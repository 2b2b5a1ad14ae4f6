import Foundation

/// When to try a request again: on 5xx, 429 and network failures, after 2, 4, 8 and 16 seconds,
/// each jittered by up to a quarter (§9.5); never on any other 4xx, which would fail again.
public struct RetryPolicy: Sendable {
    public var delays: [Double]
    public var jitter: Double

    public init(delays: [Double] = [2, 4, 8, 16], jitter: Double = 0.25) {
        self.delays = delays
        self.jitter = jitter
    }

    /// No waiting: for tests, and for callers that retry on their own schedule.
    public static let immediate = RetryPolicy(delays: [0, 0, 0, 0], jitter: 0)
    public static let none = RetryPolicy(delays: [], jitter: 0)

    /// The longest a `Retry-After` makes one wait: a service asking for minutes is answered by
    /// the next scheduled run, not by a command sitting silent.
    public static let maxRetryAfter: Double = 30

    func delay(attempt: Int, retryAfter: Double?) -> Double {
        let base = delays[attempt]
        let jittered = base * (1 + Double.random(in: -jitter...jitter))
        return max(jittered, min(retryAfter ?? 0, Self.maxRetryAfter))
    }
}
