import Foundation
import EfferentCompression
@testable import EfferentWriter

/// Where the sample exports live (`Tests/Fixtures/samples/`, copied in with their licences) and
/// helpers that write small inputs for one test.
enum ExportFixtures {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func sample(_ path: String) -> URL {
        packageRoot.appendingPathComponent("Tests/Fixtures/samples").appendingPathComponent(path)
    }

    /// A fresh folder under the system's temporary directory.
    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("efferent-export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Writes `text` to `name` in a fresh folder.
    static func file(_ name: String, _ text: String) throws -> URL {
        try file(name, Array(text.utf8))
    }

    static func file(_ name: String, _ bytes: [UInt8]) throws -> URL {
        let url = try temporaryFolder().appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url
    }

    /// Reads `xml` fed in chunks of `chunkSize` bytes into a collecting sink.
    static func parse(_ xml: String, chunkSize: Int = 1 << 20, label: String = "export.xml") throws -> CollectingSink {
        let sink = CollectingSink()
        let reader = HealthExportReader(sink: sink, label: label)
        let bytes = Array(xml.utf8)
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + chunkSize, bytes.count)
            try reader.feed(Array(bytes[offset..<end]))
            offset = end
        }
        try reader.finish()
        return sink
    }

    /// A Health XML document around `body`, with a small DTD in front as real exports have.
    static func healthXML(_ body: String, dtd: String = defaultDTD) -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\(dtd)\n<HealthData locale=\"en_US\">\n <ExportDate value=\"2024-06-01 08:10:05 +0200\"/>\n\(body)\n</HealthData>\n"
    }

    static let defaultDTD = """
    <!DOCTYPE HealthData [
    <!-- HealthKit Export Version: 14 -->
    <!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord|Audiogram|VisionPrescription)*)>
    <!ATTLIST HealthData
      locale CDATA #REQUIRED
    >
    <!ATTLIST Record
      type          CDATA #REQUIRED
      unit          CDATA #IMPLIED
    >
    ]>
    """
}

/// Writes zip archives by hand (APPNOTE.TXT), so tests can make exactly the archive they need.
struct ZipBuilder {
    struct Item {
        var name: String
        var data: [UInt8]
        var deflate: Bool
        var flags: UInt16 = 0
        var method: UInt16?
    }

    var items: [Item] = []
    /// Write zip64 central directory fields and end records even for small archives.
    var zip64 = false

    mutating func add(_ name: String, _ text: String, deflate: Bool = false) { add(name, Array(text.utf8), deflate: deflate) }
    mutating func add(_ name: String, _ data: [UInt8], deflate: Bool = false, flags: UInt16 = 0, method: UInt16? = nil) {
        items.append(Item(name: name, data: data, deflate: deflate, flags: flags, method: method))
    }

    func build() throws -> [UInt8] {
        var out = [UInt8]()
        var central = [UInt8]()
        for item in items {
            let offset = out.count
            let payload = item.deflate ? try Deflater().compress(item.data) : item.data
            let method = item.method ?? (item.deflate ? 8 : 0)
            let crc = CRC32.checksum(item.data)
            let name = Array(item.name.utf8)
            let flags = item.flags | 0x0800
            out += le32(0x0403_4B50) + le16(20) + le16(flags) + le16(method) + le16(0) + le16(0x21)
            out += le32(crc) + le32(UInt32(payload.count)) + le32(UInt32(item.data.count))
            out += le16(UInt16(name.count)) + le16(0) + name + payload
            var extra = [UInt8]()
            var sizes = (UInt32(payload.count), UInt32(item.data.count), UInt32(offset))
            if zip64 {
                extra = le16(1) + le16(24) + le64(UInt64(item.data.count)) + le64(UInt64(payload.count)) + le64(UInt64(offset))
                sizes = (0xFFFF_FFFF, 0xFFFF_FFFF, 0xFFFF_FFFF)
            }
            central += le32(0x0201_4B50) + le16(0x031E) + le16(45) + le16(flags) + le16(method) + le16(0) + le16(0x21)
            central += le32(crc) + le32(sizes.0) + le32(sizes.1)
            central += le16(UInt16(name.count)) + le16(UInt16(extra.count)) + le16(0) + le16(0) + le16(0) + le32(0)
            central += le32(sizes.2) + name + extra
        }
        let directoryOffset = out.count
        out += central
        if zip64 {
            let recordOffset = out.count
            out += le32(0x0606_4B50) + le64(44) + le16(45) + le16(45) + le32(0) + le32(0)
            out += le64(UInt64(items.count)) + le64(UInt64(items.count)) + le64(UInt64(central.count)) + le64(UInt64(directoryOffset))
            out += le32(0x0706_4B50) + le32(0) + le64(UInt64(recordOffset)) + le32(1)
            out += le32(0x0605_4B50) + le16(0) + le16(0) + le16(0xFFFF) + le16(0xFFFF) + le32(0xFFFF_FFFF) + le32(0xFFFF_FFFF) + le16(0)
        } else {
            out += le32(0x0605_4B50) + le16(0) + le16(0) + le16(UInt16(items.count)) + le16(UInt16(items.count))
            out += le32(UInt32(central.count)) + le32(UInt32(directoryOffset)) + le16(0)
        }
        return out
    }

    private func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    private func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
    private func le64(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) } }
}
