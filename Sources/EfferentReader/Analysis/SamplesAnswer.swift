import EfferentCore

/// `phone_data_samples` (§10.3): the events of one metric as they are, ids and metric dropped,
/// fields every row shares said once.
public struct SamplesAnswer: Answer {
    public let metric: String
    public let range: DayRange
    /// Events of the metric overlapping the range.
    public let matched: Int
    /// Rows skipped before this page.
    public let offset: Int
    /// `limit` of them from `offset` on, by start (all of them when no limit was given).
    public let events: [ArchiveEvent]

    /// The fields a row may carry, in column order.
    public static let columns = ["day", "start", "end", "kind", "bucket", "unit", "source", "value", "stage", "activity", "duration"]

    /// Refuses a missing metric and a page size outside 1…5000; `limit` nil answers every row.
    public init(from source: EventSource, metric: String, range: DayRange,
                limit: Int? = DayRange.Limits.samplesDefaultLimit, offset: Int = 0) throws {
        guard !metric.isEmpty else { throw AnswerError.metricRequired }
        if let limit, !(1...DayRange.Limits.samplesMaximumLimit).contains(limit) {
            throw AnswerError.limitOutOfRange(limit: limit, maximum: DayRange.Limits.samplesMaximumLimit)
        }
        self.metric = metric
        self.range = range
        self.offset = min(max(0, offset), DayRange.Limits.maximumOffset)
        let clock = LocalClock()
        // Read a window of days at a time; of the matching events only the first `offset + limit`
        // by (start, end, archive order) can be on the page, so the rest are dropped as the list
        // grows: a page of a decade holds a page, not the decade. Every event is still counted.
        let skip = self.offset
        let wanted = limit.map { skip + $0 }
        var kept: [(event: ArchiveEvent, order: Int)] = []
        var count = 0
        func ordered(_ a: (event: ArchiveEvent, order: Int), _ b: (event: ArchiveEvent, order: Int)) -> Bool {
            (a.event.event.start, a.event.event.end, a.order) < (b.event.event.start, b.event.event.end, b.order)
        }
        try range.forEachWindow(of: source, matching: { $0 == metric }) { events in
            for item in events {
                guard try clock.overlaps(item, range) else { continue }
                kept.append((item, count))
                count += 1
            }
            if let wanted, kept.count > max(2 * wanted, 10_000) {
                kept.sort(by: ordered)
                kept.removeSubrange(wanted...)
            }
        }
        // A stable order: the archive's among events that start and end together.
        kept.sort(by: ordered)
        matched = count
        let page = kept.dropFirst(skip).map(\.event)
        events = Array(limit.map { page.prefix($0) } ?? page[...])
    }

    /// A page already chosen (the mirror's index picks it opening only the days it needs).
    init(metric: String, range: DayRange, matched: Int, offset: Int, events: [ArchiveEvent]) {
        self.metric = metric
        self.range = range
        self.matched = matched
        self.offset = offset
        self.events = events
    }

    /// Rows after this page, when some remain.
    public var nextOffset: Int? { offset + events.count < matched ? offset + events.count : nil }

    public var emptyNote: String? { matched == 0 ? "no \(metric) \(range.phrase)" : nil }

    private var hoisted: HoistedRows {
        let clock = LocalClock()
        let unit = events.lazy.compactMap(\.event.unit).first ?? MetricCatalogue.unit(of: metric)
        let display: [ColumnDisplay] = [.plain, .time, .time, .plain, .plain, .plain, .plain, .measurement(unit, metric: metric), .plain, .plain,
                                        ColumnDisplay(unit: "s", style: .decimals(0))]
        return HoistedRows(columns: Self.columns, display: display, rows: events.map { Self.row($0, clock: clock) })
    }

    /// One event as a row under `columns`, every field in place (`null` where it has none), its
    /// times on the wall clock of the day it was filed under: what the dashboard's streamed export
    /// writes a day at a time, so it matches this answer row for row.
    public static func row(_ item: ArchiveEvent, clock: LocalClock) -> [JSONValue] {
        func time(_ seconds: Int64, _ zone: String?) -> JSONValue { .string(clock.shown(seconds, in: zone)) }
        let event = item.event
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        func number(_ value: Double?) -> JSONValue { value.map(JSONValue.number) ?? .null }
        return [.string(item.day.description), time(event.start, item.timeZone), time(event.end, item.timeZone),
                .string(event.kind == .total ? "total" : "record"), text(event.bucket?.rawValue), text(event.unit),
                text(event.source), number(event.value), text(event.stage), text(event.activity), number(event.duration)]
    }

    public var json: JSONValue {
        var members = hoisted.members
        members["metric"] = .string(metric)
        members["matched"] = .number(Double(matched))
        members["returned"] = .number(Double(events.count))
        if offset > 0 { members["offset"] = .number(Double(offset)) }
        if let next = nextOffset {
            members["next"] = .object(["offset": .number(Double(next))])
            members["note"] = .string("rows \(offset + 1)–\(next) of \(matched); ask again with offset \(next) for the next page.")
        }
        if let note = MetricCatalogue.note(for: metric) { members["unitNote"] = .string(note) }
        return .object(members)
    }

    public var table: AnswerTable { hoisted.fullTable }
}
