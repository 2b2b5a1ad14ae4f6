import EfferentTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Records no phone could have written, through the real binaries: one dated 0001-01-01 hung the
/// import forever (the calendar looped); a step count of 1.8e308 imported and then failed every
/// push; negative steps, an offset of +9999, a stretch that ends before it starts and a ten-year
/// sleep were accepted. Each is refused by count and reason in the import summary, the rest of
/// the export imports, and the push goes through.
@Suite(.serialized) struct PoisonedRecordTests {
    static func record(_ type: String, _ start: String, _ end: String, value: String? = nil, unit: String? = "count") -> String {
        var attributes = "type=\"\(type)\" sourceName=\"Phone\""
        if let unit { attributes += " unit=\"\(unit)\"" }
        attributes += " startDate=\"\(start)\" endDate=\"\(end)\""
        if let value { attributes += " value=\"\(value)\"" }
        return " <Record \(attributes)/>"
    }

    @Test func recordsNoPhoneCouldWriteAreRefusedByCountAndTheRestImports() throws {
        let work = NSTemporaryDirectory() + "efferent-poison-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: work) }
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let steps = "HKQuantityTypeIdentifierStepCount", sleep = "HKCategoryTypeIdentifierSleepAnalysis"
        let body = [
            Self.record(steps, "2024-03-01 09:00:00 +0100", "2024-03-01 09:10:00 +0100", value: "812"),
            Self.record(steps, "0001-01-01 00:00:00 +0000", "0001-01-01 00:10:00 +0000", value: "10"),
            Self.record(steps, "2024-03-01 10:00:00 +0100", "2024-03-01 10:10:00 +0100", value: "1.7976931348623157e308"),
            Self.record(steps, "2024-03-01 11:00:00 +0100", "2024-03-01 11:10:00 +0100", value: "-500"),
            Self.record(steps, "2024-03-01 12:00:00 +9999", "2024-03-01 12:10:00 +9999", value: "40"),
            Self.record(steps, "2024-03-01 13:10:00 +0100", "2024-03-01 13:00:00 +0100", value: "40"),
            Self.record("HKQuantityTypeIdentifierHeartRate", "2024-03-01 14:00:00 +0100", "2024-03-01 14:00:00 +0100",
                        value: "1e999", unit: "count/min"),
            Self.record(sleep, "2014-03-01 23:00:00 +0100", "2024-03-02 07:00:00 +0100", value: "HKCategoryValueSleepAnalysisAsleepCore", unit: nil),
            Self.record(sleep, "2024-03-01 23:00:00 +0100", "2024-03-02 07:00:00 +0100", value: "HKCategoryValueSleepAnalysisAsleepCore", unit: nil),
        ].joined(separator: "\n")
        let xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n <ExportDate value=\"2024-03-05 08:00:00 +0100\"/>\n"
            + body + "\n</HealthData>\n"
        try xml.write(toFile: work + "/export.xml", atomically: true, encoding: .utf8)

        let server = try ServerProcess(data: work + "/service", arguments: ["--admission", "open"])
        let writer = CommandRunner(home: work + "/phone")
        #expect(try writer.run(["init", "--server", server.url, "--time-zone", "Europe/Paris"]).status == 0)
        let imported = try writer.run(["import", work + "/export.xml"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let summary = imported.stdout
        #expect(summary.contains("2 new"), "\(summary)")
        let notCarried = try #require(summary.split(separator: "\n").first { $0.hasPrefix("not carried: ") }, "\(summary)")
        for reason in ["dated before 1900 or more than a year ahead", "a value outside 0…10000000 count",
                       "a date that names no real time", "ends before it starts", "a value that is not a finite number",
                       "lasting longer than any sleep record can (2 days)"] {
            #expect(notCarried.contains(reason), "\(reason) in \(notCarried)")
        }
        #expect(notCarried.contains("2 HKQuantityTypeIdentifierStepCount (a value outside 0…10000000 count)"), "\(notCarried)")
        let pushed = try writer.run(["push"])
        #expect(pushed.status == 0 && pushed.stdout.contains("0 refused, 0 parked"), "\(pushed.stdout) \(pushed.stderr)")
    }
}
