import EfferentBenchFloor
import EfferentCompression
import EfferentCore
import EfferentSystem
import EfferentTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue 3's figures: the real `efferent-server` process under wrk on loopback, next to a bare
/// libmicrohttpd handler returning the same bytes and SQLite's raw insert rate for the same rows.
enum ServerBench {
    static func run() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/wrk") else { throw BenchError("wrk is not installed (scripts/bench installs it)") }
        let work = NSTemporaryDirectory() + "efferent-bench-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let server = try BenchServer(data: work + "/data")
        defer { server.stop() }

        // One archive holding a synthetic decade, uploaded a month-sized frame at a time.
        let decade = SyntheticDecade.days()
        let owner = BenchWriter()
        try owner.claim(server.port)
        let deflater = try Deflater()
        let sealed = try decade.map { day, events in
            Frame.Day(day: day, sealed: try SealedEnvelope.seal(try DayBody(events: events, timeZone: "Europe/Berlin").deflated(using: deflater),
                                                                to: owner.reading.publicKey, aad: .day(bucket: owner.bucket.rawValue, day: day)))
        }
        let frames = stride(from: 0, to: sealed.count, by: 31).map { Array(sealed[$0..<min($0 + 31, sealed.count)]) }
        var uploadedBytes = 0
        let uploadTime = try Measure.seconds(runs: 1) {
            for frame in frames { uploadedBytes += try owner.upload(frame, port: server.port) }
        }

        // Listing the decade: four pages of up to 1000 days, against the same number of sequential
        // GETs of a bare handler answering the first page's bytes, through the same client.
        var pages = 0
        let listTime = try Measure.seconds(runs: 5) { pages = try owner.walkListing(port: server.port) }
        let firstPage = try owner.get("/b/\(owner.bucket)/days", port: server.port)
        guard let pageDaemon = BenchFloor.httpStart(answering: firstPage, threads: 2) else { throw BenchError("the bare daemon did not start") }
        let pagePort = pageDaemon.port
        let bareListTime = try Measure.seconds(runs: 5) {
            for _ in 0..<pages { _ = try BenchWriter.plainGet("http://127.0.0.1:\(pagePort)/days") }
        }
        pageDaemon.stop()

        // 32 readers asking for 92-day ranges, each read signed with the archive's read key (§7)
        // as every real reader's is (wrk replays one signed request; the service checks each).
        try owner.registerReader(server.port)
        let rangePath = "/b/\(owner.bucket)/d?from=\(decade[400].0)&to=\(decade[491].0)"
        let answer = try owner.get(rangePath, port: server.port)
        guard try Frame.unpack(answer, allowingEmpty: true).count == 92 else { throw BenchError("the range answer did not hold 92 days") }
        let (status, _) = try BenchWriter.send("GET", "http://127.0.0.1:\(server.port)\(rangePath)", headers: [], body: [])
        guard status == 401 || status == 403 else { throw BenchError("an unsigned range read answered \(status), not a refusal") }

        // The fair floor: the same signed read answered in C — the signature checked with
        // libsodium, the same SQLite range select over the service's own file, the same frame,
        // libmicrohttpd with a thread per connection (the service's model before issue 33) — under
        // the same load.
        let signed = owner.signedRead(rangePath)
        guard let floor = BenchFloor.rangeStart(database: work + "/data/archive.sqlite", bucket: owner.bucket.rawValue,
                                                after: decade[399].0.description, through: decade[491].0.description, maxDays: 92,
                                                publicKey: owner.readKey.publicKey.rawRepresentation, signature: signed.signature,
                                                message: signed.message) else {
            throw BenchError("the SQLite range floor did not start (or its signature or select failed)")
        }
        defer { floor.stop() }
        let floorPort = floor.port
        let floorAnswer = try BenchWriter.plainGet("http://127.0.0.1:\(floorPort)/range")
        guard floorAnswer == answer else { throw BenchError("the SQLite range floor's frame differs from the service's") }
        guard let bare = BenchFloor.httpStart(answering: answer, threads: 2) else { throw BenchError("the bare daemon did not start") }
        defer { bare.stop() }
        let barePort = bare.port
        let ranges = try RangeRounds.run(server: server, reader: owner, path: rangePath, floorPort: floorPort, barePort: barePort,
                                         frames: frames)

        // 4 writers storing month frames into 4 archives, against SQLite inserting the same rows.
        var scripts = [String]()
        for index in 0..<4 {
            let writer = BenchWriter()
            try writer.claim(server.port)
            let days = Array(sealed[(index * 31)..<(index * 31 + 31)])
            scripts.append(try writer.wrkRequest(days, directory: work, index: index))
        }
        let frameRun = try Wrk.run(url: "http://127.0.0.1:\(server.port)/", threads: 4, connections: 4,
                                   script: Wrk.perThreadScript(scripts, directory: work))
        let rowBytes = sealed[0..<31].map(\.sealed.count).reduce(0, +) / 31
        let rows = 31 * 3000
        var rawStatus: Int32 = 0
        let rawSeconds = Measure.seconds(runs: 1) {
            rawStatus = BenchFloor.sqliteInsert(path: work + "/raw.sqlite", blob: [UInt8](repeating: 7, count: rowBytes), rows: Int32(rows),
                                                perTransaction: 31)
        }
        guard rawStatus == 0 else { throw BenchError("the raw SQLite floor failed with SQLite code \(rawStatus)") }
        let rawFrames = Double(rows) / 31 / rawSeconds
        let rss = server.peakRSSMiB

        Measure.header("Service: efferent-server (release) on loopback, wrk, 2 cores shared with the load")
        Measure.row("first upload of the decade", Measure.format(uploadTime, "s", digits: 2),
                    "\(frames.count) requests, \(uploadedBytes / 1024) KiB", ratio: nil, goal: "")
        let rounds = "median of \(ranges.rounds.count) rounds, "
        Measure.row("range answers (92 days), 32 readers", Measure.format(ranges.median { $0.service.requestsPerSecond }, "req/s", digits: 0),
                    "bare MHD " + Measure.format(ranges.median { $0.bare.requestsPerSecond }, "req/s", digits: 0),
                    ratio: ranges.median { $0.service.bytesPerSecond / $0.bare.bytesPerSecond }, goal: "≥ 0.50× bytes/s")
        Measure.row("signed range answers beside the same in C", Measure.format(ranges.median { $0.service.requestsPerSecond }, "req/s", digits: 0),
                    "C SQLite+MHD " + Measure.format(ranges.median { $0.floor.requestsPerSecond }, "req/s", digits: 0),
                    ratio: ranges.median { $0.service.requestsPerSecond / $0.floor.requestsPerSecond }, goal: "≥ 0.70×")
        Measure.row("  \(rounds)ratios", ranges.spread({ $0.service.requestsPerSecond / $0.floor.requestsPerSecond }, digits: 2), "", ratio: nil, goal: "")
        Measure.row("CPU per signed range answer", Measure.format(ranges.median { $0.serviceCPU } * 1e6, "µs", digits: 0),
                    "C SQLite+MHD " + Measure.format(ranges.median { $0.floorCPU } * 1e6, "µs", digits: 0),
                    ratio: ranges.median { $0.serviceCPU / $0.floorCPU }, goal: "")
        Measure.row("range answer p99, 32 connections", Measure.format(ranges.median { $0.service.p99Milliseconds }, "ms", digits: 2),
                    "C SQLite+MHD " + Measure.format(ranges.median { $0.floor.p99Milliseconds }, "ms", digits: 2),
                    ratio: ranges.median { $0.service.p99Milliseconds / $0.floor.p99Milliseconds }, goal: "< 20 ms")
        Measure.row("  \(rounds)p99 ms", ranges.spread({ $0.service.p99Milliseconds }, digits: 1),
                    "bare MHD " + Measure.format(ranges.median { $0.bare.p99Milliseconds }, "ms", digits: 2), ratio: nil, goal: "")
        Measure.row("range p99 while a writer uploads", Measure.format(ranges.median { $0.underWrites.p99Milliseconds }, "ms", digits: 2),
                    "\(ranges.rounds.map(\.uploadsDuring).reduce(0, +)) frames uploaded meanwhile", ratio: nil, goal: "< 20 ms")
        Measure.row("  \(rounds)p99 ms", ranges.spread({ $0.underWrites.p99Milliseconds }, digits: 1), "", ratio: nil, goal: "")
        Measure.row("month frames stored, 4 writers", Measure.format(frameRun.requestsPerSecond, "frames/s", digits: 0),
                    "raw SQLite " + Measure.format(rawFrames, "frames/s", digits: 0),
                    ratio: frameRun.requestsPerSecond / rawFrames, goal: "≥ 0.30×")
        Measure.row("listing a decade (\(pages) pages)", Measure.format(listTime * 1000, "ms", digits: 1),
                    "bare MHD " + Measure.format(bareListTime * 1000, "ms", digits: 1),
                    ratio: listTime / bareListTime, goal: "")
        Measure.row("service peak RSS", Measure.format(rss, "MiB", digits: 1), "", ratio: nil, goal: "< 100 MB")
        if frameRun.non2xx > 0 || ranges.refused > 0 {
            throw BenchError("the service refused \(frameRun.non2xx + ranges.refused) requests under load")
        }
    }
}

/// One writer uploading month frames in a loop on a thread of its own, until stopped.
final class UploadLoop: Sendable {
    private struct Progress {
        var running = true
        var count = 0
    }

    let writer: BenchWriter
    let frames: [[Frame.Day]]
    let port: Int
    private let progress = Mutex(Progress())
    private let done = DispatchSemaphore(value: 0)

    init(writer: BenchWriter, frames: [[Frame.Day]], port: Int) {
        self.writer = writer
        self.frames = frames
        self.port = port
    }

    func start() {
        Thread {
            var index = 0
            while self.progress.withLock({ $0.running }) {
                if (try? self.writer.upload(self.frames[index % self.frames.count], port: self.port)) != nil {
                    self.progress.withLock { $0.count += 1 }
                }
                index += 1
            }
            self.done.signal()
        }.start()
    }

    /// Stops after the upload in flight; returns how many frames were stored.
    func stop() -> Int {
        progress.withLock { $0.running = false }
        done.wait()
        return progress.withLock { $0.count }
    }
}

/// The release `efferent-server` binary beside this one, on a free loopback port.
final class BenchServer {
    let process = Process()
    let port: Int

    convenience init(data: String, log: String? = nil) throws { try self.init(store: ["--data", data], log: log) }

    /// `store` is `--data DIR` or `--postgres URL` with its options; `log` keeps its access log.
    init(store: [String], log: String? = nil) throws {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("efferent-server")
        port = LoopbackPort.free()
        process.executableURL = binary
        process.arguments = ["serve"] + store + ["--listen", "127.0.0.1:\(port)", "--admission", "open", "--rate-limits", "off",
                             "--connections-per-address", "1024",
                             "--max-bucket-bytes", "1099511627776", "--max-service-bytes", "1099511627776"]
        if let log {
            guard FileManager.default.createFile(atPath: log, contents: nil), let handle = FileHandle(forWritingAtPath: log) else {
                throw BenchError("cannot write the service's log at \(log)")
            }
            process.standardError = handle
        } else {
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        for _ in 0..<200 {
            if (try? BenchWriter.plainGet("http://127.0.0.1:\(port)/health")) != nil { return }
            usleep(25_000)
        }
        throw BenchError("efferent-server did not start")
    }

    var peakRSSMiB: Double { Measure.peakRSSMiB(of: process.processIdentifier) }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}
