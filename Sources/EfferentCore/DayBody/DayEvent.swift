/// One total or one record of a day, as layout 2 carries it (protocol §3.1, §4).
///
/// Instants are whole Unix seconds: the format has no sub-second resolution, so a writer floors
/// its dates before building events (`DayEvent.floorSeconds`). Every `DayEvent` that exists has
/// passed `init`'s checks, which is what lets the encoder never fail.
public struct DayEvent: Hashable, Sendable {
    /// `k` on the wire: a de-duplicated total or a HealthKit record (§3.1).
    public enum Kind: String, Hashable, Sendable, Comparable {
        case total = "agg"
        case record = "hk"

        /// By raw value, so totals (`agg`) come before records (`hk`) (decision A.5).
        public static func < (a: Kind, b: Kind) -> Bool { a.rawValue < b.rawValue }
    }

    /// The span a total sums over (§4.1); records carry none.
    public enum Bucket: String, Hashable, Sendable, Comparable {
        case hour
        case day

        /// By raw value, as Swift's `String <` orders them (decision A.5).
        public static func < (a: Bucket, b: Bucket) -> Bool { a.rawValue < b.rawValue }
    }

    /// The earliest and latest instants an event may name: years 0001…9999 in UTC, the range an
    /// ISO `YYYY-MM-DDTHH:MM:SSZ` instant can spell (§3.2 rule 2).
    public static let earliestSecond: Int64 = -62_135_596_800
    public static let latestSecond: Int64 = 253_402_300_799

    public let kind: Kind
    public let metric: String
    public let bucket: Bucket?
    public let unit: String?
    public let source: String?
    /// Unix seconds of the start, floored.
    public let start: Int64
    /// Unix seconds of the end, floored; never before `start`.
    public let end: Int64
    public let value: Double?
    /// The sleep stage wire string (§4.2), e.g. `asleepCore`.
    public let stage: String?
    /// The raw `HKWorkoutActivityType` number as a string (§4.2), e.g. `"37"`.
    public let activity: String?
    /// Workout duration in seconds.
    public let duration: Double?

    /// Checks what layout 2 needs of an event: a metric, an end not before the start, a bucket on
    /// a total and none on a record, finite numbers, instants within years 0001…9999.
    public init(kind: Kind, metric: String, bucket: Bucket? = nil, unit: String? = nil, source: String? = nil,
                start: Int64, end: Int64, value: Double? = nil, stage: String? = nil,
                activity: String? = nil, duration: Double? = nil) throws(DayBodyError) {
        guard !metric.isEmpty else { throw .emptyMetric }
        switch (kind, bucket) {
        case (.total, nil): throw .totalWithoutBucket
        case (.record, .some): throw .recordWithBucket
        default: break
        }
        let range = DayEvent.earliestSecond...DayEvent.latestSecond
        guard range.contains(start), range.contains(end) else { throw .instantOutOfRange }
        guard end >= start else { throw .endBeforeStart }
        guard value?.isFinite ?? true, duration?.isFinite ?? true else { throw .nonFiniteNumber }
        self.init(checked: DaySeries.Key(kind: kind, metric: metric, bucket: bucket, unit: unit, source: source),
                  start: start, end: end, value: value, stage: stage, activity: activity, duration: duration)
    }

    /// A row of a series whose fields were checked as they were read (`ColumnarReader`, or
    /// `DaySeries(key:events:)` from events that passed `init`).
    init(checked key: DaySeries.Key, start: Int64, end: Int64, value: Double?, stage: String?, activity: String?, duration: Double?) {
        self.kind = key.kind
        self.metric = key.metric
        self.bucket = key.bucket
        self.unit = key.unit
        self.source = key.source
        self.start = start
        self.end = end
        self.value = value
        self.stage = stage
        self.activity = activity
        self.duration = duration
    }

    /// Whole seconds rounded down, as the phone's `Columnar.second` does (§3.1); `nil` when the
    /// instant is not finite or lies outside years 0001…9999.
    public static func floorSeconds(_ seconds: Double) -> Int64? {
        guard seconds.isFinite else { return nil }
        let floored = seconds.rounded(.down)
        guard floored >= Double(earliestSecond), floored <= Double(latestSecond) else { return nil }
        return Int64(floored)
    }
}
