import EfferentClient
import EfferentCore
import EfferentExportGenerator
@testable import EfferentReader
@testable import EfferentServer
@testable import EfferentWriter
import Foundation
import Testing

/// Four months of iPhone + Watch overlap with every quirk and every type the generator writes
/// (every era of its formats), written with its true answers, imported, pushed to the real
/// service, synced by the reader and checked type by type (issue 14's "Done when").
@Suite struct GeneratedExportTests {
    static func generate(_ directory: String, quirks: ExportQuirks = .all) throws -> (URL, ExportTruths) {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let url = URL(fileURLWithPath: directory + "/export.zip")
        let truths = try ExportGenerator(options: ExportOptions(years: 1, seed: 11, quirks: quirks, days: 120)).writeZip(to: url)
        return (url, truths)
    }

    /// Cumulative metrics with their truths, by the name decision A.9 gives them.
    static let cumulative: [(metric: String, truth: DailyTotals.Metric)] = [
        ("steps", .steps), ("distanceWalkingRunning", .distance), ("flightsClimbed", .flights), ("activeEnergy", .activeEnergy),
        ("basalEnergy", .basalEnergy), ("exerciseTime", .exerciseTime), ("standTime", .standTime), ("dietaryEnergy", .dietaryEnergy),
        ("distanceCycling", .distanceCycling), ("distanceSwimming", .distanceSwimming), ("swimmingStrokeCount", .swimmingStrokes),
    ]

    @Test func aQuirkyExportImportsPushesAndMatchesTheTruths() async throws {
        let harness = try await WriterHarness(zone: "Europe/Paris", now: Date(timeIntervalSince1970: 1_749_988_800))
        let (url, truths) = try Self.generate(harness.directory + "/gen")
        let session = try harness.store.beginImport(source: "export.zip", format: "apple-zip", full: true)
        let tally = try ExportImporter.read(url, into: session)
        try session.finish()
        #expect(tally.activitySummaries == truths.activitySummaries.count)
        #expect(tally.records == truths.totalRecords + truths.workoutCount)
        #expect(tally.routes == truths.workouts.filter { $0.routeFile != nil }.count)
        #expect(tally.electrocardiograms == truths.partCounts["Electrocardiogram"])
        // Nothing is lost but what the decision leaves out on purpose (characteristics, Health Records)
        // and the quirk's record dated years ahead, which no phone could have measured (issue 19).
        #expect(session.skipped == truths.futureDatedRecordDates.count, "\(session.summary.unreadable.map { "\($0.count) \($0.what)" })")
        #expect(session.summary.unreadable.allSatisfy { $0.what.description.contains("dated before 1900 or more than a year ahead") })
        #expect(Set(session.summary.leftOut.map(\.what)) == [.clinicalDocument, .characteristics])

        // Every day's de-duplicated totals equal the generator's truths.
        let builder = DayBuilder(store: harness.store, hourlyFrom: nil)
        var compared = 0
        for truth in truths.days {
            let day = CalendarDay(year: truth.date.year, month: truth.date.month, day: truth.date.day)!
            let events = try builder.events(for: day)
            for (metric, which) in Self.cumulative {
                let ours = events.first { $0.metric == metric && $0.bucket == .day }?.value
                let expected = truth[which]
                let agrees = switch (ours, expected) {
                case (nil, nil): true
                case let (a?, b?): abs(a - b) <= max(0.001, abs(b) * 1e-9)
                default: false
                }
                #expect(agrees, "\(metric) on \(day): ours \(ours.map { "\($0)" } ?? "none"), true \(expected.map { "\($0)" } ?? "none")")
                compared += 1
            }
        }
        #expect(compared > 1300)
        // Every cumulative record was carried into the store, one row each.
        for (type, count) in truths.typeCounts where QuantityCatalogue.entry(for: type)?.style == .cumulative {
            #expect(session.carried[HealthKitName.metric(for: type)] == count, "\(type)")
        }

        // Apple's own activity summaries agree with our totals.
        let check = try TotalsCheck.run(builder: builder)
        #expect(check.activeEnergy.compared == truths.activitySummaries.count && check.activeEnergy.agreeing == check.activeEnergy.compared)
        #expect(check.exerciseTime.agreeing == check.exerciseTime.compared)

        // Pushed, every day reads back through the core as built; the future-dated one waits.
        let report = try await harness.pusher().run(check: .never)
        #expect(report.refused == 0 && report.sent > 110 && report.thinned.isEmpty)
        let sample = CalendarDay(year: truths.days[100].date.year, month: truths.days[100].date.month, day: truths.days[100].date.day)!
        let archived = try #require(try await harness.archivedEvents(sample))
        #expect(Set(archived) == Set(try builder.events(for: sample)))
        #expect(try harness.store.parkedDays().isEmpty)
        #expect(try harness.store.pendingDays().allSatisfy { $0.year >= 2030 }, "only the future-dated day still waits")

        // Per type: records in the export, events of the matching metric in what the reader synced.
        let source = try await harness.syncedSource()
        let counts = try TypeTable.counts(source)
        var table = TypeTable()
        for (type, count) in truths.typeCounts where QuantityCatalogue.entry(for: type)?.style != .cumulative {
            // The 2030 body-mass record waits for its day (the service takes no day after tomorrow).
            let waiting = type == "HKQuantityTypeIdentifierBodyMass" ? truths.futureDatedRecordDates.count : 0
            table.add(type, HealthKitName.metric(for: type), count - waiting, archived: counts)
        }
        table.add("Workout", "workout", truths.workoutCount, archived: counts)
        for (key, count) in truths.partCounts {
            for metric in Self.metrics(forPart: key) { table.add(key, metric, count, archived: counts) }
        }
        print(table.text(title: "generated export, 120 days (seed 11): export → archive"))
        #expect(table.mismatches.isEmpty, "\(table.mismatches.map { "\($0.what): \($0.exported) → \($0.archived) \($0.metric)" })")
        #expect(table.rows.count > 45)

        // The workouts answer carries the statistics; a route goes out as GPX with every fix.
        let today = CalendarDay(year: 2025, month: 6, day: 15)!
        let workouts = try WorkoutsAnswer(from: source, range: DayRange(since: today.adding(days: -130), until: today))
        #expect(workouts.workouts.count == truths.workoutCount)
        for (ours, truth) in zip(workouts.workouts, truths.workouts) {
            #expect(ours.start == truth.start)
            #expect(abs((ours.activeEnergyKcal ?? -1) - truth.energyKcal) < 1e-6)
            #expect(ours.distanceMeters.map { abs($0 - (truth.distanceMeters ?? -1)) < 1e-6 } ?? (truth.distanceMeters == nil))
            #expect(ours.averageHeartRate == truth.averageHeartRate)
            #expect(ours.routeFixes == truth.routeFixes)
        }
        let routed = try #require(truths.workouts.first { $0.routeFile != nil })
        let gpx = try RouteGPX(from: source, start: routed.start)
        #expect(gpx.fixes.count == routed.routeFixes)
        #expect(gpx.text.components(separatedBy: "<trkpt ").count - 1 == routed.routeFixes)

        // Importing the same export again adds nothing and sends nothing.
        let again = try harness.store.beginImport(source: "export.zip", format: "apple-zip", full: true)
        _ = try ExportImporter.read(url, into: again)
        try again.finish()
        #expect(again.added == 0 && again.removed == 0)
        #expect(try await harness.pusher().run(check: .never).sent == 0)
    }

    /// The metrics a counted element of the export becomes, restated from decision A.9 so the test
    /// does not borrow the writer's own mapping.
    static func metrics(forPart key: String) -> [String] {
        let words = key.split(separator: " ").map(String.init)
        switch words.first {
        case "WorkoutStatistics": return ["workout.\(HealthKitName.metric(for: words[1])).\(words[2])"]
        case "WorkoutActivity" where words.count == 4: return ["workout.activity.\(HealthKitName.metric(for: words[2])).\(words[3])"]
        case "WorkoutActivity": return ["workout.activity"]
        case "WorkoutEvent": return ["workout.event"]
        case "Workout@totalEnergyBurned": return ["workout.activeEnergy.sum"]
        case "Workout@totalDistance":
            return [words[1] == "HKWorkoutActivityTypeCycling" ? "workout.distanceCycling.sum"
                : words[1] == "HKWorkoutActivityTypeSwimming" ? "workout.distanceSwimming.sum" : "workout.distanceWalkingRunning.sum"]
        case "MetadataEntry": return ["workout." + HealthKitName.lowerCamel(words[1].dropFirst(2))]
        case "WorkoutRoute":
            return ["latitude", "longitude", "altitude", "speed", "course", "horizontalAccuracy", "verticalAccuracy"].map { "workoutRoute.\($0)" }
        case "InstantaneousBeatsPerMinute": return ["heartbeatSeries"]
        case "ActivitySummary": return ["activitySummary.\(words[1])"]
        case "Electrocardiogram" where words.count == 1: return ["electrocardiogram", "electrocardiogram.samplingFrequency"]
        case "Electrocardiogram": return ["electrocardiogram.voltage"]
        default: return [key]
        }
    }
}
