import Foundation
import Testing
@testable import EfferentWriter

/// A synthetic 64 MB export, generated on the fly into a temporary file, streamed through the readers.
@Suite struct ExportStreamingTests {
    /// One block of records in the shapes real exports use (multi-line attributes, metadata children,
    /// sleep with a time zone, a workout with statistics); repeated until the file is big enough.
    private static func block(_ index: Int) -> (bytes: [UInt8], records: Int) {
        var text = ""
        var records = 0
        let device = "&lt;&lt;HKDevice: 0x3012772a0&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,7, software:10.2&gt;"
        for minute in 0..<1000 {
            let stamp = String(format: "2024-01-%02d %02d:%02d:%02d +0200", 1 + index % 28, minute / 60 % 24, minute % 60, index % 60)
            switch minute % 5 {
            case 0, 1:
                text += """
                 <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Alexandre’s Apple Watch" sourceVersion="10.2"
                  device="\(device)"
                  unit="count/min" creationDate="\(stamp)" startDate="\(stamp)" endDate="\(stamp)" value="\(60 + minute % 40)">
                  <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="0"/>
                 </Record>

                """
            case 2:
                text += " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"Alexandre’s iPhone\" sourceVersion=\"17.2.1\" unit=\"count\" creationDate=\"\(stamp)\" startDate=\"\(stamp)\" endDate=\"\(stamp)\" value=\"\(minute)\"/>\n"
            case 3:
                text += " <Record type=\"HKQuantityTypeIdentifierActiveEnergyBurned\" sourceName=\"Alexandre’s Apple Watch\" sourceVersion=\"10.2\" device=\"\(device)\" unit=\"kcal\" creationDate=\"\(stamp)\" startDate=\"\(stamp)\" endDate=\"\(stamp)\" value=\"0.\(minute)\"/>\n"
            default:
                text += " <Record type=\"HKCategoryTypeIdentifierSleepAnalysis\" sourceName=\"Alexandre’s Apple Watch\" sourceVersion=\"10.2\" creationDate=\"\(stamp)\" startDate=\"\(stamp)\" endDate=\"\(stamp)\" value=\"HKCategoryValueSleepAnalysisAsleepCore\">\n  <MetadataEntry key=\"HKTimeZone\" value=\"Europe/Amsterdam\"/>\n </Record>\n"
            }
            records += 1
        }
        return (Array(text.utf8), records)
    }

    @Test func aLargeExportStreamsThrough() throws {
        let target = 64 << 20
        let folder = try ExportFixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("export.xml")
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        var written = 0
        var expected = 0
        try handle.write(contentsOf: Data(ExportFixtures.healthXML("").utf8.dropLast("</HealthData>\n".utf8.count)))
        let blocks = (0..<8).map(Self.block)
        var index = 0
        while written < target {
            let block = blocks[index % blocks.count]
            try handle.write(contentsOf: Data(block.bytes))
            written += block.bytes.count
            expected += block.records
            index += 1
        }
        try handle.write(contentsOf: Data("</HealthData>\n".utf8))
        try handle.close()

        let sink = CountingSink()
        var lastProgress: ExportProgress?
        let started = Date()
        let tally = try ExportImporter.read(url, into: sink) { lastProgress = $0 }
        let seconds = Date().timeIntervalSince(started)
        #expect(tally.records == expected)
        #expect(sink.records == expected)
        #expect(lastProgress?.bytesRead == lastProgress?.totalBytes)
        let peak = Self.peakResidentMegabytes()
        print("export streaming: \(expected) records, \(written >> 20) MiB in \(String(format: "%.2f", seconds)) s = \(Int(Double(expected) / seconds)) records/s; peak RSS \(peak.map(String.init) ?? "?") MB")
        // The peak is the whole test process's (other suites run beside this one), so it is printed
        // here; the bound on an import's own memory is checked on the real binary in
        // EfferentCLITests and measured on a 10-year export by scripts/bench.
        _ = peak
    }

    /// VmHWM from /proc/self/status, in megabytes (nil where /proc is absent).
    static func peakResidentMegabytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return nil }
        return kilobytes / 1024
    }
}
