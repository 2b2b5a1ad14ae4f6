import EfferentCore
import EfferentWriter
import Foundation

/// Issue 18's import figures beside the decade of `LoopBench`: a generated two-year export and the
/// fixtures' real sample exports, each imported by the release binary into a fresh archive, next
/// to merely reading the same file (inflating a zip's main entry, or reading the XML) in this process.
///
/// Records are what the import itself counts and prints ("read N records"): one per `Record`,
/// `Workout`, `Correlation` and summary element. Route fixes, ECG voltages and beats become further
/// rows ("parts"); the rows the archive gained are printed beside the rate, not counted in it.
enum ImportBench {
    static func run() async throws {
        let work = NSTemporaryDirectory() + "efferent-import-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let export = work + "/export-2y.zip", xml = work + "/export-2y.xml"
        _ = try await Child.run("efferent-export-gen", ["--years", "2", "--out", export], home: work)
        // The same export's main XML alone: its records without the route files and ECG files
        // the zip adds (whose fixes and voltages are rows, not records).
        _ = try await Child.run("efferent-export-gen", ["--years", "2", "--xml", "--out", xml], home: work)
        let server = try BenchServer(data: work + "/service")
        defer { server.stop() }
        Measure.header("Import through the release binary, each into a fresh archive (wall time, 2 cores)")
        // This machine's speed drifts by a fifth from minute to minute: three imports each, the
        // median printed, the range beside it.
        try await row("generated 2-year export (zip)", export, server: server, work: work + "/two-years", runs: 3, again: true)
        try await row("the same export's main XML alone", xml, server: server, work: work + "/two-years-xml", runs: 3, again: true)
        // scripts/bench runs from the repository's root.
        let samples = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("Tests/Fixtures/samples")
        for (index, sample) in ["apple-health-parser/export.zip", "apple-health-parser/export.xml", "dogsheep-healthkit-to-sqlite/export.xml"].enumerated() {
            try await row("fixture sample " + sample, samples.appendingPathComponent(sample).path, server: server, work: work + "/sample-\(index)")
        }
    }

    /// `again`: the same file imported a second time into the same store, as a monthly export
    /// is (Apple's exports always hold everything): its time and the bytes it wrote.
    /// `runs` imports, each into a fresh archive of its own; the median by time is printed.
    static func row(_ name: String, _ path: String, server: BenchServer, work: String, runs: Int = 1, again: Bool = false) async throws {
        let readTime = try Measure.seconds(runs: 1) {
            switch try ExportLocator.locate(URL(fileURLWithPath: path)) {
            case let .zip(archive, main, _):
                let entry = try archive.open(main)
                while try entry.next() != nil {}
            default:
                _ = try Data(contentsOf: URL(fileURLWithPath: path))
            }
        }
        var results: [(run: Child, writtenMiB: Double, home: String)] = []
        for index in 0..<runs {
            let home = runs == 1 ? work : work + "-\(index + 1)"
            _ = try await Child.run("efferent", ["init", "--server", "http://127.0.0.1:\(server.port)", "--time-zone", "Europe/Paris"], home: home)
            let blocksBefore = ReceiveBench.childrenBlocksWritten()
            let imported = try await Child.run("efferent", ["import", path], home: home)
            results.append((imported, Double(ReceiveBench.childrenBlocksWritten() - blocksBefore) * 512 / 1_048_576, home))
        }
        results.sort { $0.run.seconds < $1.run.seconds }
        let (imported, writtenMiB, home) = results[results.count / 2]
        // "read N records in S s (R/s): A new, …"
        let text = imported.output
        guard text.hasPrefix("read "), let records = Int(text.dropFirst(5).prefix(while: \.isNumber)),
              let new = text.range(of: " new,"), let added = Int(String(text[..<new.lowerBound].reversed().prefix(while: \.isNumber).reversed())) else {
            throw BenchError("import printed no tally: \(text.prefix(200))")
        }
        Measure.row(name, Measure.format(Double(records) / imported.seconds, "rec/s", digits: 0),
                    "read-only " + Measure.format(readTime, "s", digits: 3), ratio: readTime / imported.seconds, goal: "≥ 300,000 rec/s")
        if runs > 1 {
            print("    median of \(runs) imports; the fastest " + Measure.format(Double(records) / results[0].run.seconds, "rec/s", digits: 0)
                  + ", the slowest " + Measure.format(Double(records) / results[runs - 1].run.seconds, "rec/s", digits: 0))
        }
        print("    \(records) records, \(added) rows new in the archive, "
              + Measure.format(imported.seconds, "s", digits: 2) + ", peak RSS " + Measure.format(results.map(\.run.peakMiB).max() ?? 0, "MiB", digits: 0)
              + " (goal ≤ 150 MB)")
        // CPU is what load from other processes moves least: per record, and per row stored
        // (route fixes, ECG voltages and beats are rows the record count does not include).
        print("    CPU " + Measure.format(imported.cpuSeconds, "s", digits: 2) + ": "
              + Measure.format(imported.cpuSeconds * 1e6 / Double(max(records, 1)), "µs a record", digits: 1) + ", "
              + Measure.format(imported.cpuSeconds * 1e6 / Double(max(added, 1)), "µs a row", digits: 1)
              + "; " + Measure.format(writtenMiB, "MiB", digits: 0) + " written")
        guard again else { return }
        let blocksAgain = ReceiveBench.childrenBlocksWritten()
        let repeated = try await Child.run("efferent", ["import", path], home: home)
        let againMiB = Double(ReceiveBench.childrenBlocksWritten() - blocksAgain) * 512 / 1_048_576
        guard repeated.output.contains(" 0 new,") else { throw BenchError("the second import added records: \(repeated.output.prefix(200))") }
        Measure.row("  imported again, nothing new", Measure.format(Double(records) / repeated.seconds, "rec/s", digits: 0),
                    "first " + Measure.format(imported.seconds, "s", digits: 2), ratio: repeated.seconds / imported.seconds, goal: "")
        print("    " + Measure.format(repeated.seconds, "s", digits: 2) + ", CPU " + Measure.format(repeated.cpuSeconds, "s", digits: 2)
              + ", " + Measure.format(againMiB, "MiB", digits: 1) + " written, peak RSS " + Measure.format(repeated.peakMiB, "MiB", digits: 0))
    }
}
