import Foundation
import Testing
@testable import EfferentExportGenerator

@Suite struct ExportDeterminismTests {
    /// One seed, one set of bytes; another seed, other bytes.
    @Test func sameSeedSameBytes() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var zips = [Data]()
        for (name, seed) in [("a", UInt64(21)), ("b", 21), ("c", 22)] {
            let url = folder.appendingPathComponent("\(name).zip")
            try ExportGenerator(options: ExportOptions(seed: seed, days: 120)).writeZip(to: url)
            zips.append(try Data(contentsOf: url))
        }
        #expect(zips[0] == zips[1])
        #expect(zips[0] != zips[2])
        let truthsA = try Data(contentsOf: folder.appendingPathComponent("a.truths.json"))
        let truthsB = try Data(contentsOf: folder.appendingPathComponent("b.truths.json"))
        #expect(truthsA == truthsB)
    }

    /// A one-year quirky export, zip and truths, in a temporary folder within a few seconds.
    @Test func oneYearQuirkyExportIsQuick() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("export.zip")
        let started = Date()
        let truths = try ExportGenerator(options: ExportOptions(years: 1, seed: 8)).writeZip(to: url)
        let seconds = Date().timeIntervalSince(started)
        #expect(seconds < 15, "took \(seconds) s")
        #expect(truths.totalRecords > 200_000)
        let decoded = try JSONDecoder().decode(ExportTruths.self, from: Data(contentsOf: ExportGenerator.truthsURL(beside: url)))
        #expect(decoded == truths)
    }
}
