import EfferentTestSupport
import EfferentCore
import Testing
@testable import EfferentReader

@Suite struct SleepAnswerTests {
    typealias F = Fixture

    @Test func nightAcrossMidnightIsNamedByItsEvening() throws {
        let source = EventList([
            try F.sleep("2024-01-01", nil, "2024-01-01T22:00:00Z", "2024-01-02T06:00:00Z", "inBed"),
            try F.sleep("2024-01-01", nil, "2024-01-01T22:30:00Z", "2024-01-02T00:30:00Z", "asleepCore"),
            // Filed under the next day (it starts after midnight) but part of the same night.
            try F.sleep("2024-01-02", nil, "2024-01-02T00:30:00Z", "2024-01-02T05:30:00Z", "asleepDeep"),
        ])
        let answer = try SleepAnswer(from: source, range: F.range("2024-01-01", "2024-01-01"))
        #expect(answer.nights.count == 1)
        let night = try #require(answer.nights.first)
        #expect(night.night == F.day("2024-01-01"))
        #expect(night.asleepHours == 7)
        #expect(night.inBedHours == 8)
        #expect(night.stages == ["inBed": 8, "asleepCore": 2, "asleepDeep": 5])
        #expect(night.segments == 1)
        #expect(try F.json(answer) == #"{"asleepHours":{"max":7,"mean":7,"median":7,"min":7,"nights":1,"p10":7,"p90":7},"nightsInBedOnly":0,"nightsInRange":1,"nightsRecorded":1,"rows":[{"asleepHours":7,"end":"2024-01-02T06:00:00Z","inBedHours":8,"naps":[],"night":"2024-01-01","segments":1,"stages":{"asleepCore":2,"asleepDeep":5,"inBed":8},"start":"2024-01-01T22:00:00Z"}]}"#)
        // The morning of that night is not a night of its own.
        #expect(try SleepAnswer(from: source, range: F.range("2024-01-02", "2024-01-02")).nights.isEmpty)
    }

    @Test func twoSourcesForOneNightAreUnitedNotSummed() throws {
        let source = EventList([
            try F.sleep("2024-01-01", nil, "2024-01-01T23:00:00Z", "2024-01-02T06:00:00Z", "asleepCore", source: "Watch"),
            try F.sleep("2024-01-01", nil, "2024-01-01T22:00:00Z", "2024-01-02T05:00:00Z", "asleepUnspecified", source: "Ring"),
        ])
        let night = try #require(try SleepAnswer(from: source, range: F.range("2024-01-01", "2024-01-01")).nights.first)
        #expect(night.asleepHours == 8)
        #expect(night.stages == ["asleepCore": 7, "asleepUnspecified": 7])
        #expect(night.inBedHours == nil)
        #expect(night.start == F.at("2024-01-01T22:00:00Z"))
        #expect(night.end == F.at("2024-01-02T06:00:00Z"))
    }

    @Test func napsAreReportedApartFromTheNight() throws {
        let source = EventList([
            // Afternoon nap on the evening's day: 8 h before the night.
            try F.sleep("2024-01-01", nil, "2024-01-01T14:00:00Z", "2024-01-01T15:00:00Z", "asleepCore"),
            // A doze 2 h before bed stays part of the night.
            try F.sleep("2024-01-01", nil, "2024-01-01T20:00:00Z", "2024-01-01T21:00:00Z", "asleepCore"),
            try F.sleep("2024-01-01", nil, "2024-01-01T23:00:00Z", "2024-01-02T07:00:00Z", "asleepCore"),
            // Late-morning nap 3.5 h after waking: before noon, so still this night's, and a nap.
            try F.sleep("2024-01-02", nil, "2024-01-02T10:30:00Z", "2024-01-02T11:00:00Z", "asleepUnspecified"),
        ])
        let night = try #require(try SleepAnswer(from: source, range: F.range("2024-01-01", "2024-01-01")).nights.first)
        #expect(night.asleepHours == 9)
        #expect(night.segments == 2)
        #expect(night.start == F.at("2024-01-01T20:00:00Z"))
        #expect(night.end == F.at("2024-01-02T07:00:00Z"))
        #expect(night.naps == [
            SleepNight.Nap(start: F.at("2024-01-01T14:00:00Z"), end: F.at("2024-01-01T15:00:00Z"), asleepHours: 1),
            SleepNight.Nap(start: F.at("2024-01-02T10:30:00Z"), end: F.at("2024-01-02T11:00:00Z"), asleepHours: 0.5),
        ])
    }

    @Test func napOutsideDaytimeHoursStaysInTheNight() throws {
        // 19:00–19:30 is more than 3 h from the night but not between 10:00 and 18:00.
        let source = EventList([
            try F.sleep("2024-01-01", nil, "2024-01-01T19:00:00Z", "2024-01-01T19:30:00Z", "asleepCore"),
            try F.sleep("2024-01-01", nil, "2024-01-01T23:00:00Z", "2024-01-02T07:00:00Z", "asleepCore"),
        ])
        let night = try #require(try SleepAnswer(from: source, range: F.range("2024-01-01", "2024-01-01")).nights.first)
        #expect(night.naps.isEmpty)
        #expect(night.asleepHours == 8.5)
        #expect(night.segments == 2)
    }

    @Test func nightAcrossSpringForwardIsMeasuredInRealHours() throws {
        // Europe/Berlin, 2024-03-31 02:00 CET → 03:00 CEST. In bed 23:00 CET → 07:00 CEST: eight
        // hours on the wall clock, seven real ones.
        let berlin = "Europe/Berlin"
        let source = EventList([
            try F.sleep("2024-03-30", berlin, "2024-03-30T22:00:00Z", "2024-03-31T05:00:00Z", "inBed"),
            try F.sleep("2024-03-30", berlin, "2024-03-30T22:30:00Z", "2024-03-31T04:30:00Z", "asleepCore"),
        ])
        let answer = try SleepAnswer(from: source, range: F.range("2024-03-30", "2024-03-31"))
        #expect(answer.nights.map(\.night) == [F.day("2024-03-30")])
        #expect(answer.nights[0].inBedHours == 7)
        #expect(answer.nights[0].asleepHours == 6)
        #expect(answer.json["nightsInRange"] == .number(2))
    }

    @Test func noonIsCutInTheArchiveZone() throws {
        // 10:30 UTC is 12:30 in Berlin (summer): the Berlin stretch starts a new night, the UTC one
        // belongs to the night before.
        let berlin = EventList([try F.sleep("2024-06-01", "Europe/Berlin", "2024-06-01T10:30:00Z", "2024-06-01T11:00:00Z", "asleepCore")])
        let utc = EventList([try F.sleep("2024-06-01", nil, "2024-06-01T10:30:00Z", "2024-06-01T11:00:00Z", "asleepCore")])
        let range = try F.range("2024-05-31", "2024-06-01")
        #expect(try SleepAnswer(from: berlin, range: range).nights.map(\.night) == [F.day("2024-06-01")])
        #expect(try SleepAnswer(from: utc, range: range).nights.map(\.night) == [F.day("2024-05-31")])
    }

    @Test func daysInDifferentZonesCutTheirOwnNights() throws {
        // The person flew from Berlin to New York: 2024-05-02 is cut in New York. A stretch at
        // 15:00 UTC is 11:00 in New York, before noon, so it belongs to the night of 05-01.
        let source = EventList([
            try F.sleep("2024-05-01", "Europe/Berlin", "2024-05-01T21:00:00Z", "2024-05-02T04:00:00Z", "asleepCore"),
            try F.sleep("2024-05-02", "America/New_York", "2024-05-02T15:00:00Z", "2024-05-02T15:30:00Z", "asleepCore"),
            try F.sleep("2024-05-02", "America/New_York", "2024-05-03T02:00:00Z", "2024-05-03T10:00:00Z", "asleepCore"),
        ])
        let answer = try SleepAnswer(from: source, range: F.range("2024-05-01", "2024-05-02"))
        #expect(answer.nights.map(\.night) == [F.day("2024-05-01"), F.day("2024-05-02")])
        // 15:00–15:30 UTC is 11:00–11:30 New York: a nap 7 h after the Berlin night ended.
        #expect(answer.nights[0].asleepHours == 7)
        #expect(answer.nights[0].naps.map(\.asleepHours) == [0.5])
        #expect(answer.nights[1].asleepHours == 8)
        #expect(answer.asleepDistribution?.median == 7.5)
    }

    @Test func unionNeverExceedsTheSpanNorTheSumOfSources() throws {
        var random = SplitMix64(seed: 0x5EED_51EE)
        let base = F.at("2024-01-01T20:00:00Z")
        let stages = ["inBed", "awake", "asleepCore", "asleepDeep", "asleepREM", "asleepUnspecified"]
        for _ in 0..<300 {
            var events: [ArchiveEvent] = []
            var perSourceAsleep: [String: Int64] = [:]
            for sourceIndex in 0..<Int.random(in: 1...3, using: &random) {
                let name = "source-\(sourceIndex)"
                for _ in 0..<Int.random(in: 1...6, using: &random) {
                    let start = base + Int64.random(in: 0...(12 * 3600), using: &random)
                    let end = start + Int64.random(in: 0...(4 * 3600), using: &random)
                    let stage = stages.randomElement(using: &random)!
                    if MetricCatalogue.asleepStages.contains(stage) { perSourceAsleep[name, default: 0] += end - start }
                    let event = try DayEvent(kind: .record, metric: "sleep", source: name, start: start, end: end, stage: stage)
                    events.append(ArchiveEvent(day: F.day("2024-01-01"), timeZone: nil, id: "x", event: event))
                }
            }
            let answer = try SleepAnswer(from: EventList(events), range: F.range("2024-01-01", "2024-01-01"))
            for night in answer.nights {
                let span = Double(night.end - night.start) / 3600
                let sum = Double(perSourceAsleep.values.reduce(0, +)) / 3600
                // A night with no asleep stage has no asleep figure, never 0 h.
                let anyAsleep = events.contains { MetricCatalogue.asleepStages.contains($0.event.stage ?? "") && $0.event.end > $0.event.start }
                #expect((night.asleepHours == nil) == !night.stages.keys.contains(where: MetricCatalogue.asleepStages.contains))
                if !anyAsleep { #expect(night.asleepHours == nil) }
                #expect((night.asleepHours ?? 0) <= Distribution.round3(span))
                #expect((night.asleepHours ?? 0) <= Distribution.round3(sum) + 0.001)
                for hours in night.stages.values { #expect(hours <= Distribution.round3(span)) }
                #expect(night.segments >= 1)
            }
        }
    }
}
