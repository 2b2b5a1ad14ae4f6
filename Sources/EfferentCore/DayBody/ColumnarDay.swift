/// A layout-2 day: its series in body order and the writer's time zone when the body names one
/// (§3.1, decision A.4).
public struct ColumnarDay: Equatable, Sendable {
    public let series: [DaySeries]
    /// The IANA zone of the top-level `tz` key; `nil` means UTC (decision A.4).
    public let timeZone: String?

    init(series: [DaySeries], timeZone: String?) {
        self.series = series
        self.timeZone = timeZone
    }

    /// Every row as an event, in series order then row order.
    public var events: [DayEvent] { series.flatMap(\.events) }
}
