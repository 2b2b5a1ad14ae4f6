import Foundation
@testable import EfferentExportGenerator

/// A temporary folder per test, removed by the caller.
func temporaryFolder() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("export-gen-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// A parsed `Record` line of the generated XML: just what the truth checks need.
struct ScannedRecord {
    var type: String
    var source: String
    var start: Int64
    var end: Int64
    var value: Double
    var unit: String
}

/// Reads the top-level records back out of generated XML with a line scanner, independent of the
/// generator's own model. Only single-line and split-attribute `Record`s at one-space indent.
enum RecordScanner {
    static func records(in xml: [UInt8]) -> [ScannedRecord] {
        let text = String(decoding: xml, as: UTF8.self)
        var out = [ScannedRecord]()
        var element = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(" <Record ") {
                element = String(line)
            } else if !element.isEmpty, line.hasPrefix("  ") && !line.hasPrefix("  <") && !line.hasPrefix("   <") {
                element += " " + line.trimmingCharacters(in: .whitespaces)
            } else {
                element = ""
                continue
            }
            guard element.hasSuffix(">") else { continue }
            let attributes = attributes(of: element)
            element = ""
            guard let type = attributes["type"], let source = attributes["sourceName"],
                  let start = attributes["startDate"].flatMap(instant), let end = attributes["endDate"].flatMap(instant) else { continue }
            out.append(ScannedRecord(type: type, source: source, start: start, end: end,
                                     value: attributes["value"].flatMap(Double.init) ?? 0, unit: attributes["unit"] ?? ""))
        }
        return out
    }

    static func attributes(of element: String) -> [String: String] {
        var result = [String: String]()
        var rest = Substring(element)
        while let equals = rest.range(of: "=\"") {
            let name = rest[..<equals.lowerBound].split(separator: " ").last.map(String.init) ?? ""
            let afterQuote = rest[equals.upperBound...]
            guard let close = afterQuote.firstIndex(of: "\"") else { break }
            result[name] = String(afterQuote[..<close])
            rest = afterQuote[afterQuote.index(after: close)...]
        }
        return result
    }

    /// `yyyy-MM-dd HH:mm:ss ±HHMM` → seconds since 1970.
    static func instant(_ text: String) -> Int64? {
        let parts = text.split(separator: " ")
        guard parts.count == 3 else { return nil }
        let date = parts[0].split(separator: "-").compactMap { Int($0) }
        let time = parts[1].split(separator: ":").compactMap { Int($0) }
        let zone = parts[2]
        guard date.count == 3, time.count == 3, zone.count == 5, let hhmm = Int(zone.dropFirst()) else { return nil }
        let offset = (hhmm / 100 * 3600 + hhmm % 100 * 60) * (zone.hasPrefix("-") ? -1 : 1)
        let days = LocalDate(year: date[0], month: date[1], day: date[2]).daysSinceEpoch
        return Int64(days) * 86400 + Int64(time[0] * 3600 + time[1] * 60 + time[2] - offset)
    }
}
