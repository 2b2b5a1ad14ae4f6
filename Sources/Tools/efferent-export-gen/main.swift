import EfferentExportGenerator
import Foundation

// efferent-export-gen --years 10 --out /tmp/export.zip [--days N] [--last-day YYYY-MM-DD] [--xml] [--store]
// efferent-export-gen --two-doors DIR [--days N] [--last-day YYYY-MM-DD] [--seed N]
//                     [--seed N] [--level N] [--clean] [--dtd none|13|12-malformed]
// Writes the export and `<out minus extension>.truths.json`; prints size and time.

let usage = """
USAGE: efferent-export-gen --out PATH [--years N | --days N] [--last-day YYYY-MM-DD] [--seed N] [--xml] [--store] [--level N] [--clean] [--dtd none|13|12-malformed]

Generates a realistic Apple Health export with known true answers beside it (PATH.truths.json).
  --out PATH     the zip (or with --xml, the XML) to write
  --years N      years of data (default: 1)
  --last-day D   the last day with data, yyyy-MM-dd (default: 2025-06-14); the export is taken the next morning
  --days N       only the last N days (every era and type in small; overrides --years)
  --seed N       the seed; one seed, one set of bytes (default: 1)
  --xml          write the main XML alone instead of a zip
  --store        store zip entries uncompressed (fastest)
  --level N      zlib level for deflated entries (default: 1)
  --clean        no quirks (default: every quirk on)
  --dtd KIND     which DTD opens the XML (default: 13)
  --two-doors DIR  instead: one simpler history (quantities, sleep, workouts with statistics, events
                 and routes, rings) over --days N days (default: 30) ending on --last-day, as
                 DIR/export.xml with DIR/workout-routes/*.gpx and as the
                 PulsHealth app's batches of the same samples, DIR/batch-NNNNN.ndjson (decision A.14)

"""

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("error: \(message)\n\n\(usage)".utf8))
    exit(64)
}

var options = ExportOptions(years: 1)
var out: String?
var xml = false
var twoDoors: String?
var arguments = Array(CommandLine.arguments.dropFirst())
while !arguments.isEmpty {
    let name = arguments.removeFirst()
    func value() -> String {
        guard !arguments.isEmpty else { fail("\(name) needs a value.") }
        return arguments.removeFirst()
    }
    switch name {
    case "--help", "-h":
        print(usage, terminator: "")
        exit(0)
    case "--out": out = value()
    case "--years":
        guard let years = Int(value()), years >= 1, years <= 50 else { fail("--years takes a whole number from 1 to 50.") }
        options.years = years
    case "--days":
        guard let days = Int(value()), days >= 2, days <= 20_000 else { fail("--days takes a whole number from 2 to 20000.") }
        options.days = days
    case "--seed":
        guard let seed = UInt64(value()) else { fail("--seed takes a whole number.") }
        options.seed = seed
    case "--last-day":
        let text = value()
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 3, let year = parts[0], let month = parts[1], let day = parts[2],
              (1971...9998).contains(year), (1...12).contains(month), (1...31).contains(day),
              LocalDate(daysSinceEpoch: LocalDate(year: year, month: month, day: day).daysSinceEpoch).day == day else {
            fail("--last-day takes a date written yyyy-MM-dd, such as 2026-11-30.")
        }
        options.lastDay = LocalDate(year: year, month: month, day: day)
    case "--xml": xml = true
    case "--two-doors": twoDoors = value()
    case "--store": options.compression = .store
    case "--level":
        guard let level = Int32(value()), (0...9).contains(level) else { fail("--level takes 0 to 9.") }
        options.compression = .deflate(level: level)
    case "--clean": options.quirks = .none
    case "--dtd":
        guard let doctype = ExportQuirks.Doctype(rawValue: value()) else { fail("--dtd takes none, 13 or 12-malformed.") }
        options.quirks.doctype = doctype
    default: fail("'\(name)' is not an option.")
    }
}
if let twoDoors {
    do {
        let (samples, batches) = try TwoDoorExport.write(to: URL(fileURLWithPath: twoDoors), seed: options.seed, lastDay: options.lastDay,
                                                         days: options.days ?? 30)
        print("wrote \(twoDoors): export.xml and \(batches) batches of the same \(samples) samples")
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("error: \(error)\n".utf8))
        exit(1)
    }
}
guard let out else { fail("--out is required.") }

let url = URL(fileURLWithPath: out)
let started = Date()
do {
    let generator = ExportGenerator(options: options)
    let truths = xml ? try generator.writeXML(to: url) : try generator.writeZip(to: url)
    let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
    let seconds = Date().timeIntervalSince(started)
    print("wrote \(url.path): \(size) bytes, \(truths.totalRecords) records, \(truths.days.count) days, "
          + "\(truths.workoutCount) workouts in \(String(format: "%.1f", seconds)) s")
    print("truths: \(ExportGenerator.truthsURL(beside: url).path)")
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}
