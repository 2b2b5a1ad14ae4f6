import EfferentReceiver
import Foundation
import Testing
@testable import EfferentWriter

/// Every file in `Tests/Fixtures/samples/`, read with exact counts and a few exact values.
@Suite struct SampleExportTests {
    private let heartRate = "HKQuantityTypeIdentifierHeartRate"
    private let sleep = "HKCategoryTypeIdentifierSleepAnalysis"

    /// apple-health-parser/export.xml — alxdrcirilo/apple-health-parser tests/data (MIT).
    @Test func appleHealthParserXML() throws {
        let sink = CollectingSink()
        let tally = try ExportImporter.read(ExportFixtures.sample("apple-health-parser/export.xml"), into: sink)
        #expect(tally == ExportTally(records: 8, activitySummaries: 0, routes: 0))
        try checkAppleHealthParser(sink)
    }

    /// apple-health-parser/export.zip — the same (MIT), zipped on a Mac with `__MACOSX/` and `.DS_Store` entries.
    @Test func appleHealthParserZip() throws {
        let url = ExportFixtures.sample("apple-health-parser/export.zip")
        guard case let .zip(archive, main, routes) = try ExportLocator.locate(url) else { Issue.record("not located as a zip"); return }
        #expect(main.name == "apple_health_export/export.xml")
        #expect(routes.isEmpty)
        #expect(archive.entries.count == 5)
        #expect(archive.entries.filter(\.isSideFile).count == 3)
        var reports = [ExportProgress]()
        let sink = CollectingSink()
        let tally = try ExportImporter.read(url, into: sink) { reports.append($0) }
        #expect(tally.records == 8)
        #expect(reports.last?.records == 8)
        #expect(reports.last?.totalBytes == 2243)
        #expect((reports.last?.bytesRead ?? 0) > 0)
        try checkAppleHealthParser(sink)
    }

    private func checkAppleHealthParser(_ sink: CollectingSink) throws {
        #expect(sink.records(ofType: heartRate).count == 2)
        #expect(sink.records(ofType: "HKQuantityTypeIdentifierActiveEnergyBurned").count == 2)
        let first = try #require(sink.records.first)
        #expect(first == SourceRecord(kind: .quantity, type: heartRate, source: "Alexandre's Apple Watch", deviceModel: "Watch",
                                      start: 1_704_063_696, end: 1_704_063_696, value: 74, unit: "count/min"))
        #expect(sink.records[2].value == 0.12)
        #expect(sink.records[2].unit == "kcal")
        // The stand-time record has no device attribute.
        #expect(sink.records[5].deviceModel == nil)
        #expect(sink.records[5].unit == "min")
        // iPhone's InBed and the Watch's AsleepCore for the same night, each with its HKTimeZone.
        let night = sink.records(ofType: sleep)
        #expect(night == [
            SourceRecord(kind: .category, type: sleep, source: "Alexandre's iPhone", start: 1_704_063_328, end: 1_704_063_413,
                         category: "HKCategoryValueSleepAnalysisInBed", timeZone: "Europe/Amsterdam"),
            SourceRecord(kind: .category, type: sleep, source: "Alexandre's Apple Watch", start: 1_704_072_473, end: 1_704_073_223,
                         category: "HKCategoryValueSleepAnalysisAsleepCore", timeZone: "Europe/Amsterdam"),
        ])
    }

    /// dogsheep-healthkit-to-sqlite/export.xml — dogsheep/healthkit-to-sqlite tests (Apache-2.0).
    @Test func dogsheepXML() throws {
        let sink = CollectingSink()
        let tally = try ExportImporter.read(ExportFixtures.sample("dogsheep-healthkit-to-sqlite/export.xml"), into: sink)
        #expect(tally == ExportTally(records: 3, activitySummaries: 2, routes: 1))
        #expect(sink.records[0].type == "HKQuantityTypeIdentifierBodyMassIndex")
        #expect(sink.records[0].source == "Health Mate")
        #expect(sink.records[0].start == 1_460_993_132)
        #expect(sink.records[0].value == 22.5312)
        #expect(sink.records[0].unit == "count")
        #expect(sink.records[0].timeZone == nil)
        #expect(sink.records[1].deviceModel == "Watch")
        #expect(sink.records[1].start == 1_536_571_735)
        // This export writes "Apple Watch" with a no-break space (U+00A0): kept as written, opaque.
        #expect(sink.records[1].source == "Apple\u{00A0}Watch")
        let workout = sink.samples[2]
        #expect(workout == SourceRecord(kind: .workout, type: "HKWorkoutTypeIdentifier", source: "Apple\u{00A0}Watch", start: 1_479_133_541,
                                        end: 1_479_133_852, activity: "HKWorkoutActivityTypeRunning",
                                        duration: 5.19412346680959 * 60, timeZone: "America/Los_Angeles"))
        // The inline Location route, whose source carries U+2019.
        #expect(sink.routes == [WorkoutRoute(file: nil, source: "Simon\u{2019}s iPhone", points: 2, start: 1_479_133_544, end: 1_479_133_544)])
        #expect(sink.summaries.map(\.day) == ["2016-11-15", "2016-11-16"])
        #expect(sink.summaries.map(\.activeEnergyKilocalories) == [590.252, 323.513])
        #expect(sink.summaries.map(\.exerciseMinutes) == [68, 39])
        #expect(sink.summaries.map(\.standHours) == [13, 9])
        #expect(sink.summaries[0].rings == ["activeEnergyBurned": 590.252, "activeEnergyBurnedGoal": 630, "appleExerciseTime": 68,
                                            "appleExerciseTimeGoal": 30, "appleStandHours": 13, "appleStandHoursGoal": 12])
        // The inline route's two fixes share a second: ordinals 0 and 1 keep them apart (decision A.9).
        let latitudes = sink.records(ofType: "workoutRoute.latitude")
        #expect(latitudes.map(\.end) == [1_479_133_544, 1_479_133_545] && latitudes.allSatisfy { $0.start == 1_479_133_544 })
        #expect(sink.records(ofType: "workoutRoute.course").isEmpty, "course -1 is Core Location's invalid")
        // The legacy totals are the workout's statistics; the weather is measured metadata.
        #expect(sink.records(ofType: "workout.distanceWalkingRunning.sum").map(\.value) == [0.4971749504535062])
        #expect(sink.records(ofType: "workout.distanceWalkingRunning.sum").map(\.unit) == ["mi"])
        #expect(sink.records(ofType: "workout.activeEnergy.sum").map(\.value) == [48.74499999999999])
        #expect(sink.records(ofType: "workout.weatherTemperature").map(\.unit) == ["degF"])
        #expect(sink.records(ofType: "workout.weatherHumidity").map(\.value) == [0.96])
    }

    /// dogsheep-healthkit-to-sqlite/zip_contents/ — same (Apache-2.0): an unzipped export folder whose
    /// workout references `/workout-routes/route_2019-06-11_3.00pm.gpx`.
    @Test func dogsheepFolderWithGPX() throws {
        let url = ExportFixtures.sample("dogsheep-healthkit-to-sqlite/zip_contents")
        guard case let .xml(xml, routes) = try ExportLocator.locate(url) else { Issue.record("not located as XML"); return }
        #expect(xml.lastPathComponent == "export.xml")
        #expect(routes.map(\.lastPathComponent) == ["route_2019-06-11_3.00pm.gpx"])
        let sink = CollectingSink()
        let tally = try ExportImporter.read(url, into: sink)
        #expect(tally == ExportTally(records: 3, activitySummaries: 2, routes: 1))
        // GPX names no source: its fixes take the one the XML's WorkoutRoute names.
        #expect(sink.routes == [WorkoutRoute(file: "workout-routes/route_2019-06-11_3.00pm.gpx", source: "Simon\u{2019}s iPhone", points: 3,
                                             start: 1_560_290_442, end: 1_560_290_443)])
        #expect(sink.records(ofType: "workoutRoute.longitude").map(\.value) == [-122.396397, -122.396396, -122.396394])
        #expect(sink.records(ofType: "workoutRoute.longitude").map(\.end) == [1_560_290_442, 1_560_290_443, 1_560_290_443])
        #expect(sink.records(ofType: "workoutRoute.longitude").allSatisfy { $0.source == "Simon\u{2019}s iPhone" })
        #expect(sink.samples[2].activity == "HKWorkoutActivityTypeRunning")
    }

    /// The same folder zipped in the test (stored XML, deflated GPX), as the Health app ships it.
    @Test func dogsheepZippedWithGPX() throws {
        let folder = ExportFixtures.sample("dogsheep-healthkit-to-sqlite/zip_contents/apple_health_export")
        var zip = ZipBuilder()
        zip.add("apple_health_export/export.xml", try [UInt8](Data(contentsOf: folder.appendingPathComponent("export.xml"))))
        zip.add("apple_health_export/workout-routes/route_2019-06-11_3.00pm.gpx",
                try [UInt8](Data(contentsOf: folder.appendingPathComponent("workout-routes/route_2019-06-11_3.00pm.gpx"))), deflate: true)
        let url = try ExportFixtures.file("export.zip", try zip.build())
        let sink = CollectingSink()
        #expect(try ExportImporter.read(url, into: sink) == ExportTally(records: 3, activitySummaries: 2, routes: 1))
        #expect(sink.routes.first?.file == "workout-routes/route_2019-06-11_3.00pm.gpx")
        #expect(sink.routes.first?.points == 3)
    }

    /// pulshealth-ndjson/01-quantity-category.ndjson — PulsHealth/pulshealth docs/protocol/fixtures (Apache-2.0).
    @Test func pulsHealthQuantityAndCategory() throws {
        let url = ExportFixtures.sample("pulshealth-ndjson/01-quantity-category.ndjson")
        guard case let .lines(_, format) = try ExportLocator.locate(url, lineFormats: [PulsHealthReader.format]), format.name == "pulshealth-ndjson" else { Issue.record("not located as PulsHealth"); return }
        let sink = CollectingSink()
        #expect(try ExportImporter.read(url, into: sink, lineFormats: [PulsHealthReader.format]).records == 3)
        #expect(sink.records[0] == SourceRecord(kind: .quantity, type: heartRate, source: "Apple Watch", deviceModel: "Apple Watch",
                                                start: 1_718_000_000, end: 1_718_000_005, value: 62.5, unit: "count/min"))
        #expect(sink.records[1].value == 64)
        #expect(sink.records[2] == SourceRecord(kind: .category, type: sleep, source: "Apple Watch", start: 1_718_000_000, end: 1_718_003_600,
                                                category: "HKCategoryValueSleepAnalysisAsleepCore"))
    }

    /// pulshealth-ndjson/02-workout-route-series.ndjson — same (Apache-2.0): the workout, then its statistics, events,
    /// activity and route fixes as parts, and its series points as heart-rate samples (decision A.9).
    @Test func pulsHealthWorkout() throws {
        let sink = CollectingSink()
        #expect(try ExportImporter.read(ExportFixtures.sample("pulshealth-ndjson/02-workout-route-series.ndjson"), into: sink, lineFormats: [PulsHealthReader.format]).records == 1)
        #expect(sink.samples.prefix(1) == [SourceRecord(kind: .workout, type: "HKWorkoutTypeIdentifier", source: "Apple Watch", deviceModel: "Apple Watch",
                                              start: 1_718_000_000, end: 1_718_003_600.5, activity: "running", resolvedActivity: "37",
                                              duration: 3600.5)], "the app's word, and HealthKit's number for it")
        #expect(sink.records(ofType: "workout.heartRate.average").map(\.value) == [152])
        #expect(sink.records(ofType: "workout.activeEnergy.sum").map(\.value) == [450.2])
        #expect(sink.records(ofType: "workout.distanceWalkingRunning.sum").map(\.value) == [8046.7])
        #expect(sink.records(ofType: "workout.event").map(\.value) == [3, 7])
        #expect(sink.records(ofType: "workout.activity").map(\.duration) == [3600.5])
        #expect(sink.records(ofType: "workoutRoute.latitude").map(\.value) == [37.3349, 37.335])
        #expect(sink.records(ofType: "workoutRoute.altitude").map(\.value) == [12.5], "the second fix has no altitude")
        #expect(sink.records(ofType: heartRate).map(\.value) == [120, 135.5])
        #expect(sink.routes.map(\.points) == [2])
    }
}
