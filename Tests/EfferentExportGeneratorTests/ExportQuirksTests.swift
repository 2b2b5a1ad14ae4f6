import Foundation
import Testing
@testable import EfferentExportGenerator

@Suite struct ExportQuirksTests {
    static func text(_ quirks: ExportQuirks, seed: UInt64 = 9) throws -> String {
        String(decoding: try ExportGenerator(options: ExportOptions(seed: seed, quirks: quirks, days: 60)).xmlBytes(), as: UTF8.self)
    }

    @Test func quirkyProfileHasEveryQuirk() throws {
        let xml = try Self.text(.all)
        #expect(xml.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE HealthData [\n<!-- HealthKit Export Version: 13 -->"))
        #expect(xml.contains("\u{0B}"))
        #expect(xml.contains("sourceName=\"Camille&#8217;s Apple Watch\""))
        #expect(xml.contains("sourceName=\"Camille’s iPhone\""))
        #expect(xml.contains("unit=\"mL/min&#183;kg\""))
        #expect(xml.contains("startDate=\"2030-01-06 "))
        #expect(xml.contains("unit=\"kJ\""))
        #expect(xml.contains("unit=\"lb\""))
        #expect(xml.contains("\n  sourceVersion=\""))
        #expect(xml.contains("<FileReference path=\"/workout-routes/route_"))
        #expect(xml.contains("HKCategoryValueSleepAnalysisAsleepREM"))
        #expect(xml.hasSuffix("</HealthData>\n"))
        // Recent workouts list each metadata key twice.
        let workout = try #require(xml.components(separatedBy: "<Workout ").last)
        #expect(workout.components(separatedBy: "key=\"HKTimeZone\"").count == 3)
    }

    @Test func cleanProfileHasNone() throws {
        let xml = try Self.text(.none)
        #expect(xml.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_FR\">"))
        for quirk in ["\u{0B}", "&#8217;", "&#183;", "2030-01-06", "\n  sourceVersion"] { #expect(!xml.contains(quirk)) }
    }

    /// The iOS 16 DTD lacks the `>` closing VisionPrescription's attribute list.
    @Test func malformedDoctype() {
        let good = HealthDoctype.text(.version13), bad = HealthDoctype.text(.malformedVersion12)
        #expect(good.count == bad.count + 1)
        #expect(bad.contains("Export Version: 12"))
        #expect(bad.contains("expirationDate    CDATA #IMPLIED\n\n<!ELEMENT RightEye"))
    }

    /// Older ranges write the legacy sleep string and legacy workout totals.
    @Test func erasShowTheirFormats() throws {
        let xml = String(decoding: try ExportGenerator(options: ExportOptions(seed: 1, quirks: .none)).xmlBytes(), as: UTF8.self)
        for piece in ["\"HKCategoryValueSleepAnalysisAsleep\"", "HKCategoryValueSleepAnalysisAsleepUnspecified",
                      "HKCategoryValueSleepAnalysisInBed", "totalEnergyBurned=", "<WorkoutStatistics ", "<WorkoutActivity ",
                      "HKMetadataKeyHeartRateMotionContext", "<InstantaneousBeatsPerMinute bpm=",
                      "HKCorrelationTypeIdentifierBloodPressure", "HKCorrelationTypeIdentifierFood", "<ActivitySummary "] {
            #expect(xml.contains(piece), "\(piece)")
        }
    }
}
