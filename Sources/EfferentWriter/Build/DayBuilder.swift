import EfferentClient
import EfferentCore

/// Builds one day's body from the source store (§3, §4): records as they are, totals summed into
/// hour and day buckets without double counting, all in the pinned zone's local day.
public struct DayBuilder {
    public let store: SourceStore
    public let priority: SourcePriority
    /// Hour buckets are written only for days on or after this one (§4.1: from the writer's first
    /// day on; history gets day buckets only).
    public let hourlyFrom: CalendarDay?

    public init(store: SourceStore, priority: SourcePriority = SourcePriority(), hourlyFrom: CalendarDay?) {
        self.store = store
        self.priority = priority
        self.hourlyFrom = hourlyFrom
    }

    public func events(for day: CalendarDay) throws -> [DayEvent] {
        let zone = store.zone
        let (start, end) = zone.bounds(of: day)
        let own = try store.records(on: day)
        let spilling = try store.totalsSpanning(into: start, end, excludingDay: day)
        var events = [DayEvent]()
        var totals = [String: (unit: String?, samples: [TotalsCalculator.Sample])]()
        for record in own + spilling {
            if record.isTotal {
                guard let value = record.value else { continue }
                let sample = TotalsCalculator.Sample(start: record.start, end: record.end, value: value,
                                                     rank: priority.rank(source: record.source, device: record.device),
                                                     source: record.source)
                totals[record.metric, default: (record.unit, [])].samples.append(sample)
            } else {
                events.append(try DayEvent(kind: .record, metric: record.metric, unit: record.unit, source: record.source,
                                           start: record.start, end: max(record.start, record.end), value: record.value,
                                           stage: record.stage, activity: record.activity, duration: record.duration))
            }
        }
        let dayBucket = [(start: start, end: end)]
        let hourly = hourlyFrom.map { day >= $0 } ?? false
        let hours = stride(from: start, to: end, by: 3600).map { (start: $0, end: min($0 + 3600, end)) }
        for (metric, entry) in totals {
            if let total = TotalsCalculator.totals(of: entry.samples, buckets: dayBucket)[0] {
                events.append(try DayEvent(kind: .total, metric: metric, bucket: .day, unit: entry.unit,
                                           start: start, end: end, value: total))
            }
            guard hourly else { continue }
            for (index, value) in TotalsCalculator.totals(of: entry.samples, buckets: hours).enumerated() {
                guard let value else { continue }
                events.append(try DayEvent(kind: .total, metric: metric, bucket: .hour, unit: entry.unit,
                                           start: hours[index].start, end: hours[index].end, value: value))
            }
        }
        return events
    }

    /// The canonical body of the day, with the pinned zone (decision A.4).
    public func body(for day: CalendarDay) throws -> DayBody {
        DayBody(events: try events(for: day), timeZone: store.zone.identifier)
    }
}
