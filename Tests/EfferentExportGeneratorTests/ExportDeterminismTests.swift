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

    /// A one-year quirky export writes its zip and truths, and the truths file reads back equal.
    /// (How long generation takes is a figure of `scripts/bench loop`, never a test's condition.)
    @Test func oneYearQuirkyExportWritesItsTruths() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("export.zip")
        let truths = try ExportGenerator(options: ExportOptions(years: 1, seed: 8)).writeZip(to: url)
        #expect(truths.totalRecords > 200_000)
        let decoded = try JSONDecoder().decode(ExportTruths.self, from: Data(contentsOf: ExportGenerator.truthsURL(beside: url)))
        #expect(decoded == truths)
    }
}
