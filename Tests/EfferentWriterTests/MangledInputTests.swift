import EfferentTestSupport
import EfferentReceiver
import Foundation
import Testing
@testable import EfferentWriter

/// Outside bytes, mangled at random (seeded): every reader throws or succeeds, and never traps.
@Suite struct MangledInputTests {
    @Test func mangledHealthXMLNeverTraps() throws {
        // dogsheep-healthkit-to-sqlite/export.xml — dogsheep/healthkit-to-sqlite tests (Apache-2.0).
        let original = try [UInt8](Data(contentsOf: ExportFixtures.sample("dogsheep-healthkit-to-sqlite/export.xml")))
        var random = SeededBytes(seed: 0xEFFE_2E47)
        var completed = 0
        for round in 0..<1500 {
            let bytes = random.mangle(original)
            let sink = CollectingSink()
            let reader = HealthExportReader(sink: sink, label: "export.xml")
            do {
                var offset = 0
                let size = 1 + round % 97
                while offset < bytes.count {
                    try reader.feed(Array(bytes[offset..<min(offset + size, bytes.count)]))
                    offset += size
                }
                try reader.finish()
                completed += 1
            } catch is ExportError {
                continue
            }
        }
        #expect(completed > 0)
    }

    @Test func mangledZipsNeverTrap() throws {
        var zip = ZipBuilder()
        zip.add("apple_health_export/export.xml", ExportFixtures.healthXML("<ExportDate value=\"2024-06-01 08:10:05 +0200\"/>"), deflate: true)
        zip.add("apple_health_export/workout-routes/r.gpx", ZipAndLocatorTests.gpx(points: 2))
        let original = try zip.build()
        let folder = try ExportFixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var random = SeededBytes(seed: 0x21B)
        for round in 0..<400 {
            let url = folder.appendingPathComponent("export-\(round).zip")
            try Data(random.mangle(original)).write(to: url)
            do {
                _ = try ExportImporter.read(url, into: CollectingSink())
            } catch is ZipError {
            } catch is ExportError {
            }
        }
    }

    @Test func mangledNDJSONNeverTraps() throws {
        // pulshealth-ndjson/02-workout-route-series.ndjson — PulsHealth/pulshealth docs/protocol/fixtures (Apache-2.0).
        let original = try [UInt8](Data(contentsOf: ExportFixtures.sample("pulshealth-ndjson/02-workout-route-series.ndjson")))
        var random = SeededBytes(seed: 7)
        for _ in 0..<500 {
            let reader = PulsHealthReader(sink: CollectingSink(), label: "b.ndjson")
            do {
                try reader.feed(random.mangle(original))
                try reader.finish()
            } catch is ExportError {
            }
        }
    }
}
