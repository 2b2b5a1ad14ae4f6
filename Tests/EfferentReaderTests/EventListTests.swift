import EfferentCore
import Testing
@testable import EfferentReader

@Suite struct EventListTests {
    @Test func filtersByArchiveDay() throws {
        let event = try DayEvent(kind: .record, metric: "heartRate", unit: "count/min", source: "Watch", start: 0, end: 0, value: 60)
        let list = EventList([ArchiveEvent(day: CalendarDay("2024-01-02")!, timeZone: nil, id: "a", event: event),
                              ArchiveEvent(day: CalendarDay("2024-01-01")!, timeZone: nil, id: "b", event: event)])
        #expect(try list.days() == [CalendarDay("2024-01-01")!, CalendarDay("2024-01-02")!])
        #expect(try list.events(from: CalendarDay("2024-01-02")!, through: CalendarDay("2024-01-02")!).map(\.id) == ["a"])
    }
}

@Suite struct EventLineTests {
    @Test func aWrittenLineIsTheCanonicalJSONOfTheEvent() throws {
        let events = [
            try DayEvent(kind: .record, metric: "heartRate", unit: "count/min", source: "Simon’s \"Watch\"", start: 1_700_000_000,
                         end: 1_700_000_000, value: 61.5),
            try DayEvent(kind: .total, metric: "steps", bucket: .hour, unit: "count", start: 1_700_000_000, end: 1_700_003_600, value: 842),
            try DayEvent(kind: .record, metric: "workout", source: "Watch", start: 1_700_000_000, end: 1_700_001_800, activity: "37", duration: 1800),
        ]
        for event in events {
            let item = ArchiveEvent(day: CalendarDay("2023-11-14")!, timeZone: nil, id: "x:y#2", event: event)
            var writer = JSONWriter()
            item.writeLine(into: &writer)
            #expect(writer.bytes == (try item.json.canonicalBytes()) + [0x0A])
            var object = JSONWriter()
            item.writeObject(into: &object)
            #expect(object.bytes == (try item.json.canonicalBytes()), "an array member is the line without its line feed")
        }
    }

    /// `query --format csv` writes each row straight from the event; it must be the record the
    /// table of the event's `json` gives, quoting and numbers included.
    @Test func aCSVRowIsTheTablesRecordOfTheEvent() throws {
        let sources = ["Watch", "Simon’s \"Watch\"", "a, b", "line\nbreak", "cr\r\nlf", "", "é\u{301}"]
        var events = [ArchiveEvent]()
        for (index, source) in sources.enumerated() {
            let start = 1_700_000_000 + Int64(index) * 60
            events.append(ArchiveEvent(day: CalendarDay("2023-11-14")!, timeZone: "Europe/Paris", id: "hk:heartRate:x#\(index)",
                                       event: try DayEvent(kind: .record, metric: "heartRate", unit: "count/min", source: source,
                                                           start: start, end: start, value: [61.5, 60, 1e21, -0.25, 0.1, 123_456_789, 7][index])))
        }
        events.append(ArchiveEvent(day: CalendarDay("2023-11-15")!, timeZone: nil, id: "agg:steps:y:h",
                                   event: try DayEvent(kind: .total, metric: "steps", bucket: .hour, unit: "count", start: 1_700_003_600,
                                                       end: 1_700_007_200, value: 842)))
        events.append(ArchiveEvent(day: CalendarDay("2023-11-15")!, timeZone: nil, id: "hk:workout:z",
                                   event: try DayEvent(kind: .record, metric: "workout", source: "Watch", start: 1_700_000_000,
                                                       end: 1_700_001_800, activity: "37", duration: 1800.5)))
        events.append(ArchiveEvent(day: CalendarDay("2023-11-15")!, timeZone: nil, id: "hk:sleep:w",
                                   event: try DayEvent(kind: .record, metric: "sleep", source: "Phone, \"bed\"", start: 1_700_000_000,
                                                       end: 1_700_028_800, stage: "asleepCore")))
        let columns = ArchiveEvent.tableColumns
        let table = AnswerTable(columns: columns, rows: events.map { item in columns.map { item.json.objectValue?[$0] ?? .null } })
        var written = JSONWriter()
        for item in events { item.writeCSVRow(into: &written) }
        let header = columns.joined(separator: ",") + "\r\n"
        #expect(header + String(decoding: written.bytes, as: UTF8.self) == (try table.csv()))
    }
}

/// `query` prints NDJSON a window of days at a time; what it hands over, in order, must be
/// exactly the whole answer, `--limit` and the matched count included.
@Suite struct EventQueryWindowTests {
    /// Forty days, two metrics, readings at noon UTC and one night crossing each midnight.
    static func source() throws -> EventList {
        var events = [ArchiveEvent]()
        for offset in 0..<40 {
            let day = CalendarDay("2024-02-20")!.adding(days: offset)
            let noon = day.startUnixSeconds + 43_200
            events.append(ArchiveEvent(day: day, timeZone: "Europe/Paris", id: "h\(offset)",
                                       event: try DayEvent(kind: .record, metric: "heartRate", unit: "count/min", source: "Watch",
                                                           start: noon, end: noon, value: Double(60 + offset))))
            events.append(ArchiveEvent(day: day, timeZone: "Europe/Paris", id: "s\(offset)",
                                       event: try DayEvent(kind: .record, metric: "sleep", source: "Watch", start: noon + 36_000,
                                                           end: noon + 64_800, stage: "asleepCore")))
        }
        return EventList(events)
    }

    @Test(arguments: [
        EventQuery(),
        EventQuery(metric: "heartRate"),
        EventQuery(since: CalendarDay("2024-03-01")!, until: CalendarDay("2024-03-10")!),
        EventQuery(metric: "sleep", since: CalendarDay("2024-03-05")!, limit: 4),
        EventQuery(limit: 7),
        EventQuery(since: CalendarDay("2025-01-01")!),
    ])
    func windowsTogetherAreTheWholeAnswer(_ query: EventQuery) throws {
        let source = try Self.source()
        let whole = try query.runCounting(source)
        for windowDays in [1, 3, 31] {
            var handed = [[ArchiveEvent]]()
            let counts = try query.forEachWindow(source, windowDays: windowDays) { handed.append($0) }
            #expect(handed.flatMap { $0 }.map(\.id) == whole.events.map(\.id))
            #expect(counts.returned == whole.events.count && counts.matched == whole.matched)
            #expect(!handed.contains { $0.isEmpty }, "an empty window is not handed over")
        }
    }
}

/// An event expanded from a layout-2 day spells its id only when read; it must read and compare
/// exactly as one built with its id as text.
@Suite struct ExpandedArchiveEventTests {
    @Test func anExpandedEventEqualsOneBuiltWithItsIdAsText() throws {
        let day = CalendarDay("2024-03-31")!
        let start = day.startUnixSeconds + 3600
        // Two readings at one instant (ids numbered #1, #2), an hourly total and a workout.
        let events = try [
            DayEvent(kind: .record, metric: "heartRate", unit: "count/min", source: "Watch", start: start, end: start, value: 60),
            DayEvent(kind: .record, metric: "heartRate", unit: "count/min", source: "Phone", start: start, end: start, value: 61),
            DayEvent(kind: .total, metric: "steps", bucket: .hour, unit: "count", start: start, end: start + 3600, value: 842),
            DayEvent(kind: .record, metric: "workout", source: "Watch", start: start, end: start + 1800, activity: "37", duration: 1800),
        ]
        guard case let .columnar(columns) = try DayBody(events: events, timeZone: "Europe/Paris").decoded() else {
            Issue.record("not layout 2"); return
        }
        var read = [ArchiveEvent]()
        MirrorSource.appendEvents(of: columns, day: day, to: &read)
        let expanded = columns.expandedEvents()
        let spelled = expanded.map { ArchiveEvent(day: day, timeZone: "Europe/Paris", id: $0.id, event: $0.event) }
        #expect(read == spelled)
        #expect(read.map(\.id) == expanded.map(\.id))
        #expect(read.map(\.id).filter { $0.hasPrefix("hk:heartRate:") }.sorted()
            == ["hk:heartRate:2024-03-31T01:00:00Z#1", "hk:heartRate:2024-03-31T01:00:00Z#2"])
        // A different id, or a different zone, is a different event.
        #expect(read[0] != ArchiveEvent(day: day, timeZone: "Europe/Paris", id: read[0].id + "x", event: read[0].event))
        #expect(read[0] != ArchiveEvent(day: day, timeZone: nil, id: read[0].id, event: read[0].event))
    }
}
