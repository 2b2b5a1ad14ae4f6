import EfferentCore
import EfferentTestSupport
import Testing
@testable import EfferentReader

/// Series for charts: binned to the pixel width on the reader's side with each bin's minimum and
/// maximum kept, built by the rules `daily` follows, so a chart shows what the answers say.
@Suite struct MetricSeriesTests {
    func day(_ text: String) -> CalendarDay { CalendarDay(text)! }

    /// A decade of daily heart-rate summaries into an 800-pixel chart: at most one bin a pixel
    /// column, and the one day with a spike of 190 keeps it as its bin's maximum.
    @Test func aDecadeIsBinnedToThePixelWidthKeepingExtremes() throws {
        let range = try DayRange(since: day("2016-01-01"), until: day("2025-12-31"))
        var values = DayValues(metric: "heartRate", isTotal: false)
        var random = SplitMix64(seed: 16)
        for offset in 0..<range.dayCount {
            let date = range.since.adding(days: offset)
            var summary = ValueSummary(Double(Int.random(in: 55...70, using: &random)), at: date.startUnixSeconds)
            for _ in 0..<20 { summary.add(Double(Int.random(in: 50...150, using: &random)), at: date.startUnixSeconds + 60) }
            values.readings[date] = summary
        }
        values.readings[day("2021-07-14")]!.add(190, at: day("2021-07-14").startUnixSeconds + 3600)
        let chart = MetricSeries.days(values, range: range, width: 800, title: "Heart rate", unit: "count/min")
        #expect(chart.bins.count <= MetricSeries.maximumBins(width: 800) && chart.bins.count > 600)
        #expect(chart.bins.filter { $0.max == 190 }.count == 1, "the spike survives the downsampling")
        #expect(chart.bins.allSatisfy { $0.end - $0.start == 5 || $0 == chart.bins.last }, "bins of whole days, five at a time")
        #expect(chart.bins.map(\.count).reduce(0, +) == values.readings.values.map(\.count).reduce(0, +), "every reading is in a bin")
        #expect(chart.style == .band)
    }

    @Test func aWeekOfTotalsIsOneBarADayWithTheDaysTotal() throws {
        let range = try DayRange(since: day("2025-06-02"), until: day("2025-06-08"))
        let values = DayValues(metric: "steps", isTotal: true, totals: [day("2025-06-02"): 8000.5, day("2025-06-04"): 12_000])
        let chart = MetricSeries.days(values, range: range, width: 800, title: "Steps", unit: "count")
        #expect(chart.bins.count == 7 && chart.style == .bars)
        #expect(chart.bins.map(\.value) == [8000.5, nil, 12_000, nil, nil, nil, nil])
        #expect(chart.bins[0].label == "Mon 2 Jun 2025")
    }

    @Test func aDayOfReadingsIsBinnedByMomentAndAHoursTotalsAreBars() throws {
        let range = try DayRange(since: day("2025-06-02"), until: day("2025-06-02"))
        let zones = ZoneTimeline.uniform("Europe/Berlin")
        let midnight = zones.start(of: range.since)
        var events = [ArchiveEvent]()
        for minute in stride(from: 0, to: 24 * 60, by: 5) {
            let event = try DayEvent(kind: .record, metric: "heartRate", unit: "count/min", start: midnight + Int64(minute * 60),
                                     end: midnight + Int64(minute * 60), value: Double(60 + minute % 40))
            events.append(ArchiveEvent(day: range.since, timeZone: "Europe/Berlin", id: "hk:\(minute)", event: event))
        }
        let chart = try #require(try MetricSeries.moments(events, metric: "heartRate", isTotal: false, range: range, zones: zones, width: 800,
                                                          title: "Heart rate", unit: "count/min"))
        #expect(chart.bins.count == 720, "two-minute bins: 720 of them fit 740 pixel columns")
        #expect(chart.bins.map(\.count).reduce(0, +) == 288)
        #expect(chart.bins[0].label == "Mon 2 Jun 2025, 00:00–00:02")
        var hours = [ArchiveEvent]()
        for hour in 7..<20 {
            let event = try DayEvent(kind: .total, metric: "steps", bucket: .hour, unit: "count", start: midnight + Int64(hour * 3600),
                                     end: midnight + Int64((hour + 1) * 3600), value: 500)
            hours.append(ArchiveEvent(day: range.since, timeZone: "Europe/Berlin", id: "agg:\(hour)", event: event))
        }
        let bars = try #require(try MetricSeries.moments(hours, metric: "steps", isTotal: true, range: range, zones: zones, width: 800,
                                                         title: "Steps", unit: "count"))
        #expect(bars.bins.count == 24 && bars.bins.compactMap(\.value).count == 13 && bars.bins[7].label.hasSuffix("07:00–08:00"))
        #expect(try MetricSeries.moments([], metric: "steps", isTotal: true, range: range, zones: zones, width: 800, title: "", unit: nil) == nil,
                "no hour totals: the day is drawn by day")
    }

    @Test func rangeStatisticsAgreeWithTheDistributionOfTheSameValues() throws {
        let totals = DayValues(metric: "steps", isTotal: true, totals: [day("2025-06-02"): 8000.25, day("2025-06-03"): 12_000, day("2025-06-05"): 3000.5])
        let statistics = RangeStatistics(totals)
        let distribution = try #require(Distribution([8000.25, 12_000, 3000.5]))
        #expect(statistics.mean == distribution.mean && statistics.min == distribution.min && statistics.max == distribution.max
                && statistics.total == distribution.sum && statistics.count == 3)
        #expect(statistics.minDay == day("2025-06-05") && statistics.maxDay == day("2025-06-03"))
        var summary = ValueSummary(60, at: 0)
        summary.add(70, at: 10)
        summary.add(81, at: 5)
        let readings = RangeStatistics(DayValues(metric: "heartRate", isTotal: false, readings: [day("2025-06-02"): summary]))
        #expect(readings.mean == 70.333 && readings.min == 60 && readings.max == 81 && readings.total == nil && readings.count == 3)
        #expect(summary.lastValue == 70, "the latest reading is the one that started last")
    }

    @Test func rangesEndOnTheirDayAndCountCalendarMonths() {
        let until = day("2025-08-31")
        #expect(ChartRange.day.days(until: until, first: nil).dayCount == 1)
        #expect(ChartRange.week.days(until: until, first: nil).since == day("2025-08-25"))
        #expect(ChartRange.halfYear.days(until: until, first: nil).since == day("2025-03-01"))
        #expect(ChartRange.year.days(until: day("2024-02-29"), first: nil).since == day("2023-03-01"))
        #expect(ChartRange.all.days(until: until, first: day("2016-05-01")).since == day("2016-05-01"))
        #expect(ChartRange.all.days(until: until, first: nil).dayCount == 1)
    }
}
