import EfferentCore
import Foundation
import Testing
@testable import EfferentClient

@Suite struct ZoneCalendarTests {
    @Test func daysAndBoundsAcrossDST() throws {
        let berlin = try #require(ZoneCalendar(identifier: "Europe/Berlin"))
        // 2024-03-31: clocks spring forward at 02:00 → a 23-hour day; 2024-10-27: a 25-hour day.
        let spring = berlin.bounds(of: CalendarDay("2024-03-31")!)
        #expect(spring.end - spring.start == 23 * 3600)
        #expect(spring.start == 1_711_839_600)                      // 2024-03-30T23:00:00Z
        let autumn = berlin.bounds(of: CalendarDay("2024-10-27")!)
        #expect(autumn.end - autumn.start == 25 * 3600)
        let ordinary = berlin.bounds(of: CalendarDay("2024-07-01")!)
        #expect(ordinary.end - ordinary.start == 24 * 3600 && ordinary.start == 1_719_784_800)
        #expect(berlin.day(of: 1_719_784_799).description == "2024-06-30")
        #expect(berlin.day(of: 1_719_784_800).description == "2024-07-01")
    }

    @Test func midnightInAGapStartsAtTheTransition() throws {
        // America/Santiago moved clocks from 24:00 to 01:00 on 2022-09-11 (the day has no midnight).
        let santiago = try #require(ZoneCalendar(identifier: "America/Santiago"))
        let day = CalendarDay("2022-09-11")!
        let (start, end) = santiago.bounds(of: day)
        #expect(santiago.day(of: Double(start)) == day)
        #expect(santiago.day(of: Double(start - 1)) == day.previous)
        #expect(end - start == 23 * 3600)
    }

    /// The first and last days a `CalendarDay` can name: finding where they start once looped
    /// forever (this test hung), because every earlier instant clamps to 0001-01-01.
    @Test func theFirstAndLastNameableDaysHaveBounds() throws {
        let first = CalendarDay(year: 1, month: 1, day: 1)!, last = CalendarDay(year: 9999, month: 12, day: 31)!
        #expect(ZoneCalendar.utc.start(of: first) == -62_135_596_800)
        #expect(ZoneCalendar.utc.start(of: last) == 253_402_214_400)
        for identifier in ["Europe/Berlin", "America/Los_Angeles", "Pacific/Kiritimati"] {
            let zone = try #require(ZoneCalendar(identifier: identifier))
            for day in [first, first.next, last] {
                let start = zone.start(of: day)
                #expect(start == day.startUnixSeconds - zone.offset(at: Double(start)), "\(identifier) \(day)")
            }
        }
    }

    @Test func classifyingInTimeOrderMatchesFoundation() throws {
        let zone = try #require(ZoneCalendar(identifier: "America/New_York"))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "America/New_York")!
        var seconds = 1_577_836_800.0          // 2020-01-01
        while seconds < 1_640_995_200 {        // 2022-01-01
            let parts = calendar.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: seconds))
            #expect(zone.day(of: seconds) == CalendarDay(year: parts.year!, month: parts.month!, day: parts.day!))
            seconds += 3 * 3600 + 17 * 60
        }
        #expect(ZoneCalendar(identifier: "Mars/Olympus") == nil)
    }

    /// A span's offset is the offset of every instant within it, so a caller that keeps the span
    /// (the mirror's index at sync) tells the same days as `day(of:)`, across DST changes and a
    /// zone that skipped a whole day (Pacific/Apia, 2011-12-30).
    @Test func anOffsetHoldsForItsWholeSpan() throws {
        for identifier in ["Europe/Paris", "America/Santiago", "Pacific/Apia", "UTC"] {
            let zone = try #require(ZoneCalendar(identifier: identifier))
            let other = try #require(ZoneCalendar(identifier: identifier))
            var seconds = 1_293_840_000.0      // 2011-01-01
            while seconds < 1_356_998_400 {    // 2013-01-01
                let span = zone.offsetSpan(at: seconds)
                #expect(span.from <= seconds && seconds < span.until)
                // Probed from another calendar, so its cache cannot answer for this one's.
                for probe in [span.from, seconds, Swift.min(span.until - 1, seconds + 40 * 3600)] where probe >= span.from {
                    #expect(other.offset(at: probe) == span.offset, "\(identifier) at \(probe)")
                }
                seconds += 5 * 3600 + 7 * 60
            }
        }
    }
}
