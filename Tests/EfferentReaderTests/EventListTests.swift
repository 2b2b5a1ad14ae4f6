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
