import EfferentClient
import EfferentCore

/// The filters of `query`, `ask` and `read` (§10.2): metric and bucket equality, and local days by
/// overlap — an event counts when it overlaps `[since, until]` in the zone its day was cut in
/// (decision A.4; UTC when the day names none). Bounds fetch one day earlier, so a night that began
/// the evening before is found.
public struct EventQuery: Sendable, Equatable {
    public var metric: String?
    public var bucket: DayEvent.Bucket?
    public var since: CalendarDay?
    public var until: CalendarDay?
    public var limit: Int?

    public init(metric: String? = nil, bucket: DayEvent.Bucket? = nil, since: CalendarDay? = nil, until: CalendarDay? = nil, limit: Int? = nil) {
        self.metric = metric
        self.bucket = bucket
        self.since = since
        self.until = until
        self.limit = limit
    }

    /// The archive days to read: one day before `since` through `until`.
    public var fetchFrom: CalendarDay { (since ?? ProtocolLimits.earliestDay.next).previous }
    public var fetchThrough: CalendarDay { until ?? CalendarDay(year: 9999, month: 12, day: 31)! }

    public func matches(_ item: ArchiveEvent) -> Bool {
        var bounds = [String: (Int64, Int64)]()
        return matches(item, bounds: &bounds)
    }

    /// `matches` with the local bounds of each zone computed once.
    func matches(_ item: ArchiveEvent, bounds: inout [String: (Int64, Int64)]) -> Bool {
        if let metric, item.event.metric != metric { return false }
        if let bucket, item.event.bucket != bucket { return false }
        guard since != nil || until != nil else { return true }
        let zoneName = item.timeZone ?? "UTC"
        let (lower, upper): (Int64, Int64)
        if let known = bounds[zoneName] {
            (lower, upper) = known
        } else {
            let zone = ZoneCalendar(identifier: zoneName) ?? ZoneCalendar.utc
            lower = since.map { zone.start(of: $0) } ?? Int64.min
            upper = until.map { zone.start(of: $0.next) } ?? Int64.max
            bounds[zoneName] = (lower, upper)
        }
        // Overlap of [start, end] with [lower, upper); an instant event needs its moment inside.
        return item.event.start < upper && (item.event.end > lower || item.event.start >= lower)
    }

    public func run(_ source: EventSource) throws -> [ArchiveEvent] { try runCounting(source).events }

    /// The events, and how many matched before `limit` cut them.
    public func runCounting(_ source: EventSource) throws -> (events: [ArchiveEvent], matched: Int) {
        var bounds = [String: (Int64, Int64)]()
        // Filtered in place: a decade of readings is not copied a second time.
        var events = try metric.map { try source.events(from: fetchFrom, through: fetchThrough, metric: $0) }
            ?? source.events(from: fetchFrom, through: fetchThrough)
        events.removeAll { !matches($0, bounds: &bounds) }
        let matched = events.count
        if let limit, events.count > limit { events.removeSubrange(limit...) }
        return (events, matched)
    }

    /// The same events in the same order, handed to `body` a window of `windowDays` archive days
    /// at a time, so that a decade of every type (millions of events) never sits in memory at once.
    /// Returns how many were handed over and how many matched before `limit` cut them.
    @discardableResult
    public func forEachWindow(_ source: EventSource, windowDays: Int = 31,
                              _ body: ([ArchiveEvent]) throws -> Void) throws -> (returned: Int, matched: Int) {
        let held = try source.days()
        guard let first = held.first, let last = held.last else { return (0, 0) }
        var from = max(fetchFrom, first)
        let through = min(fetchThrough, last)
        var bounds = [String: (Int64, Int64)]()
        var returned = 0, matched = 0
        while from <= through {
            let end = min(through, from.adding(days: max(1, windowDays) - 1))
            var events = try metric.map { try source.events(from: from, through: end, metric: $0) }
                ?? source.events(from: from, through: end)
            events.removeAll { !matches($0, bounds: &bounds) }
            matched += events.count
            if let limit {
                let room = max(0, limit - returned)
                if events.count > room { events.removeSubrange(room...) }
            }
            returned += events.count
            if !events.isEmpty { try body(events) }
            from = end.next
        }
        return (returned, matched)
    }
}

extension ArchiveEvent {
    /// One compact NDJSON line of `json`, keys sorted, written straight into bytes (a decade of
    /// heart rate is hundreds of thousands of lines).
    public func writeLine(into writer: inout JSONWriter) {
        writeObject(into: &writer)
        writer.raw(byte: UInt8(ascii: "\n"))
    }

    /// `json` as canonical bytes (an NDJSON line without its line feed; a member of a JSON array).
    public func writeObject(into writer: inout JSONWriter) {
        writer.raw(byte: UInt8(ascii: "{"))
        if let activity = event.activity { writer.raw("\"activity\":"); writer.string(activity); writer.raw(byte: UInt8(ascii: ",")) }
        if let bucket = event.bucket { writer.raw("\"bucket\":"); writer.string(bucket.rawValue); writer.raw(byte: UInt8(ascii: ",")) }
        writer.raw("\"day\":\"")
        for byte in day.ascii { writer.raw(byte: byte) }
        writer.raw("\",")
        if let duration = event.duration { writer.raw("\"duration\":"); try? writer.number(duration); writer.raw(byte: UInt8(ascii: ",")) }
        writer.raw("\"end\":")
        ISOInstant.writeString(event.end, into: &writer)
        writer.raw(",\"id\":")
        writer.string(id)
        writer.raw(",\"metric\":")
        writer.string(event.metric)
        if let source = event.source { writer.raw(",\"source\":"); writer.string(source) }
        if let stage = event.stage { writer.raw(",\"stage\":"); writer.string(stage) }
        writer.raw(",\"start\":")
        ISOInstant.writeString(event.start, into: &writer)
        if let unit = event.unit { writer.raw(",\"unit\":"); writer.string(unit) }
        writer.raw(",\"v\":1")
        if let value = event.value { writer.raw(",\"value\":"); try? writer.number(value) }
        writer.raw(byte: UInt8(ascii: "}"))
    }

    /// The columns an event prints under in a table: the expanded fields of §3.2 with its day.
    public static let tableColumns = ["day", "id", "metric", "start", "end", "bucket", "unit", "source", "value", "stage", "activity", "duration"]

    /// The event's row under `tableColumns` as one RFC 4180 CSV record, written straight into
    /// bytes: what `AnswerTable.csv` writes for the row of `json`, without a dictionary a row.
    public func writeCSVRow(into writer: inout JSONWriter) {
        func comma() { writer.raw(byte: UInt8(ascii: ",")) }
        func text(_ value: String?) {
            comma()
            if let value { AnswerTable.writeCSVField(value, into: &writer) }
        }
        func number(_ value: Double?) {
            comma()
            if let value { try? writer.number(value) }
        }
        for byte in day.ascii { writer.raw(byte: byte) }
        text(id)
        text(event.metric)
        comma()
        ISOInstant.write(event.start, into: &writer)
        comma()
        ISOInstant.write(event.end, into: &writer)
        text(event.bucket?.rawValue)
        text(event.unit)
        text(event.source)
        number(event.value)
        text(event.stage)
        text(event.activity)
        number(event.duration)
        writer.raw("\r\n")
    }

    /// The event as one JSON object: the expanded fields of §3.2 plus the archive day.
    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "day": .string(day.description), "id": .string(id), "metric": .string(event.metric), "v": .number(1),
            "start": .string(ISOInstant.text(event.start)), "end": .string(ISOInstant.text(event.end)),
        ]
        if let bucket = event.bucket { object["bucket"] = .string(bucket.rawValue) }
        if let unit = event.unit { object["unit"] = .string(unit) }
        if let source = event.source { object["source"] = .string(source) }
        if let value = event.value { object["value"] = .number(value) }
        if let stage = event.stage { object["stage"] = .string(stage) }
        if let activity = event.activity { object["activity"] = .string(activity) }
        if let duration = event.duration { object["duration"] = .number(duration) }
        return .object(object)
    }
}
