import EfferentCompression
import Foundation
import Testing
@testable import EfferentExportGenerator

/// The zip is checked by parsing its own central directory (APPNOTE 4.3.12–4.3.16), and by
/// Debian's `unzip -t` where it is installed.
@Suite struct ZipStructureTests {
    struct CentralEntry {
        var name: String
        var method: UInt16
        var crc: UInt32
        var compressed: UInt64
        var uncompressed: UInt64
        var offset: UInt64
    }

    static func u16(_ b: [UInt8], _ at: Int) -> UInt64 { UInt64(b[at]) | UInt64(b[at + 1]) << 8 }
    static func u32(_ b: [UInt8], _ at: Int) -> UInt64 { u16(b, at) | u16(b, at + 2) << 16 }
    static func u64(_ b: [UInt8], _ at: Int) -> UInt64 { u32(b, at) | u32(b, at + 4) << 32 }

    static func centralDirectory(_ zip: [UInt8]) throws -> (entries: [CentralEntry], zip64: Bool) {
        let eocd = try #require((0...(zip.count - 22)).reversed().first { u32(zip, $0) == 0x0605_4B50 })
        var count = u16(zip, eocd + 10), start = u32(zip, eocd + 16)
        let zip64 = count == 0xFFFF
        if zip64 {
            let locator = eocd - 20
            #expect(u32(zip, locator) == 0x0706_4B50)
            let record = Int(u64(zip, locator + 8))
            #expect(u32(zip, record) == 0x0606_4B50)
            count = u64(zip, record + 32)
            start = u64(zip, record + 48)
        }
        var entries = [CentralEntry]()
        var at = Int(start)
        for _ in 0..<count {
            #expect(u32(zip, at) == 0x0201_4B50)
            let nameLength = Int(u16(zip, at + 28)), extraLength = Int(u16(zip, at + 30)), commentLength = Int(u16(zip, at + 32))
            var entry = CentralEntry(name: String(decoding: zip[(at + 46)..<(at + 46 + nameLength)], as: UTF8.self),
                                     method: UInt16(u16(zip, at + 10)), crc: UInt32(u32(zip, at + 16)),
                                     compressed: u32(zip, at + 20), uncompressed: u32(zip, at + 24), offset: u32(zip, at + 42))
            var extra = at + 46 + nameLength
            let extraEnd = extra + extraLength
            while extra < extraEnd {
                let id = u16(zip, extra), size = Int(u16(zip, extra + 2))
                if id == 1 {
                    var field = extra + 4
                    if entry.uncompressed == 0xFFFF_FFFF { entry.uncompressed = u64(zip, field); field += 8 }
                    if entry.compressed == 0xFFFF_FFFF { entry.compressed = u64(zip, field); field += 8 }
                    if entry.offset == 0xFFFF_FFFF { entry.offset = u64(zip, field) }
                }
                extra += 4 + size
            }
            entries.append(entry)
            at = extraEnd + commentLength
        }
        return (entries, zip64)
    }

    /// Every entry's local header is where the directory says, and every stored entry's bytes
    /// have the CRC the directory says.
    static func checkEntries(_ zip: [UInt8], _ entries: [CentralEntry]) {
        for entry in entries {
            let at = Int(entry.offset)
            #expect(u32(zip, at) == 0x0403_4B50, "local header of \(entry.name)")
            let dataStart = at + 30 + Int(u16(zip, at + 26)) + Int(u16(zip, at + 28))
            if entry.method == 0 {
                #expect(entry.compressed == entry.uncompressed)
                #expect(CRC32.checksum(Array(zip[dataStart..<(dataStart + Int(entry.compressed))])) == entry.crc, "\(entry.name)")
            }
        }
    }

    @Test(arguments: [false, true])
    func storedZipParsesByItsOwnDirectory(forceZip64: Bool) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("export.zip")
        let truths = try ExportGenerator(options: ExportOptions(seed: 4, compression: .store, days: 400, forceZip64: forceZip64)).writeZip(to: url)
        let zip = try [UInt8](Data(contentsOf: url))
        let (entries, zip64) = try Self.centralDirectory(zip)
        #expect(zip64 == forceZip64)
        let names = entries.map(\.name)
        #expect(names.contains("apple_health_export/eksport.xml"))
        #expect(names.contains("apple_health_export/export_cda.xml"))
        #expect(names.contains("__MACOSX/apple_health_export/._eksport.xml"))
        #expect(names.contains("apple_health_export/.DS_Store"))
        let routes = Set(truths.workouts.compactMap(\.routeFile))
        #expect(!routes.isEmpty)
        for route in routes { #expect(names.contains("apple_health_export/" + route)) }
        Self.checkEntries(zip, entries)
        let main = try #require(entries.first { $0.name == truths.mainXMLPath })
        #expect(main.uncompressed > 10_000_000)
        try Self.unzipTest(url)
    }

    @Test func deflatedZipPassesUnzip() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("export.zip")
        try ExportGenerator(options: ExportOptions(seed: 4, days: 30, forceZip64: true)).writeZip(to: url)
        let zip = try [UInt8](Data(contentsOf: url))
        let (entries, _) = try Self.centralDirectory(zip)
        Self.checkEntries(zip, entries)
        #expect(entries.contains { $0.method == 8 })
        try Self.unzipTest(url)
    }

    /// `unzip -t` checks every CRC; skipped, with a note, where unzip is not installed.
    static func unzipTest(_ url: URL) throws {
        let unzip = URL(fileURLWithPath: "/usr/bin/unzip")
        guard FileManager.default.isExecutableFile(atPath: unzip.path) else {
            print("note: /usr/bin/unzip is absent; the zip was checked by its own central directory only")
            return
        }
        let process = Process()
        process.executableURL = unzip
        process.arguments = ["-t", "-qq", url.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "unzip -t: \(text)")
    }
}
