import EfferentCompression
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
                // Apple's activity rings are no one source's samples: they carry none (decision A.9).
                events.append(try DayEvent(kind: .record, metric: record.metric, unit: record.unit,
                                           source: RecordParts.isSourceless(record.metric) ? nil : record.source,
                                           start: record.start, end: max(record.start, record.end), value: record.value,
                                           stage: record.stage, activity: record.activity, duration: record.duration))
            }
        }
        let dayBucket = [(start: start, end: end)]
        let hourly = hourlyFrom.map { day >= $0 } ?? false
        let hours = stride(from: start, to: end, by: 3600).map { (start: $0, end: min($0 + 3600, end)) }
        // HealthKit's own sums, where a phone supplied them, stand for the totals (SuppliedTotals).
        let supplied = SuppliedTotals.day(try store.suppliedTotals(from: start, to: end), start: start, end: end, hours: hours)
        // A restored writer's: the archive's own totals, standing until the store's samples sum to more.
        let archived = ArchivedTotals(try store.archivedTotals(from: start, to: end), dayStart: start)
        for metric in Set(totals.keys).union(supplied.day.keys).union(supplied.hours.keys).union(archived.units.keys).sorted() {
            let entry = totals[metric]
            let unit: String? = if let entry { entry.unit } else if let given = supplied.units[metric] { given } else { archived.units[metric] ?? nil }
            let dayTotal = supplied.day[metric]
                ?? archived.standing(archived.day(metric), entry.flatMap { TotalsCalculator.totals(of: $0.samples, buckets: dayBucket)[0] })
            if let total = dayTotal {
                events.append(try DayEvent(kind: .total, metric: metric, bucket: .day, unit: unit, start: start, end: end, value: total))
            }
            guard hourly else { continue }
            let computed = entry.map { TotalsCalculator.totals(of: $0.samples, buckets: hours) } ?? Array(repeating: nil, count: hours.count)
            for (index, hour) in hours.enumerated() {
                guard let value = supplied.hours[metric]?[hour.start] ?? archived.standing(archived.hours[metric]?[hour.start], computed[index])
                else { continue }
                events.append(try DayEvent(kind: .total, metric: metric, bucket: .hour, unit: unit, start: hour.start, end: hour.end, value: value))
            }
        }
        return events
    }

    /// The canonical body of the day, with the pinned zone (decision A.4).
    public func body(for day: CalendarDay) throws -> DayBody {
        DayBody(events: try events(for: day), timeZone: store.zone.identifier)
    }

    /// A day built to fit one sealed day (§6: 1 MiB), deflated.
    public struct Fitted {
        public let body: DayBody
        /// The body deflated, when fitting it needed that (a small body is deflated by the caller).
        public let deflated: [UInt8]?
        /// 1 when every route fix is in; n when only every n-th fix of each route source is.
        public let keptEveryNthFix: Int
    }

    /// The day's body, and when its sealed form would pass 1 MiB — only a day of many hours of
    /// GPS fixes does — its route fixes thinned to every 2nd, 3rd, … fix per source (first fix
    /// kept) until it fits (decision A.9). Every other record stays; a day still too big goes as
    /// it is and the service refuses it, as any oversized day.
    public func fittedBody(for day: CalendarDay, deflater: Deflater,
                           budget: Int = ProtocolLimits.maxDayBytes - SealedEnvelope.overhead) throws -> Fitted {
        let events = try self.events(for: day)
        var body = DayBody(events: events, timeZone: store.zone.identifier)
        // Text that fits uncompressed fits deflated (deflate adds at most 5 bytes a 64 KiB block).
        if body.bytes.count + 1024 <= budget { return Fitted(body: body, deflated: nil, keptEveryNthFix: 1) }
        var deflated = try body.deflated(using: deflater)
        guard deflated.count > budget else { return Fitted(body: body, deflated: deflated, keptEveryNthFix: 1) }
        // A fix is the (source, start, end) its fields share: `end` holds its ordinal in its second.
        struct Fix: Hashable { let source: String?; let start: Int64; let end: Int64 }
        let fixes = Set(events.filter { $0.metric.hasPrefix("workoutRoute.") }.map { Fix(source: $0.source, start: $0.start, end: $0.end) })
        guard !fixes.isEmpty else { return Fitted(body: body, deflated: deflated, keptEveryNthFix: 1) }
        let ordered = fixes.sorted { ($0.source ?? "", $0.start, $0.end) < ($1.source ?? "", $1.start, $1.end) }
        var position = [Fix: Int]()
        var previousSource: String??
        var index = 0
        for fix in ordered {
            if previousSource != .some(fix.source) { index = 0; previousSource = .some(fix.source) }
            position[fix] = index
            index += 1
        }
        for every in 2...64 {
            let kept = events.filter { event in
                guard event.metric.hasPrefix("workoutRoute.") else { return true }
                return (position[Fix(source: event.source, start: event.start, end: event.end)] ?? 0) % every == 0
            }
            body = DayBody(events: kept, timeZone: store.zone.identifier)
            deflated = try body.deflated(using: deflater)
            if deflated.count <= budget { return Fitted(body: body, deflated: deflated, keptEveryNthFix: every) }
        }
        return Fitted(body: body, deflated: deflated, keptEveryNthFix: 64)
    }
}
