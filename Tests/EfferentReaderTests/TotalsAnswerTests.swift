import EfferentCore
import Testing
@testable import EfferentReader

@Suite struct TotalsAnswerTests {
    typealias F = Fixture

    @Test func dailyTotalsLeaveGapsNull() throws {
        let source = EventList([
            try F.total("steps", "2023-12-31", 999),
            try F.total("steps", "2024-01-01", 1000),
            try F.total("steps", "2024-01-01", 400, bucket: .hour),
            try F.total("activeEnergy", "2024-01-02", 500.5, unit: "kcal"),
            try F.total("steps", "2024-01-03", 3000),
        ])
        let answer = try DailyAnswer(from: source, metrics: ["steps", "activeEnergy"], range: F.range("2024-01-01", "2024-01-03"))
        #expect(try F.json(answer) == #"{"columns":["day","steps","activeEnergy"],"rows":[["2024-01-01",1000,null],["2024-01-02",null,500.5],["2024-01-03",3000,null]],"units":{"activeEnergy":"kcal","steps":"count"}}"#)
    }

    @Test func dailyWithNothingStillListsEveryDayAndTheCatalogueUnit() throws {
        let answer = try DailyAnswer(from: EventList([]), metrics: ["dietaryWater"], range: F.range("2024-01-01", "2024-01-02"))
        #expect(answer.units == ["dietaryWater": "mL"])
        #expect(answer.table.rows == [[.string("2024-01-01"), .null], [.string("2024-01-02"), .null]])
    }

    @Test func percentilesOfOneToTenInterpolateLinearly() throws {
        let events = try (1...10).map { try F.reading("heartRate", "2024-01-01", nil, "2024-01-01T0\($0 % 10):00:00Z", Double($0)) }
        let answer = try StatisticsAnswer(from: EventList(events), metric: "heartRate", range: F.range("2024-01-01", "2024-01-01"))
        #expect(try F.json(answer) == #"{"groupBy":"month","metric":"heartRate","over":"individual readings","rows":[{"group":"2024-01","max":10,"mean":5.5,"median":5.5,"min":1,"n":10,"p10":1.9,"p90":9.1,"sum":55}],"unit":"count/min"}"#)
    }

    @Test func percentilesRoundToThreeDecimals() {
        let distribution = Distribution([1, 2, 4])!
        #expect(distribution.mean == 2.333)
        #expect(distribution.p10 == 1.2)
        #expect(Distribution([]) == nil)
        #expect(Distribution([7])!.p90 == 7)
    }

    @Test func totalsAreSummarisedOverDailyTotals() throws {
        let source = EventList([
            try F.total("steps", "2024-01-01", 1000), try F.total("steps", "2024-01-01", 50, bucket: .hour),
            try F.total("steps", "2024-01-02", 3000), try F.total("steps", "2024-02-01", 10),
        ])
        let answer = try StatisticsAnswer(from: source, metric: "steps", range: F.range("2024-01-01", "2024-02-29"))
        #expect(answer.overDailyTotals)
        #expect(answer.rows.map(\.group) == ["2024-01", "2024-02"])
        #expect(answer.rows[0].distribution.sum == 4000)
        #expect(answer.rows[0].distribution.n == 2)
        #expect(answer.json["over"] == .string("daily totals, one value per day"))
    }

    @Test func isoWeeksAreNamedByTheirMondayAcrossAYear() throws {
        #expect(Grouping.week.group(of: F.day("2020-12-31")) == "2020-12-28")
        #expect(Grouping.week.group(of: F.day("2021-01-03")) == "2020-12-28")
        #expect(Grouping.week.group(of: F.day("2021-01-04")) == "2021-01-04")
        #expect(Grouping.week.group(of: F.day("2024-12-30")) == "2024-12-30")
        let source = EventList([
            try F.reading("restingHeartRate", "2020-12-31", nil, "2020-12-31T08:00:00Z", 50),
            try F.reading("restingHeartRate", "2021-01-03", nil, "2021-01-03T08:00:00Z", 60),
            try F.reading("restingHeartRate", "2021-01-04", nil, "2021-01-04T08:00:00Z", 70),
        ])
        let answer = try StatisticsAnswer(from: source, metric: "restingHeartRate", range: F.range("2020-12-28", "2021-01-10"), groupBy: .week)
        #expect(answer.rows.map(\.group) == ["2020-12-28", "2021-01-04"])
        #expect(answer.rows.map(\.distribution.mean) == [55, 70])
        #expect(Grouping.month.group(of: F.day("2021-01-04")) == "2021-01")
        #expect(Grouping.year.group(of: F.day("2021-01-04")) == "2021")
    }

    @Test func aDayWithoutZoneIsReadAsUTC() throws {
        // 23:30 UTC on 01-01 is 00:30 on 01-02 in Berlin: the zone decides the day.
        let utc = EventList([try F.reading("heartRate", "2024-01-01", nil, "2024-01-01T23:30:00Z", 60)])
        let berlin = EventList([try F.reading("heartRate", "2024-01-02", "Europe/Berlin", "2024-01-01T23:30:00Z", 60)])
        let range = try F.range("2024-01-01", "2024-01-02")
        #expect(try StatisticsAnswer(from: utc, metric: "heartRate", range: range, groupBy: .day).rows.map(\.group) == ["2024-01-01"])
        #expect(try StatisticsAnswer(from: berlin, metric: "heartRate", range: range, groupBy: .day).rows.map(\.group) == ["2024-01-02"])
    }

    @Test func oxygenSaturationCarriesItsUnitNote() throws {
        let source = EventList([try F.reading("oxygenSaturation", "2024-01-01", nil, "2024-01-01T08:00:00Z", 0.97, unit: "%")])
        let answer = try StatisticsAnswer(from: source, metric: "oxygenSaturation", range: F.range("2024-01-01", "2024-01-01"))
        #expect(answer.json["unitNote"] == .string("fraction of 1, not a percentage — 0.97 means 97%. The unit written on the event says '%' and is wrong."))
        #expect(answer.rows[0].distribution.max == 0.97)
    }

    @Test func overviewTalliesEachMetric() throws {
        let source = EventList([
            try F.total("steps", "2024-01-01", 1000), try F.total("steps", "2024-01-01", 100, bucket: .hour),
            try F.total("steps", "2024-01-03", 1000),
            try F.reading("oxygenSaturation", "2024-01-02", nil, "2024-01-02T08:00:00Z", 0.97, unit: "%"),
        ])
        let answer = try OverviewAnswer(from: source, archive: .reachable(days: 3, bytes: 1_572_864, firstDay: F.day("2024-01-01"), lastDay: F.day("2024-01-03")))
        #expect(answer.readableDays == 3)
        #expect(answer.metrics.map(\.metric) == ["oxygenSaturation", "steps"])
        let steps = answer.metrics[1]
        #expect(steps.buckets == ["day", "hour"])
        #expect(steps.daysCovered == 2)
        #expect(steps.events == 3)
        #expect(steps.kind == .total)
        #expect(answer.metrics[0].unitNote != nil)
        #expect(answer.json["archive"]?["megabytes"] == .number(1.5))
        #expect(answer.json["metrics"]?.arrayValue?[1]["kind"] == .string("total"))
        let narrowed = try OverviewAnswer(from: source, range: F.range("2024-01-02", "2024-01-03"))
        #expect(narrowed.firstDay == F.day("2024-01-02"))
        #expect(narrowed.metrics.first { $0.metric == "steps" }?.events == 1)
        #expect(narrowed.json["archive"] == nil)
    }
}
