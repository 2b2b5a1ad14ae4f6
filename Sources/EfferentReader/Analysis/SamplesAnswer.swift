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
        self.offset = max(0, offset)
        let clock = LocalClock()
        var kept: [ArchiveEvent] = []
        for item in try range.readEvents(from: source, matching: { $0 == metric }) {
            if try clock.overlaps(item, range) { kept.append(item) }
        }
        // A stable sort keeps the archive's order among events that start and end together.
        let ordered = kept.enumerated().sorted { a, b in
            (a.element.event.start, a.element.event.end, a.offset) < (b.element.event.start, b.element.event.end, b.offset)
        }.map(\.element)
        matched = ordered.count
        let page = ordered.dropFirst(self.offset)
        events = Array(limit.map { page.prefix($0) } ?? page)
    }

    /// Rows after this page, when some remain.
    public var nextOffset: Int? { offset + events.count < matched ? offset + events.count : nil }

    public var emptyNote: String? { matched == 0 ? "no \(metric) between \(range.since) and \(range.until)" : nil }

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
        func time(_ seconds: Int64, _ zone: String?) -> JSONValue { .string((try? clock.iso(seconds, in: zone)) ?? LocalClock.iso(seconds)) }
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
