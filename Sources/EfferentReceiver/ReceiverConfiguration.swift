import EfferentWriter
import Foundation

/// How a receiver runs: its limits, its log, and when it seals what arrived.
public struct ReceiverConfiguration: Sendable {
    /// Where the access log, the batch lines and the sealing lines go; nil logs nothing.
    public var log: (@Sendable (String) -> Void)?
    /// Take the client address from `X-Forwarded-For` (only behind a proxy you run).
    public var trustProxy: Bool
    public var limits: PulsLimits
    /// Requests with a wrong or missing token one client address may make a minute before it is
    /// answered 429 (a request with the right token is never held back).
    public var failedAuthenticationsPerMinute: Int
    /// Seconds without a new batch before the changed days are sealed and uploaded.
    public var debounceSeconds: Double
    /// Seconds a changed day may wait while batches keep coming (a long backfill) before it goes anyway.
    public var longestWaitSeconds: Double
    /// Seconds between runs of the daily archive check's push when nothing arrives.
    public var checkIntervalSeconds: Double
    /// Seal and upload at all (off for tests that look only at the store).
    public var seals: Bool
    public var priority: SourcePriority
    public var clock: @Sendable () -> Date
    /// `version` in `/v1/capabilities`.
    public var version: String
    /// The memory all batches in flight may take together (what reached their readers after
    /// gzip); a batch past it is answered 503 with Retry-After, which the app retries. Nil: one
    /// batch at the inflated ceiling of `limits`, plus 64 MiB for the others in flight.
    public var bodyBudgetBytes: Int?

    public init(log: (@Sendable (String) -> Void)? = nil, trustProxy: Bool = false, limits: PulsLimits = PulsLimits(),
                failedAuthenticationsPerMinute: Int = 10, debounceSeconds: Double = 30, longestWaitSeconds: Double = 600,
                checkIntervalSeconds: Double = 3600, seals: Bool = true, priority: SourcePriority = SourcePriority(),
                clock: @escaping @Sendable () -> Date = { Date() }, version: String = "0.1.0", bodyBudgetBytes: Int? = nil) {
        self.log = log
        self.trustProxy = trustProxy
        self.limits = limits
        self.failedAuthenticationsPerMinute = failedAuthenticationsPerMinute
        self.debounceSeconds = debounceSeconds
        self.longestWaitSeconds = longestWaitSeconds
        self.checkIntervalSeconds = checkIntervalSeconds
        self.seals = seals
        self.priority = priority
        self.clock = clock
        self.version = version
        self.bodyBudgetBytes = bodyBudgetBytes ?? limits.inflatedBytes + (64 << 20)
    }
}
