import EfferentClient
import EfferentCore
@testable import EfferentReader
@testable import EfferentWriter
import EfferentReceiver
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

/// Issue 14's "Done when" for every real sample in `Tests/Fixtures/samples/`: the records per
/// HealthKit type the file holds — counted here by Foundation's own XML parser and JSON reader,
/// independently of the importer — equal the events of the matching metric in the days the
/// writer builds, as the reader expands them; cumulative types equal their sum as day totals.
@Suite struct SampleArchiveTests {
    /// Imports `path` into a fresh store pinned to `zone` and counts the events of every day it marked.
    static func archive(_ path: String, zone: String) throws -> (counts: [String: Int], totals: [String: Double], session: ImportSession) {
        let folder = try ExportFixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try SourceStore(path: folder.appendingPathComponent("writer.sqlite").path, zone: ZoneCalendar(identifier: zone)!)
        let session = try store.beginImport(source: path, format: "test", full: true)
        _ = try ExportImporter.read(ExportFixtures.sample(path), into: session, lineFormats: [PulsHealthReader.format])
        try session.finish()
        let builder = DayBuilder(store: store, hourlyFrom: nil)
        var counts = [String: Int](), totals = [String: Double]()
        for day in try store.ledgerDays().map(\.day) {
            for item in try MirrorSource.events(of: try builder.body(for: day).bytes, day: day) {
                counts[item.event.metric, default: 0] += 1
                if item.event.bucket == .day { totals[item.event.metric, default: 0] += item.event.value ?? 0 }
            }
        }
        return (counts, totals, session)
    }

    /// apple-health-parser/export.xml (MIT) and dogsheep-healthkit-to-sqlite (Apache-2.0), as XML
    /// and as an unzipped folder with its GPX route.
    @Test(arguments: [("apple-health-parser/export.xml", "Europe/Amsterdam"),
                      ("dogsheep-healthkit-to-sqlite/export.xml", "America/Los_Angeles"),
                      ("dogsheep-healthkit-to-sqlite/zip_contents", "America/Los_Angeles")])
    func appleExports(_ path: String, _ zone: String) throws {
        let (counts, totals, session) = try Self.archive(path, zone: zone)
        let file = path.hasSuffix(".xml") ? ExportFixtures.sample(path)
            : ExportFixtures.sample(path).appendingPathComponent("apple_health_export/export.xml")
        let export = try ExportCensus(xml: file)
        for gpx in export.routeFiles {
            try export.addGPX(file.deletingLastPathComponent().appendingPathComponent(gpx))
        }
        var table = TypeTable()
        for (key, count) in export.counts {
            let metric = export.metrics[key]!
            if QuantityCatalogue.entry(for: key)?.style == .cumulative {
                // A cumulative type travels as day totals: one source, so they sum to its records.
                #expect(abs((totals[metric] ?? -1) - export.sums[key, default: 0]) < 1e-9, "\(key) total")
                #expect(session.carried[metric] == count, "\(key) records carried")
                continue
            }
            table.add(key, metric, count, archived: counts)
        }
        print(table.text(title: "\(path): export → archive"))
        #expect(table.mismatches.isEmpty, "\(table.mismatches.map { "\($0.what): \($0.exported) → \($0.archived) \($0.metric)" })")
        #expect(session.skipped == 0)
    }

    /// pulshealth-ndjson/*.ndjson (Apache-2.0): every sample, statistic, event, activity, route fix
    /// and series point of the two batches.
    @Test func pulsHealthBatches() throws {
        for name in ["01-quantity-category.ndjson", "02-workout-route-series.ndjson"] {
            let path = "pulshealth-ndjson/" + name
            let (counts, _, session) = try Self.archive(path, zone: "America/Los_Angeles")
            let census = try ExportCensus(pulsHealth: ExportFixtures.sample(path))
            var table = TypeTable()
            for (key, count) in census.counts { table.add(key, census.metrics[key]!, count, archived: counts) }
            print(table.text(title: "\(path): batch → archive"))
            #expect(table.mismatches.isEmpty, "\(table.mismatches.map { "\($0.what): \($0.exported) → \($0.archived) \($0.metric)" })")
            #expect(session.skipped == 0)
            #expect(!table.rows.isEmpty)
        }
    }
}
