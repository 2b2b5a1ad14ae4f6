import EfferentClient
import EfferentCore
import EfferentWriter
import Foundation
#if canImport(Glibc)
import Glibc
import EfferentSystem
#endif
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issues 4 and 5: a generated 10-year export through the release binaries — import, first push,
/// no-change push, sync, queries — each next to a reference measured in the same run.
enum LoopBench {
    static func run(years: Int = 10) async throws {
        let work = NSTemporaryDirectory() + "efferent-loop-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let export = work + "/export.zip"
        let generation = try await Child.run("efferent-export-gen", ["--years", String(years), "--out", export], home: work)
        let truths = try JSONParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: work + "/export.truths.json"))))
        let records = Int(truths["totalRecords"]?.integerValue ?? 0)
        let exportBytes = (try FileManager.default.attributesOfItem(atPath: export)[.size] as? Int) ?? 0

        // Reference: merely reading the export — inflating its main XML entry, parsing nothing.
        var xmlBytes = 0
        let readTime = try Measure.seconds(runs: 1) {
            guard case let .zip(archive, main, _) = try ExportLocator.locate(URL(fileURLWithPath: export)) else { return }
            let entry = try archive.open(main)
            while let chunk = try entry.next() { xmlBytes += chunk.count }
        }

        let archive = try await DecadeArchive(work: work, export: export)
        let server = archive.server
        defer { server.stop() }
        let url = archive.url
        let (imported, firstPush, secondPush, sync) = (archive.imported, archive.firstPush, archive.secondPush, archive.sync)
        let again = try await Child.run("efferent", ["sync"], home: work + "/laptop")
        let first = truths["firstDate"]?.stringValue ?? "2015-06-15", last = truths["lastDate"]?.stringValue ?? "2025-06-14"
        // Answers are timed three times and the median kept: the first run after a sync meets a page
        // cache still writing the mirror's files back.
        let query = try await Child.median(3) {
            try await Child.run("efferent", ["query", "--metric", "heartRate", "--since", first, "--until", last], home: work + "/laptop", quiet: true)
        }
        let sleep = try await Child.median(3) {
            try await Child.run("efferent", ["sleep", "--since", first, "--until", last, "--format", "json", "--offline"],
                                home: work + "/laptop", quiet: true)
        }

        // Reference for sync: the same days fetched one plain GET each, sequentially.
        let reading = try Profile(directory: work + "/laptop").readingKey()
        let listedDays = try plainDays(url: url, reading: reading)
        var plainBytes = 0
        let plainTime = try Measure.seconds(runs: 1) {
            for day in listedDays { plainBytes += try plainGet(url: url, reading: reading, target: "/b/\(reading.bucket)/d/\(day)") }
        }

        Measure.header("Writer and reader: a generated \(years)-year export through the release binaries on loopback")
        print("  export: \(records) records, \(exportBytes / 1_048_576) MiB zip, \(xmlBytes / 1_048_576) MiB XML, generated in "
              + String(format: "%.1f s", generation.seconds))
        Measure.row("import records/s", Measure.format(Double(records) / imported.seconds, "rec/s", digits: 0),
                    "read-only " + Measure.format(Double(records) / readTime, "rec/s", digits: 0),
                    ratio: readTime / imported.seconds, goal: "≥ 200,000 rec/s")
        Measure.row("import wall time / peak RSS", Measure.format(imported.seconds, "s", digits: 1) + " / " + Measure.format(imported.peakMiB, "MiB", digits: 0),
                    "", ratio: nil, goal: "RSS ≤ 150 MB")
        Measure.row("first push of the decade", Measure.format(firstPush.seconds, "s", digits: 2), firstPush.output.trimmed,
                    ratio: nil, goal: "≤ 10 s")
        Measure.row("push with nothing changed", Measure.format(secondPush.seconds, "s", digits: 2), secondPush.output.trimmed,
                    ratio: nil, goal: "< 1 s, no upload")
        Measure.row("sync of the decade", Measure.format(sync.seconds, "s", digits: 2),
                    "\(listedDays.count) plain GETs " + Measure.format(plainTime, "s", digits: 2), ratio: sync.seconds / plainTime,
                    goal: "≤ 3 s, ≤ 45 requests")
        print("    \(sync.output.trimmed)")
        Measure.row("sync with nothing changed", Measure.format(again.seconds, "s", digits: 2), again.output.trimmed, ratio: nil, goal: "one listing walk")
        Measure.row("query --metric heartRate, decade (median of 3)", Measure.format(query.seconds, "s", digits: 2),
                    "\(truths["recordCounts"]?["heartRate"]?.integerValue ?? 0) readings", ratio: nil, goal: "≤ 1 s")
        Measure.row("sleep over the decade (median of 3)", Measure.format(sleep.seconds, "s", digits: 2), "", ratio: nil, goal: "")
    }

    static func plainDays(url: String, reading: ReadingKey) throws -> [String] {
        var days = [String]()
        var after: String?
        repeat {
            let target = "/b/\(reading.bucket)/days" + (after.map { "?after=\($0)" } ?? "")
            let body = try plainBody(url: url, reading: reading, target: target)
            let json = try JSONParser.parse(body)
            days += json["days"]?.arrayValue?.compactMap { $0["day"]?.stringValue } ?? []
            after = json["next"]?.stringValue
        } while after != nil
        return days
    }

    static func plainGet(url: String, reading: ReadingKey, target: String) throws -> Int { try plainBody(url: url, reading: reading, target: target).count }

    static func plainBody(url: String, reading: ReadingKey, target: String) throws -> [UInt8] {
        let now = Int64(Date().timeIntervalSince1970)
        let headers = SignedHeaders(signing: SignedMessage.read(bucket: reading.bucket, target: target, timestamp: now),
                                    with: reading.readKey, role: .reader, timestamp: now)
        let (status, body) = try BenchWriter.send("GET", url + target, headers: headers.fields, body: [])
        guard status == 200 else { throw BenchError("GET \(target) answered \(status)") }
        return body
    }
}

/// A generated export through the release binaries on loopback — a service, a writer that
/// imports and pushes it, a reader that connects and syncs — timed step by step: what the loop and
/// dashboard benches stand on.
struct DecadeArchive {
    let server: BenchServer
    let url: String
    let imported: Child, firstPush: Child, secondPush: Child, sync: Child
    /// The reader's profile, its mirror synced.
    let laptop: String

    init(work: String, export: String, log: String? = nil) async throws {
        server = try BenchServer(data: work + "/service", log: log)
        url = "http://127.0.0.1:\(server.port)"
        _ = try await Child.run("efferent", ["init", "--server", url, "--time-zone", "Europe/Paris"], home: work + "/phone")
        imported = try await Child.run("efferent", ["import", export], home: work + "/phone")
        firstPush = try await Child.run("efferent", ["push"], home: work + "/phone")
        secondPush = try await Child.run("efferent", ["push"], home: work + "/phone")
        let handoff = try await Child.run("efferent", ["handoff"], home: work + "/phone")
        try handoff.output.write(toFile: work + "/handoff.txt", atomically: true, encoding: .utf8)
        try FileMode.set(0o600, on: work + "/handoff.txt")
        laptop = work + "/laptop"
        _ = try await Child.run("efferent", ["connect", "--handoff", work + "/handoff.txt"], home: laptop)
        sync = try await Child.run("efferent", ["sync"], home: laptop)
    }

    /// `years` of generated export in `work`, through the loop: the archive, the generator's
    /// truths, and the first and last day they name.
    static func generated(years: Int, in work: String) async throws
        -> (archive: DecadeArchive, truths: JSONValue, first: String, last: String) {
        let export = work + "/export.zip"
        _ = try await Child.run("efferent-export-gen", ["--years", String(years), "--out", export], home: work)
        let truths = try JSONParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: work + "/export.truths.json"))))
        let first = truths["firstDate"]?.stringValue ?? "2015-06-15", last = truths["lastDate"]?.stringValue ?? "2025-06-14"
        return (try await DecadeArchive(work: work, export: export), truths, first, last)
    }
}

/// A release binary run as a child: wall time, stdout, its peak RSS from /proc, and its CPU time.
struct Child {
    let seconds: Double
    let output: String
    let peakMiB: Double
    /// User and system CPU seconds of the child (the bench runs one child at a time, so the
    /// change in this process's waited-for children's usage is this child's alone).
    var cpuSeconds = 0.0

    /// The run with the median time of `runs`.
    static func median(_ runs: Int, _ body: () async throws -> Child) async throws -> Child {
        var all = [Child]()
        for _ in 0..<runs { all.append(try await body()) }
        return all.sorted { $0.seconds < $1.seconds }[runs / 2]
    }

    /// The path of `tool` among the bench's own binaries.
    static func binary(_ tool: String) -> String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(tool).path
    }

    /// `tool` from the bench's own binaries, or from `directory` (release binaries of before a change).
    static func run(_ tool: String, _ arguments: [String], home: String, quiet: Bool = false, directory: String? = nil) async throws -> Child {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: directory.map { $0 + "/" + tool } ?? binary(tool))
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["EFFERENT_HOME"] = home
        process.environment = environment
        // Quiet runs write to /dev/null, as a person piping a decade of events into a file would
        // not wait on a reader of the pipe.
        let out = Pipe()
        if quiet { process.standardOutput = FileHandle.nullDevice } else { process.standardOutput = out }
        process.standardError = FileHandle.nullDevice
        let started = DispatchTime.now().uptimeNanoseconds
        let cpuBefore = ReceiveBench.childrenCPUSeconds()
        try process.run()
        // The child's own high-water mark, polled while it runs: rusage would also count this
        // process's memory, which a spawned child's accounting inherits on Linux.
        let pid = process.processIdentifier
        let reading = Task.detached { () -> Int in
            var peak = 0
            while process.isRunning {
                if let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                   let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
                   let kib = Int(line.split(separator: " ").dropFirst().first ?? "") { peak = max(peak, kib) }
                usleep(5_000)
            }
            return peak
        }
        let data = quiet ? Data() : out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        let peakKiB = await reading.value
        guard process.terminationStatus == 0 else { throw BenchError("\(tool) \(arguments.first ?? "") exited \(process.terminationStatus)") }
        return Child(seconds: seconds, output: quiet ? String(decoding: data.prefix(1 << 26), as: UTF8.self) : String(decoding: data, as: UTF8.self),
                     peakMiB: Double(peakKiB) / 1024, cpuSeconds: ReceiveBench.childrenCPUSeconds() - cpuBefore)
    }
}

extension String {
    var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
