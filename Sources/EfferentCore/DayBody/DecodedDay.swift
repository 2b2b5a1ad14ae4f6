/// What a day body holds once read: columnar series (layout 2) or event lines (layout 1)
/// (protocol §3.2 rule 1).
public enum DecodedDay: Equatable, Sendable {
    /// Layout 2: series in the order the body holds them.
    case columnar(ColumnarDay)
    /// Layout 1 (§3.3): the body's non-empty lines, unchanged and without their `\n`. An empty
    /// body is `.lines([])`, a day with no events.
    case lines([String])
}

/// A layout-2 day: its series in body order and the writer's time zone when the body names one
/// (§3.1, decision A.4).
public struct ColumnarDay: Equatable, Sendable {
    public let series: [DaySeries]
    /// The IANA zone of the top-level `tz` key; `nil` means UTC (decision A.4).
    public let timeZone: String?

    public init(series: [DaySeries], timeZone: String?) {
        self.series = series
        self.timeZone = timeZone
    }

    /// Every row as an event, in series order then row order.
    public var events: [DayEvent] { series.flatMap(\.events) }
}
