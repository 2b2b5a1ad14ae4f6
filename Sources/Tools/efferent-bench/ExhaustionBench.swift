import EfferentCompression
import EfferentTestSupport
import Foundation
import EfferentSystem
#if canImport(Glibc)
import Glibc
#endif

/// Issue 33, items 1 and 2, on the release binaries with their default caps: a good client's
/// answers from the service, the receiver and the dashboard while 2,000 slow connections from 50
/// loopback addresses trickle their heads (and 200 from the client's own address), beside the
/// same client with no slow ones; then sixteen 1 GiB gzip bombs posted to the receiver at once,
/// its RSS at the peak and after, beside its RSS before.
enum ExhaustionBench {
    static func run() async throws {
        let work = NSTemporaryDirectory() + "efferent-exhaustion-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        SlowClientSwarm.raiseOpenFiles()

        let service = try DefaultServer(data: work + "/service")
        defer { service.stop() }
        let url = "http://127.0.0.1:\(service.port)"
        let home = work + "/phone"
        _ = try await Child.run("efferent", ["init", "--server", url, "--time-zone", "UTC"], home: home)
        let port = LoopbackPort.free()
        let pairing = try await Child.run("efferent", ["receive", "pair", "--url", "http://127.0.0.1:\(port)", "--name", "bench"], home: home)
        func field(_ label: String) -> String {
            pairing.output.split(separator: "\n").first { $0.hasPrefix("  \(label) ") }
                .map { String($0.dropFirst(label.count + 3)).trimmingCharacters(in: .whitespaces) } ?? ""
        }
        let token = field("token"), user = field("user ID")
        let receiver = try ReceiverChild(home: home, port: port, debounce: 30)
        defer { receiver.stop() }
        let dashboard = try DashboardProcess(home: home)
        defer { dashboard.stop() }

        Measure.header("Slow clients: a good client's 30 requests while slow heads trickle a byte a second (issue 33)")
        let clients: [(String, GoodClient, Int)] = [
            ("service GET /health", GoodClient(port: service.port, target: "/health"), service.port),
            ("receiver GET /v1/stats (token)", GoodClient(port: port, target: "/v1/stats", headers: ["Authorization": "Bearer \(token)"]), port),
            ("dashboard GET catalogue (cookie)", GoodClient(port: dashboard.port, target: "/api/v1/pages/catalogue", host: "127.0.0.1:\(dashboard.port)",
                                                          headers: ["Cookie": "efferent_dashboard_\(dashboard.port)=\(dashboard.token)"]), dashboard.port),
        ]
        for (name, client, port) in clients {
            let alone = client.ask(30, pause: 0.05)
            for (count, sources) in [(2000, 50), (200, 1)] {
                let swarm = SlowClientSwarm(port: port, count: count, sources: sources, firstSource: sources == 1 ? 9 : 2)
                guard swarm.waitUntilOpen() else { throw BenchError("the slow connections to \(name) were not all accepted") }
                let asking = sources == 1
                    ? GoodClient(port: client.port, target: client.target, source: SlowClientSwarm.source(9), host: client.host, headers: client.headers)
                    : client
                let result = asking.ask(30, pause: 0.05)
                swarm.stop()
                Measure.row("\(name), \(count) slow from \(sources == 1 ? "its own address" : "\(sources) addresses")",
                            "\(result.answered)/30, " + Measure.format(result.median * 1000, "ms", digits: 1),
                            "alone " + Measure.format(alone.median * 1000, "ms", digits: 1), ratio: result.median / alone.median,
                            goal: "≥ 29/30, median ≤ 1 s")
            }
        }

        // Sixteen bombs: a batch header and one sample, then 1 GiB of spaces (a line that never
        // ends), about 1 MiB of gzip each, all posted at once.
        let bomb = try gzipBomb(prefix: Array(PulsBatchText.batch(samples: [PulsBatchText.quantity(type: "HKQuantityTypeIdentifierStepCount",
            start: 1_718_000_000_000, end: 1_718_000_060_000, value: 1, unit: "count", source: "bench", device: "iPhone")]).utf8),
                                gibibytes: 1)
        // A started receiver has not yet paged in the batch path's code nor grown its allocator's
        // arenas: one batch and one bomb first, so "before" is a receiver in use, not a cold one.
        let cold = receiver.rssMiB, coldParts = receiver.rssParts
        let phone = PulsPhone(port: port, token: token, user: user)
        guard try phone.post(PulsBatchText.batch(samples: [PulsBatchText.quantity(type: "HKQuantityTypeIdentifierStepCount",
            start: 1_718_000_000_000, end: 1_718_000_060_000, value: 1, unit: "count", source: "bench", device: "iPhone")])).status == 200
        else { throw BenchError("the receiver refused a batch") }
        _ = try phone.send(method: "POST", target: "/v1/batches", headers: phone.headers(gzip: true), body: bomb)
        usleep(1_000_000)
        let before = receiver.rssMiB, beforeParts = receiver.rssParts
        let statuses = Mutex([Int: Int]())
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            let phone = PulsPhone(port: port, token: token, user: user)
            let status = (try? phone.send(method: "POST", target: "/v1/batches", headers: phone.headers(gzip: true), body: bomb).status) ?? -1
            statuses.withLock { $0[status, default: 0] += 1 }
        }
        let peak = receiver.peakRSSMiB
        // What is given back is given back at once; a moment for the last connections to close.
        usleep(2_000_000)
        let after = receiver.rssMiB, afterParts = receiver.rssParts
        Measure.header("Gzip bombs: sixteen of 1 GiB (\(bomb.count >> 10) KiB of gzip each) posted to efferent receive at once (issue 33)")
        print("  receiver RSS when started \(Int(cold)) MiB (\(coldParts)); after one batch and one bomb \(Int(before)) MiB (\(beforeParts)); "
              + "after the sixteen \(Int(after)) MiB (\(afterParts))")
        print("  answers: " + statuses.withLock { $0 }.sorted { $0.key < $1.key }.map { "\($0.value) × \($0.key)" }.joined(separator: ", "))
        Measure.row("receiver peak RSS during the bombs", Measure.format(peak, "MiB", digits: 0), "before " + Measure.format(before, "MiB", digits: 0),
                    ratio: peak / before, goal: "≤ 300 MB")
        Measure.row("receiver RSS after the bombs", Measure.format(after, "MiB", digits: 0), "before " + Measure.format(before, "MiB", digits: 0),
                    ratio: after / before, goal: "≤ 1.10×")

        // Bombs of blank lines, which the batch reader skips: each reaches the reader up to the
        // 128 MiB inflated ceiling, so together they pass the body budget, past which they are 503.
        let blank = try gzipBomb(prefix: Array(PulsBatchText.batch(samples: []).utf8), gibibytes: 1, fill: 0x0a)
        let blankStatuses = Mutex([Int: Int]())
        let blankBefore = receiver.rssMiB
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            let phone = PulsPhone(port: port, token: token, user: user)
            let status = (try? phone.send(method: "POST", target: "/v1/batches", headers: phone.headers(gzip: true), body: blank).status) ?? -1
            blankStatuses.withLock { $0[status, default: 0] += 1 }
        }
        usleep(2_000_000)
        print("  sixteen 1 GiB bombs of blank lines at once: " + blankStatuses.withLock { $0 }.sorted { $0.key < $1.key }
            .map { "\($0.value) × \($0.key)" }.joined(separator: ", ") + "; RSS \(Int(blankBefore)) MiB before, \(Int(receiver.peakRSSMiB)) MiB peak so far, "
            + "\(Int(receiver.rssMiB)) MiB after")
    }

    /// `prefix`, then `gibibytes` GiB of `fill` (spaces by default), as one gzip member (RFC 1952), compressed a MiB at a time.
    static func gzipBomb(prefix: [UInt8], gibibytes: Int, fill: UInt8 = 0x20) throws -> [UInt8] {
        let deflate = try DeflateStream(level: 9)
        var crc = CRC32()
        var out: [UInt8] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 3]
        crc.update(prefix)
        out += try deflate.append(prefix)
        let spaces = [UInt8](repeating: fill, count: 1 << 20)
        for _ in 0..<(gibibytes << 10) {
            crc.update(spaces)
            out += try deflate.append(spaces)
        }
        out += try deflate.finish()
        let size = UInt32(truncatingIfNeeded: prefix.count + (gibibytes << 30))
        for value in [crc.value, size] { out += [UInt8(value & 0xff), UInt8(value >> 8 & 0xff), UInt8(value >> 16 & 0xff), UInt8(value >> 24)] }
        return out
    }
}

/// The release `efferent-server` with its default caps (`BenchServer` raises the per-address one).
final class DefaultServer {
    let process = Process()
    let port: Int

    init(data: String) throws {
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("efferent-server")
        port = LoopbackPort.free()
        process.arguments = ["serve", "--data", data, "--listen", "127.0.0.1:\(port)", "--admission", "open", "--rate-limits", "off"]
        process.standardError = FileHandle.nullDevice
        try process.run()
        guard LoopbackPort.waitUntilListening(port, process: process) else { throw BenchError("efferent-server did not start") }
    }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}

extension ReceiverChild {
    /// Resident memory now (VmRSS), in MiB.
    var rssMiB: Double {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kib = Double(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kib / 1024
    }

    /// Anonymous and file-backed resident memory, for the notes.
    var rssParts: String {
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        return status.split(separator: "\n").filter { $0.hasPrefix("RssAnon:") || $0.hasPrefix("RssFile:") }
            .map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }.joined(separator: ", ")
    }
}
