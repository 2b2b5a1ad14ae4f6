import EfferentCommandLine
import EfferentReceiver
import EfferentWriter
import Foundation

struct Import: Subcommand {
    static let spec = CommandSpec(
        name: "import",
        abstract: "Read an Apple Health export (export.zip, export.xml) or NDJSON events into the local store.",
        discussion: """
        The export is found by its content, whatever its name or language. Re-importing the same or an overlapping
        export adds nothing twice; a newer full export removes what it no longer holds (within its own dates and
        types). An import stopped half-way is finished by running it again.
        """,
        arguments: [.init("PATH", help: "export.zip, export.xml, an unzipped export folder, or an .ndjson file.")])

    let path: String

    init(_ arguments: ParsedArguments) throws(UsageError) {
        guard let path = arguments.argument(0) else { throw UsageError("'import' needs the PATH of an export.") }
        self.path = path
    }

    func run() async throws -> Int32 {
        let context = try WriterContext()
        let bar = ProgressBar(label: "import", unit: "records")
        defer { bar.finish() }
        let started = Date()
        // Saved Puls Sync batches are read by the receiver's reader, as a phone's posts are.
        let result = try context.importExport(at: URL(fileURLWithPath: path), lineFormats: [PulsHealthReader.format], progress: Environment.isTerminal ? { progress in
            bar.update(done: progress.records, total: nil, bytes: Int(progress.bytesRead), totalBytes: Int(progress.totalBytes))
        } : nil)
        bar.finish()
        let seconds = Date().timeIntervalSince(started)
        let tally = result.tally
        let rate = Int(Double(tally.records) / max(seconds, 0.001))
        // On a first import nothing was here before: what was not added was repeated within the
        // export (Apple's exports carry duplicates), kept once.
        let repeated = result.seen - result.added
        let counts = result.first
            ? "\(result.added) new" + (repeated > 0 ? ", \(repeated) repeated within the export (kept once)" : "")
            : "\(result.added) new, \(repeated) already here, \(result.removed) no longer in the export"
        print("read \(tally.records) records in \(String(format: "%.1f", seconds)) s (\(rate)/s): " + counts
              + (tally.activitySummaries > 0 ? "; \(tally.activitySummaries) activity summaries" : "")
              + (tally.routes > 0 ? "; \(tally.routes) workout routes" : "")
              + (tally.electrocardiograms > 0 ? "; \(tally.electrocardiograms) ECGs" : ""))
        for line in result.summary.lines { print(line) }
        switch result.zone {
        case let .pinned(decision, _): print("days are cut in \(decision.zone): \(decision.reason) (efferent zone set changes it)")
        case let .disagrees(warning): note("warning: " + warning)
        case .agrees: break
        }
        print("next: efferent push")
        return 0
    }
}
