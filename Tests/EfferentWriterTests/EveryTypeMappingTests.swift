import EfferentCompression
import EfferentClient
import EfferentCore
import EfferentTestSupport
import Foundation
import Testing
@testable import EfferentWriter

/// Decision A.9 on the writer's side: how records of every kind map, what is refused and named,
/// ECG files, beat times in any locale, and the 1 MiB fit of a route-heavy day.
@Suite struct EveryTypeMappingTests {
    func quantity(_ type: String, _ value: Double, _ unit: String?) -> SourceRecord {
        SourceRecord(kind: .quantity, type: type, source: "Watch", start: 1_700_000_000, end: 1_700_000_000, value: value, unit: unit)
    }

    func mapped(_ record: SourceRecord) throws -> MetricMapping.Mapped { try MetricMapping.map(record).get() }

    @Test func quantitiesTakeTheirCanonicalUnitsExactly() throws {
        let glucose = try mapped(quantity("HKQuantityTypeIdentifierBloodGlucose", 5.5, "mmol<180.1558800000541>/L"))
        #expect(glucose.target == .init(metric: "bloodGlucose", isTotal: false, unit: "mg/dL"))
        #expect(abs(glucose.value! - 99.085734) < 1e-6)
        #expect(try mapped(quantity("HKQuantityTypeIdentifierBodyTemperature", 98.6, "degF")).value == 37)
        #expect(try mapped(quantity("HKQuantityTypeIdentifierWalkingSpeed", 3.6, "km/hr")).value == 1)
        #expect(try mapped(quantity("HKQuantityTypeIdentifierVO2Max", 45.2, "mL/min·kg")).target.unit == "ml/kg*min")
        #expect(try mapped(quantity("HKQuantityTypeIdentifierDistanceCycling", 1.5, "km")).target == .init(metric: "distanceCycling", isTotal: true, unit: "m"))
        #expect(try mapped(quantity("HKQuantityTypeIdentifierDietaryVitaminD", 0.01, "mg")).value == 10)
        // The catalogue's own metrics are mapped as before (decision A.6's rows unchanged).
        #expect(try mapped(quantity("HKQuantityTypeIdentifierActiveEnergyBurned", 4.184, "kJ")).value == 4.184 / 4.184)
        #expect(try mapped(quantity("HKQuantityTypeIdentifierBodyMass", 160, "lb")).value == 160 * 0.45359237)
    }

    @Test func whatCannotBeCarriedIsRefusedWithItsReason() throws {
        let unit = MetricMapping.map(quantity("HKQuantityTypeIdentifierBloodGlucose", 5.5, "furlongs"))
        #expect(throws: LeftOut("HKQuantityTypeIdentifierBloodGlucose", .unreadable("written in furlongs, which has no exact conversion to mg/dL"))) {
            try unit.get()
        }
        let category = SourceRecord(kind: .category, type: "HKCategoryTypeIdentifierHeadache", source: "Health", start: 0, end: 60,
                                    category: "HKCategoryValueSeverityUnbearable")
        #expect(throws: LeftOut.self) { try MetricMapping.map(category).get() }
    }

    @Test func categoriesAndNewerTypes() throws {
        let stand = SourceRecord(kind: .category, type: "HKCategoryTypeIdentifierAppleStandHour", source: "Watch", start: 0, end: 3600,
                                 category: "HKCategoryValueAppleStandHourIdle")
        #expect(try mapped(stand).target == .init(metric: "appleStandHour", isTotal: false, unit: nil) && mapped(stand).value == 1)
        let mindful = SourceRecord(kind: .category, type: "HKCategoryTypeIdentifierMindfulSession", source: "Watch", start: 0, end: 300)
        #expect(try mapped(mindful).value == 0)
        // A type newer than the table is still carried, as a reading in the unit it was written in.
        let newer = try mapped(quantity("HKQuantityTypeIdentifierSomethingFromIOS30", 7, "zorks"))
        #expect(newer.target == .init(metric: "somethingFromIOS30", isTotal: false, unit: "zorks") && newer.value == 7)
        // Parts keep their precision: 1e-7° for coordinates.
        let fix = SourceRecord(kind: .part, type: "workoutRoute.latitude", source: "Watch", start: 0, end: 0, value: 48.856612345678)
        #expect(try mapped(fix).value == 48.8566123 && mapped(fix).target.unit == "deg")
        let statistic = SourceRecord(kind: .part, type: "workout.distanceWalkingRunning.sum", source: "Watch", start: 0, end: 60,
                                     value: 8.95512, unit: "km")
        #expect(try mapped(statistic).value == 8955.12 && mapped(statistic).target.unit == "m")
    }

    @Test func beatTimesInEveryLocaleFormat() {
        func seconds(_ text: String) -> Double? { ExportDate.timeOfDay(ArraySlice(text.utf8)) }
        for (text, expected) in [("00:20:37,80", 1237.8), ("10:13:58.26 PM", 80_038.26), ("12:00:01.5 AM", 1.5),
                                 ("3:10:02,11 AM", 11_402.11), ("20:14:07.68", 72_847.68)] {
            #expect(abs((seconds(text) ?? -1) - expected) < 1e-6, "\(text)")
        }
        #expect(seconds("noon") == nil)
        #expect(seconds("25:00:00") == nil)
    }

    /// An ECG file (apple-health-export.md §1.7) in English, and in Portuguese with comma decimals.
    @Test(arguments: [("Recorded Date,2026-08-26 18:15:35 +0100\nClassification,Sinus Rhythm\n", ["-265.868", "-270.112", "12"]),
                      ("Data de registo,2026-08-26 18:15:35 +0100\nClassificação,Ritmo sinusal\n", ["-265,868", "-270,112", "12"])])
    func electrocardiograms(_ header: String, _ voltages: [String]) throws {
        let text = "Name,X\nDate of Birth,\"Jan 15, 1990\"\n" + header + "Symptoms,\nDevice,\"Watch7,11\"\nSample Rate,512 hertz\n\nLead,Lead I\nUnit,µV\n\n"
            + voltages.joined(separator: "\n") + "\n"
        let sink = CollectingSink()
        let reader = ECGReader(sink: sink, file: "electrocardiograms/ecg_2026-08-26.csv")
        try reader.feed(Array(text.utf8))
        #expect(try reader.finish() == 3)
        let recorded = 1_787_764_535.0
        let ecg = try #require(sink.records(ofType: "electrocardiogram").first)
        #expect(ecg.start == recorded && ecg.source == "Watch7,11" && ecg.deviceModel == "Watch")
        #expect(ecg.value == (header.contains("Sinus Rhythm") ? 1 : nil))
        #expect(sink.leftOut.count == (header.contains("Sinus Rhythm") ? 0 : 1), "a classification in another language is named")
        let samples = sink.records(ofType: "electrocardiogram.voltage")
        #expect(samples.map(\.value) == [-265.868, -270.112, 12])
        #expect(samples.map(\.end) == [recorded, recorded + 1, recorded + 2], "their ordinals within the recorded second")
        #expect(samples.allSatisfy { $0.unit == "µV" })
        #expect(try mapped(samples[0]).target.unit == "mcV")
    }

    /// A day of hours of GPS is thinned until it seals under the budget; everything else stays.
    @Test func aRouteHeavyDayIsThinnedToFit() async throws {
        let harness = try await WriterHarness(zone: "UTC")
        let start = 1_717_200_000.0
        let session = try harness.store.beginImport(source: "test", format: "test", full: false)
        let writer = SampleSeriesWriter(sink: session, source: "Watch")
        var noise = SplitMix64(seed: 14)
        for second in 0..<4000 {
            func wander() -> Double { Double(noise.next() % 100_000) * 1e-7 }
            try writer.write(at: start + Double(second), RouteFix(time: nil, latitude: 48.8 + wander(), longitude: 2.3 + wander(),
                                                                 altitude: 35 + wander() * 1000).parts)
        }
        try session.record(heartRate("2024-06-01 12:00:00", 61))
        try session.finish()
        let day = CalendarDay(year: 2024, month: 6, day: 1)!
        let builder = DayBuilder(store: harness.store, hourlyFrom: nil)
        let whole = try builder.fittedBody(for: day, deflater: try Deflater())
        #expect(whole.keptEveryNthFix == 1)
        let fitted = try builder.fittedBody(for: day, deflater: try Deflater(), budget: 20_000)
        #expect(fitted.keptEveryNthFix > 1 && (fitted.deflated?.count ?? .max) <= 20_000)
        guard case let .columnar(columns) = try fitted.body.decoded() else { Issue.record("not layout 2"); return }
        let latitudes = columns.events.filter { $0.metric == "workoutRoute.latitude" }
        #expect(latitudes.count == (4000 + fitted.keptEveryNthFix - 1) / fitted.keptEveryNthFix)
        #expect(columns.events.filter { $0.metric == "workoutRoute.altitude" }.count == latitudes.count, "a fix keeps all its fields")
        #expect(columns.events.contains { $0.metric == "heartRate" })
    }
}
