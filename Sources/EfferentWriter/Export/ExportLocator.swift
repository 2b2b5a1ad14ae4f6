import EfferentSystem
import Foundation

/// Decides what a path holds by its content, never its name: the Health app names its files in
/// the phone's language (`eksport.xml`, `导出.xml`, apple-health-export.md §1.1).
public enum ExportLocator {
    /// How much of each candidate is read to recognise it: Health's XML says `<!DOCTYPE HealthData`
    /// on its second line (a DTD-less file opens with `<HealthData`).
    static let sniffBytes = 1024

    /// What `url` is: a zip, an XML export, an unzipped export folder or an NDJSON file: Efferent's
    /// events, or one of `lineFormats`.
    public static func locate(_ url: URL, lineFormats: [LineFormat] = []) throws -> ExportInput {
        let label = url.lastPathComponent
        guard let isDirectory = FileKind.isDirectory(url.path) else { throw ZipError.unreadable(file: label) }
        if isDirectory { return try folder(url) }
        guard let head = FileChunks.prefix(of: url, count: 64 * 1024) else { throw ZipError.unreadable(file: label) }
        if head.starts(with: [0x50, 0x4B, 0x03, 0x04]) || head.starts(with: [0x50, 0x4B, 0x05, 0x06]) {
            return try zip(ZipArchive(url: url))
        }
        let text = head.drop { $0 == 0xEF || $0 == 0xBB || $0 == 0xBF || isSpace($0) }
        if text.first == UInt8(ascii: "<") {
            guard isHealthXML(Array(head.prefix(sniffBytes))) || isHealthXML(head) else { throw ExportError.notHealthExport(file: label) }
            return .xml(url, companions: companionFiles(beside: url))
        }
        if text.first == UInt8(ascii: "{"), let kind = ndjsonKind(text, lineFormats) {
            switch kind {
            case .events: return .efferentEvents(url)
            case let .other(format): return .lines(url, format)
            }
        }
        throw ExportError.notAnExport(file: label)
    }

    /// Whether `head` (the start of a file) is Apple Health's main XML.
    static func isHealthXML(_ head: [UInt8]) -> Bool {
        contains(head, Array("<!DOCTYPE HealthData".utf8)) || contains(head, Array("<HealthData".utf8))
    }

    private static func zip(_ archive: ZipArchive) throws -> ExportInput {
        let files = archive.entries.filter { !$0.isDirectory && !$0.isSideFile }
        let candidates = files.filter { $0.fileName.lowercased().hasSuffix(".xml") && $0.fileName.lowercased() != "export_cda.xml" }
        for entry in candidates where isHealthXML(try archive.prefix(of: entry, count: sniffBytes)) {
            let companions = files.filter { !$0.fileName.hasPrefix("._") && Companion(path: $0.name) != nil }
            return .zip(archive, main: entry, companions: companions)
        }
        throw ExportError.noHealthData(file: archive.url.lastPathComponent)
    }

    private static func folder(_ url: URL) throws -> ExportInput {
        let manager = FileManager.default
        var queue = [(url, 0)]
        while !queue.isEmpty {
            let (directory, depth) = queue.removeFirst()
            let children = ((try? manager.contentsOfDirectory(at: directory, includingPropertiesForKeys: [.isDirectoryKey])) ?? [])
                .sorted { $0.lastPathComponent < $1.lastPathComponent }
            for child in children {
                let name = child.lastPathComponent
                if name.hasPrefix("._") || name == "__MACOSX" || name == "workout-routes" || name == "electrocardiograms" { continue }
                if (try? child.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true {
                    if depth < 2 { queue.append((child, depth + 1)) }
                } else if name.lowercased().hasSuffix(".xml"), name.lowercased() != "export_cda.xml",
                          let head = FileChunks.prefix(of: child, count: sniffBytes), isHealthXML(head) {
                    return .xml(child, companions: companionFiles(beside: child))
                }
            }
        }
        throw ExportError.noHealthData(file: url.lastPathComponent)
    }

    /// The GPX files in the `workout-routes` folder beside an export's XML and the CSV files in
    /// its `electrocardiograms` folder, each sorted by name, and an `export_cda.xml` beside it.
    private static func companionFiles(beside xml: URL) -> [URL] {
        let base = xml.deletingLastPathComponent()
        var found = [URL]()
        for (folderName, suffix) in [("workout-routes", ".gpx"), ("electrocardiograms", ".csv")] {
            let folder = base.appendingPathComponent(folderName)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            found += names.filter { $0.lowercased().hasSuffix(suffix) && !$0.hasPrefix("._") }.sorted().map { folder.appendingPathComponent($0) }
        }
        let cda = base.appendingPathComponent("export_cda.xml")
        if FileManager.default.fileExists(atPath: cda.path) { found.append(cda) }
        return found
    }

    private enum LineKind { case events, other(LineFormat) }

    /// Which NDJSON dialect the first line speaks, or nil when it is none of them.
    private static func ndjsonKind(_ text: ArraySlice<UInt8>, _ formats: [LineFormat]) -> LineKind? {
        guard let newline = text.firstIndex(of: 0x0A) ?? (text.count < 64 * 1024 ? text.endIndex : nil) else { return nil }
        let line = Array(text[..<newline])
        if (try? EfferentEventReader(sink: NDJSONProbe(), label: "").probe(line)) == true { return .events }
        return formats.first { $0.recognises(line) }.map(LineKind.other)
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }

    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if haystack[start..<(start + needle.count)].elementsEqual(needle) { return true }
        }
        return false
    }
}

/// A sink that keeps nothing, for recognising a line's dialect.
public final class NDJSONProbe: ExportSink {
    public init() {}
    public func record(_ record: SourceRecord) throws {}
    public func activitySummary(_ summary: ActivitySummaryRecord) throws {}
}
