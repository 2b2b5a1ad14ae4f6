import EfferentClient
import EfferentCore
import EfferentTestSupport
import Foundation
import EfferentSystem
#if canImport(Glibc)
import Glibc
import EfferentBenchFloor
#endif

/// Issue 15: a phone's backfill into the release `efferent receive` over loopback — batches of
/// 1,000 samples, gzip, four connections, as the PulsHealth app sends them — beside `efferent
/// import` of the very same lines; then how soon a quiet phone's last batch is readable from the
/// archive, and the receiver's memory.
enum ReceiveBench {
    static func run(days: Int = 366, perHour: Int = 3, debounce: Double = 2) async throws {
        let work = NSTemporaryDirectory() + "efferent-receive-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }

        // A year of four types from a Watch and an iPhone, ending yesterday; each type's batches
        // out of order, the four types interleaved (the app backfills four types at once).
        let today = Int64(Date().timeIntervalSince1970) / 86_400 * 86_400
        let stream = BackfillStream(seed: 15, first: today - Int64(days) * 86_400, days: days, perHour: perHour, deletedShare: 0)
        let byType = stream.batches(size: 1000, seed: 16).sorted { $0.key < $1.key }.map(\.value)
        var interleaved = [BackfillStream.Batch]()
        for index in 0..<(byType.map(\.count).max() ?? 0) {
            for type in byType where index < type.count { interleaved.append(type[index]) }
        }
        let batches = interleaved
        // The phone compresses before it sends: not the receiver's work.
        let bodies = try batches.map { try gzipped(Array($0.text.utf8)) }
        let samples = batches.reduce(0) { $0 + $1.samples }
        let inflated = batches.reduce(0) { $0 + $1.text.utf8.count }, wire = bodies.reduce(0) { $0 + $1.count }

        let server = try BenchServer(data: work + "/service")
        defer { server.stop() }
        let url = "http://127.0.0.1:\(server.port)"

        // Reference: the same lines as one PulsHealth NDJSON file, through `efferent import`.
        let file = work + "/backfill.ndjson"
        try batches.map(\.text).joined().write(toFile: file, atomically: true, encoding: .utf8)
        _ = try await Child.run("efferent", ["init", "--server", url, "--time-zone", "UTC"], home: work + "/imported")
        let childrenBefore = childrenCPUSeconds(), blocksBefore = childrenBlocksWritten()
        let imported = try await Child.run("efferent", ["import", file], home: work + "/imported")
        let importCPU = childrenCPUSeconds() - childrenBefore
        let importWritten = Double(childrenBlocksWritten() - blocksBefore) * 512

        let home = work + "/phone"
        _ = try await Child.run("efferent", ["init", "--server", url, "--time-zone", "UTC"], home: home)
        let port = LoopbackPort.free()
        let pairing = try await Child.run("efferent", ["receive", "pair", "--url", "http://127.0.0.1:\(port)", "--name", "bench"], home: home)
        func field(_ label: String) -> String {
            pairing.output.split(separator: "\n").first { $0.hasPrefix("  \(label) ") }
                .map { String($0.dropFirst(label.count + 3)).trimmed } ?? ""
        }
        let token = field("token"), user = field("user ID")
        let receiver = try ReceiverChild(home: home, port: port, debounce: debounce)
        defer { receiver.stop() }

        // The backfill: four connections take the next batch as each answer comes.
        let next = Mutex(0)
        let failures = Mutex([String]())
        let cpuBefore = receiver.cpuSeconds, writtenBefore = receiver.bytesWritten
        let started = DispatchTime.now().uptimeNanoseconds
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            let phone = PulsPhone(port: port, token: token, user: user)
            while true {
                let index = next.withLock { value -> Int in
                    defer { value += 1 }
                    return value
                }
                guard index < bodies.count else { return }
                do {
                    let answer = try phone.send(method: "POST", target: "/v1/batches", headers: phone.headers(gzip: true), body: bodies[index])
                    if answer.status != 200 || answer.count("accepted") != batches[index].samples {
                        failures.withLock { $0.append("batch \(index): \(answer.status) \(answer.body.prefix(120))") }
                    }
                } catch {
                    failures.withLock { $0.append("batch \(index): \(error)") }
                }
            }
        }
        let ingest = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        let ingestCPU = receiver.cpuSeconds - cpuBefore
        let ingestWritten = Double(receiver.bytesWritten - writtenBefore)
        if let failure = failures.withLock({ $0.first }) { throw BenchError("the receiver refused the backfill: \(failure)") }
        let ingestRSS = receiver.peakRSSMiB

        // The backfill's days sealed and sent after the debounce; then quiet periods of one small
        // batch each, timed from its answer until its day's new upload shows in the archive.
        try receiver.waitForSeal(count: 2, seconds: 600)
        let sealRSS = receiver.peakRSSMiB
        let reading = try Profile(directory: home).readingKey()
        let yesterday = CalendarDay(unixSeconds: today - 86_400)
        var latencies = [Double]()
        let phone = PulsPhone(port: port, token: token, user: user)
        for round in 0..<3 {
            let before = try uploaded(url: url, reading: reading, day: yesterday)
            let start = Double(today - 86_400 + 3600 * Int64(round + 1)) * 1000
            let line = PulsBatchText.quantity(type: "HKQuantityTypeIdentifierStepCount", start: start, end: start + 60_000, value: 42,
                                              unit: "count", source: "Anna's iPhone", device: "iPhone")
            let answer = try phone.post(PulsBatchText.batch(reason: "incremental", samples: [line]))
            guard answer.status == 200 else { throw BenchError("the quiet batch answered \(answer.status)") }
            let sent = DispatchTime.now().uptimeNanoseconds
            while try uploaded(url: url, reading: reading, day: yesterday) == before {
                guard Double(DispatchTime.now().uptimeNanoseconds - sent) / 1e9 < debounce + 60 else { throw BenchError("the quiet batch never reached the archive") }
                usleep(20_000)
            }
            latencies.append(Double(DispatchTime.now().uptimeNanoseconds - sent) / 1e9)
        }
        let latency = latencies.sorted()[1]

        Measure.header("Receiver: a phone's backfill into the release `efferent receive` on loopback (issue 15)")
        print("  \(batches.count) batches of ≤ 1,000 samples, 4 types × Watch and iPhone over \(days) days: \(samples) samples, "
              + "\(inflated / 1_048_576) MiB NDJSON, \(wire / 1_048_576) MiB gzip")
        let receiveRate = Double(samples) / ingest, importRate = Double(samples) / imported.seconds
        Measure.row("ingest, gzip, 4 connections", Measure.format(receiveRate, "samples/s", digits: 0),
                    "import " + Measure.format(importRate, "samples/s", digits: 0), ratio: importRate / receiveRate,
                    goal: "≥ 200,000/s; ratio ≤ 1.5×")
        Measure.row("backfill wall time (receive / import)", Measure.format(ingest, "s", digits: 2),
                    Measure.format(imported.seconds, "s", digits: 2), ratio: ingest / imported.seconds, goal: "")
        // CPU per sample is what a loaded machine (other builds on the same cores) changes least.
        Measure.row("CPU µs per sample (receiver / import)", Measure.format(ingestCPU / Double(samples) * 1e6, "µs", digits: 1),
                    "import " + Measure.format(importCPU / Double(samples) * 1e6, "µs", digits: 1), ratio: ingestCPU / importCPU,
                    goal: "ratio ≤ 1.5×")
        // The bytes each sent to the disk: a store whose index pages every batch rewrites shows here first.
        Measure.row("bytes written (receiver / import)", Measure.format(ingestWritten / 1_048_576, "MiB", digits: 0),
                    "import " + Measure.format(importWritten / 1_048_576, "MiB", digits: 0), ratio: ingestWritten / max(importWritten, 1), goal: "")
        Measure.row("quiet batch → readable (median of 3)", Measure.format(latency, "s", digits: 2),
                    "debounce " + Measure.format(debounce, "s", digits: 1), ratio: latency / debounce, goal: "≤ debounce + 2 s")
        Measure.row("receiver peak RSS: backfill / after sealing", Measure.format(ingestRSS, "MiB", digits: 0) + " / " + Measure.format(sealRSS, "MiB", digits: 0),
                    "import " + Measure.format(imported.peakMiB, "MiB", digits: 0), ratio: ingestRSS / max(imported.peakMiB, 1), goal: "≤ 150 MB")
        print("    the backfill's push: \(receiver.sealLines.dropFirst().first ?? "")")
    }

    /// CPU seconds of the children this process has waited for (`efferent import` among them).
    static func childrenCPUSeconds() -> Double {
        BenchFloor.childrenUsage().cpuSeconds
    }

    /// 512-byte blocks the children this process has waited for sent to the disk (Linux counts
    /// them from the same accounting as /proc/PID/io `write_bytes`).
    static func childrenBlocksWritten() -> Int {
        BenchFloor.childrenUsage().blocksWritten
    }

    /// The upload time the archive lists for `day`, or nil while it holds none.
    static func uploaded(url: String, reading: ReadingKey, day: CalendarDay) throws -> String? {
        let after = CalendarDay(unixSeconds: day.startUnixSeconds - 86_400)
        let body = try LoopBench.plainBody(url: url, reading: reading, target: "/b/\(reading.bucket)/days?after=\(after)")
        let json = try JSONParser.parse(body)
        let entry = json["days"]?.arrayValue?.first { $0["day"]?.stringValue == day.description }
        return entry?["uploaded"]?.stringValue
    }
}

/// The release `efferent receive` beside this binary, its log kept to read the sealing lines.
final class ReceiverChild {
    let process = Process()
    let logFile: String

    init(home: String, port: Int, debounce: Double) throws {
        logFile = home + "/receive.log"
        _ = FileManager.default.createFile(atPath: logFile, contents: nil)
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("efferent")
        process.arguments = ["receive", "--listen", "127.0.0.1:\(port)", "--debounce", String(debounce)]
        var environment = ProcessInfo.processInfo.environment
        environment["EFFERENT_HOME"] = home
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: logFile)
        try process.run()
        guard LoopbackPort.waitUntilListening(port, process: process) else { throw BenchError("efferent receive did not start") }
    }

    /// The lines that report a push.
    var sealLines: [String] {
        ((try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init).filter { $0.contains("\"sealed\":") }
    }

    /// Waits until `count` pushes have finished.
    func waitForSeal(count: Int, seconds: Double) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while sealLines.count < count {
            guard Date() < deadline, process.isRunning else { throw BenchError("efferent receive did not seal the backfill") }
            usleep(50_000)
        }
    }

    /// User and system CPU seconds so far (/proc/PID/stat fields 14 and 15).
    var cpuSeconds: Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    var peakRSSMiB: Double { Measure.peakRSSMiB(of: process.processIdentifier) }

    /// Bytes it has caused to be written to the disk so far (/proc/PID/io `write_bytes`).
    var bytesWritten: Int {
        let io = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/io", encoding: .utf8)) ?? ""
        return io.split(separator: "\n").first { $0.hasPrefix("write_bytes:") }
            .flatMap { Int($0.dropFirst("write_bytes:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
    }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}
