import EfferentCore

/// One metric's values per local day, by the rules `daily` follows (decision A.9, §4.2): a total
/// is the sum of its day buckets filed under the day; a reading belongs to the local day its
/// start falls on, in the zone that day was cut in. Charts and range statistics are built from
/// these, so what they show is what `efferent daily` prints.
public struct DayValues: Sendable, Equatable {
    public let metric: String
    /// Whether the metric is a total (by the catalogue, or because its events carry buckets).
    public let isTotal: Bool
    public var totals: [CalendarDay: Double]
    public var readings: [CalendarDay: ValueSummary]

    public init(metric: String, isTotal: Bool, totals: [CalendarDay: Double] = [:], readings: [CalendarDay: ValueSummary] = [:]) {
        self.metric = metric
        self.isTotal = isTotal
        self.totals = totals
        self.readings = readings
    }

    /// From the events of `range` (read, as `daily` reads them, from the day before `since`).
    public init(metric: String, events: [ArchiveEvent], range: DayRange) throws {
        let isTotal = MetricCatalogue.isTotal(metric) || events.contains { $0.event.metric == metric && $0.event.bucket != nil }
        self.init(metric: metric, isTotal: isTotal)
        let clock = LocalClock()
        for item in events where item.event.metric == metric {
            guard let value = item.event.value else { continue }
            if isTotal {
                guard item.event.bucket == .day, range.contains(item.day) else { continue }
                totals[item.day, default: 0] += value
            } else {
                let day = try clock.day(of: item.event.start, in: item.timeZone)
                guard range.contains(day) else { continue }
                if readings[day] == nil { readings[day] = ValueSummary(value, at: item.event.start) } else { readings[day]!.add(value, at: item.event.start) }
            }
        }
    }

    /// The values of the days of `range` only.
    public func within(_ range: DayRange) -> DayValues {
        DayValues(metric: metric, isTotal: isTotal, totals: totals.filter { range.contains($0.key) },
                  readings: readings.filter { range.contains($0.key) })
    }

    public var isEmpty: Bool { totals.isEmpty && readings.isEmpty }
}
