import EfferentCore

/// Events straight from the mirror's files, for answers offline (`query`, the MCP tools).
public struct MirrorSource: EventSource, Sendable {
    public let mirror: Mirror

    public init(mirror: Mirror) { self.mirror = mirror }

    public func days() throws -> [CalendarDay] { mirror.days }

    /// The mirrored days whose files are missing or are not what was fetched (`Mirror.damagedDays`).
    public func unusableDays() throws -> [CalendarDay] { try mirror.damagedDays().keys.sorted() }

    public func events(from: CalendarDay, through: CalendarDay) throws -> [ArchiveEvent] {
        try read(from: from, through: through, metric: nil)
    }

    /// The names of every day's series, without expanding a row.
    public func metricNames() throws -> Set<String> {
        var names = Set<String>()
        for day in mirror.days {
            guard let bytes = try mirror.body(day) else { continue }
            switch try? DayBody(bytes: bytes).decoded() {
            case let .columnar(columns)?: names.formUnion(columns.series.map(\.key.metric))
            default: names.formUnion(try Self.events(of: bytes, day: day).map(\.event.metric))
            }
        }
        return names
    }

    /// A layout-2 day's series, in the body's order (the order its events expand in); nil for a
    /// layout-1 day, whose lines must be read as events, and for a day the mirror does not hold ([]).
    public func series(of day: CalendarDay) throws -> [DaySeries]? {
        guard let bytes = try mirror.body(day) else { return [] }
        let decoded: DecodedDay
        do throws(DayBodyError) { decoded = try DayBody(bytes: bytes).decoded() } catch { throw MirrorError.unreadableDay(day, error.description) }
        guard case let .columnar(columns) = decoded else { return nil }
        return columns.series
    }

    public func events(from: CalendarDay, through: CalendarDay, metric: String) throws -> [ArchiveEvent] {
        try read(from: from, through: through, metric: metric)
    }

    public func events(from: CalendarDay, through: CalendarDay, matching: @escaping (String) -> Bool) throws -> [ArchiveEvent] {
        var out = [ArchiveEvent]()
        for day in mirror.days where day >= from && day <= through {
            guard let bytes = try mirror.body(day) else { continue }
            try Self.appendEvents(of: bytes, day: day, matching: matching, to: &out)
        }
        return out
    }

    func read(from: CalendarDay, through: CalendarDay, metric: String?) throws -> [ArchiveEvent] {
        var out = [ArchiveEvent]()
        for day in mirror.days where day >= from && day <= through {
            guard let bytes = try mirror.body(day) else { continue }
            try Self.appendEvents(of: bytes, day: day, metric: metric, to: &out)
        }
        return out
    }

    /// A day body's events: layout 2 expanded with ids (§3.2), layout 1 lines read as events.
    public static func events(of bytes: [UInt8], day: CalendarDay, metric: String? = nil) throws -> [ArchiveEvent] {
        var out = [ArchiveEvent]()
        try appendEvents(of: bytes, day: day, metric: metric, to: &out)
        return out
    }

    /// `events(of:)` appended straight to `out`, with no array of the day's events in between.
    static func appendEvents(of bytes: [UInt8], day: CalendarDay, metric: String?, to out: inout [ArchiveEvent]) throws {
        try appendEvents(of: bytes, day: day, matching: metric.map { wanted in { $0 == wanted } }, to: &out)
    }

    /// With `matching`, only the series of the metrics it accepts are read (their ids numbered as
    /// in the whole day: ids collide only within one metric, §3.2 rule 4).
    static func appendEvents(of bytes: [UInt8], day: CalendarDay, matching: ((String) -> Bool)?, to out: inout [ArchiveEvent]) throws {
        let decoded: DecodedDay
        do throws(DayBodyError) {
            let body = DayBody(bytes: bytes)
            if let matching { decoded = try body.decoded(keeping: matching) } else { decoded = try body.decoded() }
        } catch {
            throw MirrorError.unreadableDay(day, error.description)
        }
        switch decoded {
        case let .columnar(columns):
            appendEvents(of: columns, day: day, to: &out)
        case .lines:
            let objects: [[String: JSONValue]]
            do { objects = try decoded.lineObjects() } catch { throw MirrorError.unreadableDay(day, error.description) }
            out += objects.compactMap { LegacyLine.event($0, day: day) }.filter { matching?($0.event.metric) ?? true }
        }
    }
}

extension MirrorSource {
    /// A layout-2 day's events, appended to `out` one at a time as the day expands, each id (§3.2)
    /// spelled when read (what every reader of the mirror does with a day, and what `efferent-bench`
    /// times).
    public static func appendEvents(of columns: ColumnarDay, day: CalendarDay, to out: inout [ArchiveEvent]) {
        columns.forEachExpanded { expanded in
            out.append(ArchiveEvent(day: day, timeZone: columns.timeZone, expanded: expanded))
        }
    }
}

/// Layout-1 lines (§3.3) as events; a line missing what an event needs is skipped.
enum LegacyLine {
    static func event(_ object: [String: JSONValue], day: CalendarDay) -> ArchiveEvent? {
        guard let id = object["id"]?.stringValue, let metric = object["metric"]?.stringValue,
              let start = object["start"]?.stringValue.flatMap({ ISOInstant.seconds($0) }) else { return nil }
        let end = object["end"]?.stringValue.flatMap { ISOInstant.seconds($0) } ?? start
        let bucket = object["bucket"]?.stringValue.flatMap { DayEvent.Bucket(rawValue: $0) }
        guard let event = try? DayEvent(kind: id.hasPrefix("agg:") ? .total : .record, metric: metric, bucket: id.hasPrefix("agg:") ? bucket ?? .day : nil,
                                        unit: object["unit"]?.stringValue, source: object["source"]?.stringValue,
                                        start: start, end: max(start, end), value: object["value"]?.numberValue,
                                        stage: object["stage"]?.stringValue, activity: object["activity"]?.stringValue,
                                        duration: object["duration"]?.numberValue) else { return nil }
        return ArchiveEvent(day: day, timeZone: nil, id: id, event: event)
    }
}
