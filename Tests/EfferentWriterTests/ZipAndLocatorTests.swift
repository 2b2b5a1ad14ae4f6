import Foundation
import Testing
@testable import EfferentWriter

/// Zips made in the test by hand: localized names, Mac side files, zip64, and every way a zip can be broken.
@Suite struct ZipAndLocatorTests {
    private static let xml = ExportFixtures.healthXML(
        "<Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"Phone\" unit=\"count\" startDate=\"2024-03-01 10:00:00 +0100\" endDate=\"2024-03-01 10:05:00 +0100\" value=\"12\"/>")

    private func zipFile(_ build: (inout ZipBuilder) -> Void) throws -> URL {
        var zip = ZipBuilder()
        build(&zip)
        return try ExportFixtures.file("export.zip", try zip.build())
    }

    /// The main XML is found by content under its localized name; `__MACOSX` copies (here a
    /// cut-short one that would fail) and `.DS_Store` are passed over; the CDA file is left out on
    /// purpose and an ECG file without a recorded date is reported, both by name (decision A.9).
    @Test(arguments: ["eksport.xml", "导出.xml", "dışa aktarılan.xml", "Export.xml", "vienti.xml"])
    func localizedMainXML(_ name: String) throws {
        let url = try zipFile { zip in
            zip.add("apple_health_export/", "")
            zip.add("apple_health_export/export_cda.xml", "<?xml version=\"1.0\"?><ClinicalDocument><title>Health Data Export</title></ClinicalDocument>")
            zip.add("__MACOSX/apple_health_export/._\(name)", "<HealthData locale=\"x\"><Record")
            zip.add("apple_health_export/._\(name)", "<HealthData locale=\"x\"><Record")
            zip.add("apple_health_export/.DS_Store", [0, 0, 0, 1, 0x42, 0x75, 0x64, 0x31])
            zip.add("apple_health_export/\(name)", Self.xml, deflate: true)
            zip.add("apple_health_export/electrocardiograms/ecg_2026-08-26.csv", "Name,X\nSample Rate,512 hertz\n")
        }
        guard case let .zip(_, main, companions) = try ExportLocator.locate(url) else { Issue.record("not a zip"); return }
        #expect(main.name == "apple_health_export/\(name)")
        #expect(companions.map(\.fileName) == ["export_cda.xml", "ecg_2026-08-26.csv"])
        let sink = CollectingSink()
        #expect(try ExportImporter.read(url, into: sink).records == 1)
        #expect(sink.leftOut.map(\.what) == ["export_cda.xml", "ecg_2026-08-26.csv"])
    }

    @Test func zip64Directory() throws {
        var zip = ZipBuilder()
        zip.zip64 = true
        zip.add("apple_health_export/export.xml", Self.xml, deflate: true)
        zip.add("apple_health_export/workout-routes/route_2019-06-11_3.00pm.gpx", Self.gpx(points: 4))
        let url = try ExportFixtures.file("export.zip", try zip.build())
        let archive = try ZipArchive(url: url)
        #expect(archive.entries.map(\.uncompressedSize) == [UInt64(Self.xml.utf8.count), UInt64(Self.gpx(points: 4).utf8.count)])
        let sink = CollectingSink()
        #expect(try ExportImporter.read(url, into: sink) == ExportTally(records: 1, activitySummaries: 0, routes: 1))
        #expect(sink.routes.first?.points == 4)
    }

    /// A stored and a deflated entry of 3 MiB stream back in bounded chunks, byte for byte.
    @Test func largeEntriesStreamInChunks() throws {
        let big = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) }
        let url = try zipFile { zip in
            zip.add("stored.bin", big)
            zip.add("deflated.bin", big, deflate: true)
        }
        let archive = try ZipArchive(url: url)
        for entry in archive.entries {
            let reader = try archive.open(entry)
            var out = [UInt8]()
            while let chunk = try reader.next() {
                #expect(chunk.count <= ZipArchive.chunkSize)
                out += chunk
            }
            #expect(out == big, "\(entry.name)")
            #expect(reader.compressedBytesRead == entry.compressedSize)
        }
    }

    @Test func corruptZips() throws {
        var zip = ZipBuilder()
        zip.add("apple_health_export/export.xml", Self.xml, deflate: true)
        let good = try zip.build()

        // A flipped byte inside the deflated data.
        var flipped = good
        flipped[30 + "apple_health_export/export.xml".utf8.count + 20] ^= 0x55
        let flippedURL = try ExportFixtures.file("export.zip", flipped)
        #expect(throws: ZipError.checksumMismatch(file: "export.zip", entry: "apple_health_export/export.xml")) {
            try ExportImporter.read(flippedURL, into: CollectingSink())
        }

        // Cut short: the central directory is gone.
        let cutURL = try ExportFixtures.file("export.zip", Array(good.prefix(good.count / 2)))
        #expect(throws: ZipError.cutShort(file: "export.zip")) { try ExportLocator.locate(cutURL) }
        #expect(ZipError.cutShort(file: "export.zip").description == "export.zip is cut short: copy it again, or export it again from the Health app.")

        // A central directory pointing past the end of the file.
        var pointing = good
        pointing[pointing.count - 6] = 0xFF
        let pointingURL = try ExportFixtures.file("export.zip", pointing)
        #expect(throws: ZipError.corrupt(file: "export.zip")) { try ZipArchive(url: pointingURL) }

        // Not a zip at all.
        let textURL = try ExportFixtures.file("export.zip", "just some text, long enough to search for an end record in")
        #expect(throws: ZipError.notAZip(file: "export.zip")) { try ZipArchive(url: textURL) }
    }

    @Test func encryptedAndUnknownMethods() throws {
        let url = try zipFile { zip in
            zip.add("secret.xml", Array("<HealthData>".utf8), flags: 0x0001)
            zip.add("export.xml", Array("<HealthData>".utf8), method: 12)
        }
        let archive = try ZipArchive(url: url)
        #expect(throws: ZipError.encrypted(file: "export.zip", entry: "secret.xml")) { try archive.open(archive.entries[0]) }
        #expect(throws: ZipError.unsupportedMethod(file: "export.zip", entry: "export.xml", method: 12)) { try archive.open(archive.entries[1]) }
        #expect(throws: ZipError.encrypted(file: "export.zip", entry: "secret.xml")) { try ExportLocator.locate(url) }
    }

    @Test func notAnExport() throws {
        let text = try ExportFixtures.file("notes.txt", "Dear diary,\nI ran today.\n")
        #expect(throws: ExportError.notAnExport(file: "notes.txt")) { try ExportLocator.locate(text) }
        #expect(ExportError.notAnExport(file: "notes.txt").description.hasPrefix("notes.txt is not something Efferent reads: give it the export.zip"))
        let empty = try ExportFixtures.file("export.zip", [UInt8]())
        #expect(throws: ExportError.notAnExport(file: "export.zip")) { try ExportLocator.locate(empty) }
        let json = try ExportFixtures.file("data.ndjson", "{\"hello\":1}\n")
        #expect(throws: ExportError.notAnExport(file: "data.ndjson")) { try ExportLocator.locate(json) }
        let cda = try ExportFixtures.file("export_cda.xml", "<?xml version=\"1.0\"?><ClinicalDocument/>")
        #expect(throws: ExportError.notHealthExport(file: "export_cda.xml")) { try ExportLocator.locate(cda) }
        let noHealth = try zipFile { $0.add("readme.txt", "hello") }
        #expect(throws: ExportError.noHealthData(file: "export.zip")) { try ExportLocator.locate(noHealth) }
        let missing = URL(fileURLWithPath: "/nonexistent/export.zip")
        #expect(throws: ZipError.unreadable(file: "export.zip")) { try ExportLocator.locate(missing) }
    }

    @Test func gpxRoutes() throws {
        let reader = GPXRouteReader(file: "workout-routes/r.gpx")
        for byte in Array(Self.gpx(points: 5).utf8) { try reader.feed([byte]) }
        let route = try reader.finish()
        #expect(route == WorkoutRoute(file: "workout-routes/r.gpx", points: 5, start: 1_560_290_442, end: 1_560_290_446))

        let cut = GPXRouteReader(file: "workout-routes/r.gpx")
        try cut.feed(Array(Self.gpx(points: 5).utf8.dropLast(30)))
        #expect(throws: ExportError.cutShort(file: "r.gpx")) { try cut.finish() }

        let bad = GPXRouteReader(file: "r.gpx")
        #expect(throws: ExportError.self) { try bad.feed(Array(Self.gpx(points: 1).replacingOccurrences(of: "22:00:42Z", with: "noon").utf8)) }
    }

    static func gpx(points: Int) -> String {
        let trkpts = (0..<points).map {
            "<trkpt lon=\"-122.396397\" lat=\"37.781672\"><ele>4.07</ele><time>2019-06-11T22:00:\(42 + $0)Z</time><extensions><speed>0.18</speed></extensions></trkpt>"
        }.joined(separator: "\n")
        return """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="Apple Health Export" xmlns="http://www.topografix.com/GPX/1/1">
          <metadata><time>2019-11-07T03:43:52Z</time></metadata>
          <trk><name>Route 2019-06-11 3:00pm</name><trkseg>
        \(trkpts)
          </trkseg></trk>
        </gpx>
        """
    }
}
