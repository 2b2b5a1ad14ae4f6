import EfferentClient
import EfferentCore
import EfferentExportGenerator
@testable import EfferentServer
@testable import EfferentWriter
import Foundation
import Testing

/// Four months of iPhone + Watch overlap with every quirk (every era of the generator's formats), written by the generator with its true
/// answers, imported, pushed to the real service and checked day by day.
@Suite struct GeneratedExportTests {
    static func generate(_ directory: String, quirks: ExportQuirks = .all) throws -> (URL, ExportTruths) {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let url = URL(fileURLWithPath: directory + "/export.zip")
        let truths = try ExportGenerator(options: ExportOptions(years: 1, seed: 11, quirks: quirks, days: 120)).writeZip(to: url)
        return (url, truths)
    }

    @Test func aQuirkyExportImportsPushesAndMatchesTheTruths() async throws {
        let harness = try await WriterHarness(zone: "Europe/Paris", now: Date(timeIntervalSince1970: 1_749_988_800))
        let (url, truths) = try Self.generate(harness.directory + "/gen")
        let session = try harness.store.beginImport(source: "export.zip", format: "apple-zip", full: true)
        let tally = try ExportImporter.read(url, into: session)
        try session.finish()
        #expect(tally.activitySummaries == truths.activitySummaries.count)
        #expect(session.seen + session.skipped == tally.records)

        // Every day's de-duplicated totals equal the generator's truths.
        let builder = DayBuilder(store: harness.store, hourlyFrom: nil)
        var compared = 0
        for truth in truths.days {
            let day = CalendarDay(year: truth.date.year, month: truth.date.month, day: truth.date.day)!
            let events = try builder.events(for: day)
            func total(_ metric: String) -> Double? { events.first { $0.metric == metric && $0.bucket == .day }?.value }
            let pairs: [(String, Double?)] = [
                ("steps", truth.steps), ("distanceWalkingRunning", truth.distanceMeters), ("flightsClimbed", truth.flights),
                ("activeEnergy", truth.activeEnergyKcal), ("basalEnergy", truth.basalEnergyKcal),
                ("exerciseTime", truth.exerciseMinutes), ("standTime", truth.standMinutes), ("dietaryEnergy", truth.dietaryEnergyKcal),
            ]
            for (metric, expected) in pairs {
                let ours = total(metric)
                let agrees = switch (ours, expected) {
                case (nil, nil): true
                case let (a?, b?): abs(a - b) <= max(0.001, abs(b) * 1e-9)
                default: false
                }
                #expect(agrees, "\(metric) on \(day): ours \(ours.map { "\($0)" } ?? "none"), true \(expected.map { "\($0)" } ?? "none")")
                compared += 1
            }
        }
        #expect(compared > 900)

        // Records are kept as they are: one per top-level record, correlation children not doubled.
        for metric in ["heartRate", "restingHeartRate", "heartRateVariability", "respiratoryRate", "oxygenSaturation", "bodyMass"] {
            let count = try harness.store.db.statement("SELECT count(*) FROM record WHERE metric = ?").first([.text(metric)]) { $0.int64(0) }
            #expect(Int(count ?? -1) == truths.recordCounts[metric], "\(metric)")
        }
        let workouts = try harness.store.db.statement("SELECT count(*) FROM record WHERE metric = 'workout'").first { $0.int64(0) }
        #expect(Int(workouts ?? -1) == truths.workoutCount)

        // Apple's own activity summaries agree with our totals.
        let check = try TotalsCheck.run(builder: builder)
        #expect(check.activeEnergy.compared == truths.activitySummaries.count && check.activeEnergy.agreeing == check.activeEnergy.compared)
        #expect(check.exerciseTime.agreeing == check.exerciseTime.compared)

        // Pushed, every day reads back through the core as built; the future-dated one waits.
        let report = try await harness.pusher().run(check: .never)
        #expect(report.refused == 0 && report.sent > 110)
        let sample = CalendarDay(year: truths.days[60].date.year, month: truths.days[60].date.month, day: truths.days[60].date.day)!
        let archived = try #require(try await harness.archivedEvents(sample))
        #expect(Set(archived) == Set(try builder.events(for: sample)))
        #expect(try harness.store.parkedDays().isEmpty)
        #expect(try harness.store.pendingDays().allSatisfy { $0.year >= 2030 }, "only the future-dated day still waits")

        // Importing the same export again adds nothing and sends nothing.
        let again = try harness.store.beginImport(source: "export.zip", format: "apple-zip", full: true)
        _ = try ExportImporter.read(url, into: again)
        try again.finish()
        #expect(again.added == 0 && again.removed == 0)
        #expect(try await harness.pusher().run(check: .never).sent == 0)
    }
}
