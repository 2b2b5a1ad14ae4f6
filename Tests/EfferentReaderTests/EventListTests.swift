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
        }
    }
}
