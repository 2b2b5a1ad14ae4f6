import Foundation
import Testing
@testable import EfferentExportGenerator

@Suite struct ExportTruthsTests {
    /// What Apple computes for an ActivitySummary is what the truths say the day's totals are.
    @Test func activitySummariesEqualTheDailyTotals() {
        let truths = ExportGenerator(options: ExportOptions(years: 1, seed: 3)).truths()
        #expect(truths.activitySummaries.count > 200)
        for summary in truths.activitySummaries {
            let day = truths.totals(on: summary.date)
            #expect(summary.activeEnergyKcal == (day?.activeEnergyKcal ?? 0))
            #expect(Double(summary.exerciseMinutes) == (day?.exerciseMinutes ?? 0))
        }
    }

    /// Every planned half-covered iPhone sample shows up as exactly one partly covered sample,
    /// for steps and for distance; the rest are fully covered or not covered at all.
    @Test func partialOverlapsAreTheKnownOnes() throws {
        let truths = ExportGenerator(options: ExportOptions(years: 1, seed: 5)).truths()
        #expect(truths.plannedPartialOverlaps > 0)
        for metric in ["steps", "distance"] {
            let tally = try #require(truths.overlapTallies[metric])
            #expect(tally.partlyCovered == truths.plannedPartialOverlaps)
            #expect(tally.fullyCovered > tally.uncovered)
        }
        #expect(truths.days.count == 365)
        #expect(truths.recordCounts["heartRate", default: 0] > 50_000)
        #expect(truths.workoutCount == truths.workouts.count && truths.workoutCount > 100)
        #expect(truths.sleepNights.count > 300)
        #expect(truths.futureDatedRecordDates == [LocalDate(year: 2030, month: 1, day: 6)])
    }

    /// The de-duplication rule on hand-made samples: covered iPhone time counts for nothing, a
    /// half-covered sample for half, other apps rank below both.
    @Test func deduplicationSemantics() {
        let watch = [(Sample(start: 0, end: 600, value: 100), 0)]
        #expect(CoverageDeduplicator.total(watch + [(Sample(start: 100, end: 500, value: 50), 1)]).sum == 100)
        let half = CoverageDeduplicator.total(watch + [(Sample(start: 300, end: 900, value: 60), 1)])
        #expect(half.sum == 130)
        #expect(half.tally == .init(fullyCovered: 0, partlyCovered: 1, uncovered: 0))
        let third = CoverageDeduplicator.total(watch + [(Sample(start: 500, end: 800, value: 40), 1),
                                                        (Sample(start: 700, end: 1000, value: 30), 2)])
        // iPhone adds 40 × 200/300; the app's 700–800 is covered by the iPhone, 800–1000 counts: 30 × 2/3.
        #expect(abs(third.sum - (100 + 40.0 * 2 / 3 + 20)) < 1e-9)
        #expect(CoverageDeduplicator.total(watch + [(Sample(start: 600, end: 600, value: 7), 1)]).sum == 107)
        #expect(CoverageDeduplicator.total(watch + [(Sample(start: 599, end: 599, value: 7), 1)]).sum == 100)
    }

    /// Reading the XML back with an independent scanner and applying the rule by hand gives the
    /// truths' daily steps and distance, to the unit.
    @Test func truthsMatchTheWrittenRecords() throws {
        let generator = ExportGenerator(options: ExportOptions(seed: 11, quirks: .none, days: 45))
        let truths = generator.truths()
        let records = RecordScanner.records(in: try generator.xmlBytes())
        #expect(records.count == truths.totalRecords - 0)
        let zone = try #require(TimeZone(identifier: "Europe/Paris"))
        for (type, metric, factor) in [("HKQuantityTypeIdentifierStepCount", DailyTotals.Metric.steps, 1.0),
                                       ("HKQuantityTypeIdentifierDistanceWalkingRunning", .distance, 1000.0)] {
            let mine = records.filter { $0.type == type }
            let watch = mine.filter { $0.source.contains("Watch") }
            var perDay = [LocalDate: Double]()
            for record in mine {
                var value = record.value * factor
                if !record.source.contains("Watch") {
                    let covered = watch.reduce(Int64(0)) { $0 + max(0, min($1.end, record.end) - max($1.start, record.start)) }
                    value *= Double(record.end - record.start - covered) / Double(record.end - record.start)
                }
                let offset = zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(record.start)))
                let day = LocalDate(daysSinceEpoch: Int((record.start + Int64(offset)) / 86400))
                perDay[day, default: 0] += value
            }
            for day in truths.days {
                let expected = day[metric] ?? 0
                #expect(abs((perDay[day.date] ?? 0) - expected) < 1e-6 * max(1, expected), "\(metric) on \(day.date)")
            }
        }
    }

    @Test func truthsRoundTripThroughJSON() throws {
        let truths = ExportGenerator(options: ExportOptions(seed: 2, days: 20)).truths()
        let data = try JSONEncoder().encode(truths)
        #expect(try JSONDecoder().decode(ExportTruths.self, from: data) == truths)
        #expect(String(decoding: data, as: UTF8.self).contains("\"date\":\"2025-06-14\""))
    }
}
