import EfferentCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Issue 42: shared links through the release binaries — six months of ten metrics made, sealed and
/// uploaded; the manifest's answer time; a year of raw heart rate in bounded memory; the viewer's
/// time to a summary in headless Chromium — each beside a reference measured in the same run.
enum ShareBench {
    /// Nine numeric metrics and sleep: the ten the figure names.
    static let metrics = ["heartRate", "restingHeartRate", "heartRateVariability", "bloodPressure", "bodyMass", "oxygenSaturation",
                          "respiratoryRate", "vo2Max", "steps", "sleep"]
    static let dailyMetrics = ["heartRate", "restingHeartRate", "heartRateVariability", "bloodPressureSystolic", "bloodPressureDiastolic",
                               "bodyMass", "oxygenSaturation", "respiratoryRate", "vo2Max", "steps"]

    static func run() async throws {
        let work = NSTemporaryDirectory() + "efferent-share-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }

        // Six months (and the generator's first weeks of little else), imported, pushed and synced.
        let export = work + "/export.zip"
        _ = try await Child.run("efferent-export-gen", ["--days", "200", "--out", export], home: work)
        let truths = try JSONParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: work + "/export.truths.json"))))
        let last = CalendarDay(truths["lastDate"]?.stringValue ?? "2025-06-14")!
        let since = last.adding(days: -182)
        let log = work + "/service.log"
        let archive = try await DecadeArchive(work: work, export: export, log: log)
        defer { archive.server.stop() }
        let laptop = archive.laptop
        let span = ["--since", since.description, "--until", last.description]

        let share = try await Child.median(3) {
            try await Child.run("efferent", ["share"] + span + metrics.flatMap { ["--metric", $0] } + ["--offline", "--json", "--no-qr"], home: laptop)
        }
        let made = try JSONParser.parse(Array(share.output.utf8))
        let sealedBytes = Double(made["bytes"]?.integerValue ?? 0)
        let daily = try await Child.median(3) {
            try await Child.run("efferent", ["daily"] + span + dailyMetrics.flatMap { ["--metric", $0] } + ["--offline", "--format", "json"], home: laptop)
        }
        let sleep = try await Child.median(3) {
            try await Child.run("efferent", ["sleep"] + span + ["--offline", "--format", "json"], home: laptop)
        }
        let answersBytes = Double(daily.output.utf8.count + sleep.output.utf8.count)

        // The manifest: 300 answers, alternating with /health on the same client, timed by the
        // service itself (its access log's `ms`) and end to end.
        let link = made["link"]?.stringValue ?? ""
        let manifestURL = try SHLink(parsing: link).url
        let body = Array(#"{"recipient":"bench"}"#.utf8)
        var manifestWall = [Double](), healthWall = [Double]()
        let health = "http://127.0.0.1:\(archive.server.port)/health"
        for _ in 0..<300 {
            manifestWall.append(try time { _ = try BenchWriter.send("POST", manifestURL, headers: [("content-type", "application/json")], body: body) })
            healthWall.append(try time { _ = try BenchWriter.send("GET", health, headers: [], body: []) })
        }
        // Read before the passcode tries, whose answers are also 200s on the manifest's route.
        usleep(200_000)
        let served = try serverTimes(log)
        // With a passcode: Argon2id's check is the point of it, and it dominates.
        let guarded = try await Child.run("efferent", ["share"] + span + ["--metric", "steps", "--passcode", "bench 2042", "--offline", "--json", "--no-qr"],
                                          home: laptop)
        let guardedURL = try SHLink(parsing: try JSONParser.parse(Array(guarded.output.utf8))["link"]?.stringValue ?? "").url
        let guardedBody = Array(#"{"recipient":"bench","passcode":"bench 2042"}"#.utf8)
        var passcodeWall = [Double]()
        for _ in 0..<20 {
            passcodeWall.append(try time { _ = try BenchWriter.send("POST", guardedURL, headers: [("content-type", "application/json")], body: guardedBody) })
        }

        // The viewer, in headless Chromium when it is here.
        let viewer = try await viewerTimes(made["viewer"]?.stringValue ?? "")

        // A year of raw heart rate, from its own archive.
        let yearWork = work + "/year"
        try FileManager.default.createDirectory(atPath: yearWork, withIntermediateDirectories: true)
        _ = try await Child.run("efferent-export-gen", ["--years", "1", "--out", yearWork + "/export.zip"], home: yearWork)
        let yearTruths = try JSONParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: yearWork + "/export.truths.json"))))
        let yearArchive = try await DecadeArchive(work: yearWork, export: yearWork + "/export.zip")
        defer { yearArchive.server.stop() }
        let yearSpan = ["--since", yearTruths["firstDate"]?.stringValue ?? "2024-06-15", "--until", yearTruths["lastDate"]?.stringValue ?? "2025-06-14"]
        let raw = try await Child.run("efferent", ["share", "--metric", "heartRate", "--raw"] + yearSpan + ["--offline", "--json", "--no-qr"],
                                      home: yearArchive.laptop)
        let rawMade = try JSONParser.parse(Array(raw.output.utf8))
        let samples = try await Child.run("efferent", ["export", "samples", "--metric", "heartRate"] + yearSpan
                                          + ["--format", "jsonl", "--offline", "--out", yearWork + "/samples.jsonl"], home: yearArchive.laptop)
        let readings = (try? String(contentsOfFile: yearWork + "/samples.jsonl", encoding: .utf8))?.split(separator: "\n").count ?? 0

        Measure.header("Shared links (SMART Health Links) through the release binaries on loopback")
        Measure.row("6 months × 10 metrics: made, sealed, uploaded", Measure.format(share.seconds, "s"),
                    "efferent daily+sleep " + Measure.format(daily.seconds + sleep.seconds, "s"),
                    ratio: share.seconds / (daily.seconds + sleep.seconds), goal: "≤ 2 s")
        Measure.row("  its sealed size (JWE)", Measure.format(sealedBytes / 1000, "KB", digits: 1),
                    "the answers' JSON " + Measure.format(answersBytes / 1000, "KB", digits: 1),
                    ratio: sealedBytes / answersBytes, goal: "≤ 200 KB")
        Measure.row("manifest, service time (median / p99)", Measure.format(served.manifest.median, "ms") + " / " + Measure.format(served.manifest.p99, "ms"),
                    "/health " + Measure.format(served.health.median, "ms") + " / " + Measure.format(served.health.p99, "ms"),
                    ratio: served.manifest.median / max(served.health.median, 0.001), goal: "≤ 5 ms")
        Measure.row("manifest, round trip (median)", Measure.format(median(manifestWall) * 1000, "ms"),
                    "/health " + Measure.format(median(healthWall) * 1000, "ms"), ratio: median(manifestWall) / median(healthWall), goal: "")
        Measure.row("manifest with a passcode (Argon2id), median", Measure.format(median(passcodeWall) * 1000, "ms", digits: 0),
                    "without " + Measure.format(median(manifestWall) * 1000, "ms"), ratio: median(passcodeWall) / median(manifestWall),
                    goal: "the check's cost, by design")
        if let viewer {
            Measure.row("viewer: summary shown after load (median)", Measure.format(viewer.summary, "ms", digits: 0),
                        "its page with no link " + Measure.format(viewer.intro, "ms", digits: 0), ratio: viewer.summary / viewer.intro, goal: "≤ 1000 ms")
        } else {
            print("  viewer: not measured (headless Chromium and Selenium are not here; scripts/browser installs them)")
        }
        Measure.row("a year of raw heart rate: peak RSS", Measure.format(raw.peakMiB, "MiB", digits: 0),
                    "export samples " + Measure.format(samples.peakMiB, "MiB", digits: 0), ratio: raw.peakMiB / samples.peakMiB, goal: "≤ 150 MB")
        print("    \(readings) readings in \(rawMade["files"]?.integerValue ?? 0) files, \(rawMade["bytes"]?.integerValue ?? 0) bytes sealed, "
              + Measure.format(raw.seconds, "s") + " against export samples' " + Measure.format(samples.seconds, "s"))
    }

    static func time(_ body: () throws -> Void) throws -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    static func median(_ values: [Double]) -> Double { values.isEmpty ? 0 : values.sorted()[values.count / 2] }

    /// The service's own time for each answer, from its access log (`ms`), by route.
    static func serverTimes(_ log: String) throws -> (manifest: (median: Double, p99: Double), health: (median: Double, p99: Double)) {
        var manifest = [Double](), health = [Double]()
        for line in try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n") {
            guard let json = try? JSONParser.parse(Array(line.utf8)), let ms = json["ms"]?.numberValue, json["status"]?.integerValue == 200 else { continue }
            if json["route"]?.stringValue == "/shl/:link" && json["method"]?.stringValue == "POST" { manifest.append(ms) }
            if json["route"]?.stringValue == "/health" { health.append(ms) }
        }
        func summary(_ values: [Double]) -> (Double, Double) {
            let sorted = values.sorted()
            return sorted.isEmpty ? (0, 0) : (sorted[sorted.count / 2], sorted[min(sorted.count - 1, sorted.count * 99 / 100)])
        }
        return (summary(manifest), summary(health))
    }

    /// The viewer's medians from Tests/Browser/viewer_timing.py; nil when no browser is here.
    static func viewerTimes(_ link: String) async throws -> (summary: Double, intro: Double)? {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Tests/Browser/viewer_timing.py")
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"), FileManager.default.fileExists(atPath: script.path) else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, link, "9"]
        process.currentDirectoryURL = script.deletingLastPathComponent()
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let json = try? JSONParser.parse(Array(data)),
              let summary = json["summaryMs"]?.numberValue, let intro = json["introMs"]?.numberValue else { return nil }
        return (summary, intro)
    }
}
