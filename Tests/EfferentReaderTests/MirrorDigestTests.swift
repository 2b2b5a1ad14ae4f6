import EfferentClient
import EfferentCore
import EfferentTestSupport
import Foundation
import Testing
@testable import EfferentReader

/// The mirror's digest (what the dashboard answers a decade and the catalogue from) equals the
/// answers computed from the same days: the overview line for line, `daily`'s totals and its
/// readings' minimum, mean and maximum day by day — across a trip to another zone — and it
/// follows the mirror when a sync changes a day.
@Suite struct MirrorDigestTests {
    func day(_ text: String) -> CalendarDay { CalendarDay(text)! }

    /// Forty days of steps (day and hour totals), heart rate at random moments (some near
    /// midnight), weight now and then, sleep and a workout; days 10–14 are in New York.
    func days() throws -> [(CalendarDay, String)] {
        var random = SplitMix64(seed: 1616)
        return try (0..<40).map { offset in
            let date = day("2025-03-01").adding(days: offset)
            let zone = (10...14).contains(offset) ? "America/New_York" : "Europe/Berlin"
            let calendar = ZoneCalendar(identifier: zone)!
            let (start, end) = calendar.bounds(of: date)
            var events = [DayEvent]()
            var total = 0.0
            for hour in 8..<20 {
                let steps = Double(Int.random(in: 0...900, using: &random))
                total += steps
                events.append(try DayEvent(kind: .total, metric: "steps", bucket: .hour, unit: "count", start: start + Int64(hour) * 3600,
                                           end: start + Int64(hour + 1) * 3600, value: steps))
            }
            events.append(try DayEvent(kind: .total, metric: "steps", bucket: .day, unit: "count", start: start, end: end, value: total))
            for _ in 0..<Int.random(in: 5...30, using: &random) {
                let at = start + Int64.random(in: 0..<(end - start), using: &random)
                events.append(try DayEvent(kind: .record, metric: "heartRate", unit: "count/min", source: "Watch", start: at, end: at,
                                           value: Double(Int.random(in: 48...170, using: &random))))
            }
            if offset % 6 == 0 {
                events.append(try DayEvent(kind: .record, metric: "bodyMass", unit: "kg", source: "Scale", start: start + 7 * 3600,
                                           end: start + 7 * 3600, value: 70 + Double(offset) / 10))
            }
            events.append(try DayEvent(kind: .record, metric: "sleep", source: "Watch", start: start + 23 * 3600, end: start + 30 * 3600, stage: "asleepCore"))
            if offset % 5 == 0 {
                events.append(try DayEvent(kind: .record, metric: "workout", source: "Watch", start: start + 18 * 3600, end: start + 19 * 3600,
                                           activity: "37", duration: 3600))
                events.append(try DayEvent(kind: .record, metric: "workout.distanceWalkingRunning.sum", unit: "m", source: "Watch",
                                           start: start + 18 * 3600, end: start + 19 * 3600, value: 8000 + Double(offset)))
            }
            return (date, String(decoding: DayBody(events: events, timeZone: zone).bytes, as: UTF8.self))
        }
    }

    @Test func theDigestAnswersAsTheAnswersDoAndFollowsTheMirror() async throws {
        let harness = try await ReaderHarness()
        let bodies = try days()
        try await harness.upload(bodies)
        let mirror = try harness.mirror()
        _ = try await harness.syncer(mirror).run()
        let digest = MirrorDigest(mirror: mirror)
        let snapshot = try digest.refresh()
        let source = MirrorSource(mirror: mirror)

        #expect(try snapshot.overview().json.canonicalBytes() == OverviewAnswer(from: source).json.canonicalBytes(),
                "the catalogue from the digest is the overview, line for line")
        // The mirror's overview is tallied from its series' keys, with no event built; the same
        // days as events give the same overview, over every day and over a range.
        let asEvents = EventList(try source.events(from: bodies.first!.0, through: bodies.last!.0))
        let part = try DayRange(since: day("2025-03-05"), until: day("2025-04-01"))
        for range in [nil, part] {
            #expect(try OverviewAnswer(from: source, range: range).json.canonicalBytes()
                    == OverviewAnswer(from: asEvents, range: range).json.canonicalBytes(), "\(String(describing: range))")
        }

        let range = try DayRange(since: day("2025-03-02"), until: day("2025-04-08"))
        let daily = try DailyAnswer(from: source, metrics: ["steps", "heartRate", "bodyMass"], range: range)
        let steps = snapshot.values(of: "steps", range: range), heart = snapshot.values(of: "heartRate", range: range)
        let weight = snapshot.values(of: "bodyMass", range: range)
        func column(_ name: String) -> Int { daily.columns.firstIndex { $0.name == name }! }
        var comparedReadings = 0
        for (index, date) in range.days.enumerated() {
            let row = daily.values[index]
            #expect(steps.totals[date] == row[column("steps")], "steps on \(date)")
            let summary = heart.readings[date]
            #expect(summary?.min == row[column("heartRate.min")] && summary?.max == row[column("heartRate.max")], "heart rate on \(date)")
            #expect(summary.map { Distribution.round3($0.mean) } == row[column("heartRate.mean")], "mean heart rate on \(date)")
            #expect(weight.readings[date]?.mean == row[column("bodyMass.mean")], "weight on \(date)")
            comparedReadings += summary?.count ?? 0
        }
        #expect(comparedReadings > 300)
        // The plot's path (values from the events themselves) gives the same days.
        let events = try range.readEvents(from: source, matching: { $0 == "heartRate" })
        #expect(try DayValues(metric: "heartRate", events: events, range: range) == heart)
        #expect(snapshot.zone(of: day("2025-03-12")) == "America/New_York" && snapshot.isTotal("steps") && !snapshot.isTotal("heartRate"))
        let latest = try #require(snapshot.latest("bodyMass", onOrBefore: day("2025-04-05")))
        #expect(latest.day == day("2025-03-31") && latest.readings?.lastValue == 73)

        // A day the writer sends again: the next sync brings it and the next refresh reads it, and only it.
        let changed = day("2025-03-20")
        let body = try DayBody(events: [DayEvent(kind: .total, metric: "steps", bucket: .day, unit: "count", start: changed.startUnixSeconds,
                                                 end: changed.startUnixSeconds + 86_400, value: 123)], timeZone: "Europe/Berlin")
        try await harness.upload([(changed, String(decoding: body.bytes, as: UTF8.self))])
        #expect(try digest.refresh().values(of: "steps", range: try DayRange(since: changed, until: changed)).totals[changed] != 123,
                "nothing changes before the mirror does")
        _ = try await harness.syncer(mirror).run()
        let after = try digest.refresh()
        #expect(after.values(of: "steps", range: try DayRange(since: changed, until: changed)).totals[changed] == 123)
        #expect(after.days[day("2025-03-19")]?.stamp == snapshot.days[day("2025-03-19")]?.stamp)
        #expect(after.lines["heartRate"]!.events == snapshot.lines["heartRate"]!.events - (snapshot.days[changed]!.metrics["heartRate"]?.events ?? 0))
    }
}
