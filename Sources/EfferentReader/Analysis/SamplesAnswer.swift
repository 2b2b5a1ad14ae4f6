import EfferentCore

/// `phone_data_samples` (§10.3): the events of one metric as they are, ids and metric dropped,
/// fields every row shares said once.
public struct SamplesAnswer: Answer {
    public let metric: String
    /// Events of the metric overlapping the range.
    public let matched: Int
    /// The first `limit` of them, by start.
    public let events: [ArchiveEvent]

    /// The fields a row may carry, in column order.
    public static let columns = ["day", "start", "end", "kind", "bucket", "unit", "source", "value", "stage", "activity", "duration"]

    /// Refuses a missing metric and a limit outside 1…5000.
    public init(from source: EventSource, metric: String, range: DayRange,
                limit: Int = DayRange.Limits.samplesDefaultLimit) throws {
        guard !metric.isEmpty else { throw AnswerError.metricRequired }
        guard (1...DayRange.Limits.samplesMaximumLimit).contains(limit) else {
            throw AnswerError.limitOutOfRange(limit: limit, maximum: DayRange.Limits.samplesMaximumLimit)
        }
        self.metric = metric
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
        events = Array(ordered.prefix(limit))
    }

    private var hoisted: HoistedRows {
        HoistedRows(columns: Self.columns, rows: events.map { item in
            let event = item.event
            func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
            func number(_ value: Double?) -> JSONValue { value.map(JSONValue.number) ?? .null }
            return [.string(item.day.description), .string(LocalClock.iso(event.start)), .string(LocalClock.iso(event.end)),
                    .string(event.kind == .total ? "total" : "record"), text(event.bucket?.rawValue), text(event.unit),
                    text(event.source), number(event.value), text(event.stage), text(event.activity), number(event.duration)]
        })
    }

    public var json: JSONValue {
        var members = hoisted.members
        members["metric"] = .string(metric)
        members["matched"] = .number(Double(matched))
        members["returned"] = .number(Double(events.count))
        if let note = MetricCatalogue.note(for: metric) { members["unitNote"] = .string(note) }
        return .object(members)
    }

    public var table: AnswerTable { hoisted.fullTable }
}
