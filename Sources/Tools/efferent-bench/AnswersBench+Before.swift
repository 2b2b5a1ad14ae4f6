import EfferentCore
import EfferentCrypto
import Foundation

extension AnswersBench {
    /// With `EFFERENT_BENCH_BEFORE` naming a directory of release binaries built before a change:
    /// the decade synced from nothing three times with each, alternating, under `/usr/bin/time -v`
    /// (wall, user CPU, peak RSS); `efferent overview` and MCP's `phone_data_overview` from each,
    /// alternating, five runs each (wall and peak RSS, medians); each question asked of a dashboard
    /// of each (the same mirror, copied), alternating call by call, seven calls each after one to
    /// warm; and the SHA-256 of every answer's JSON from each, which must be the same bytes. Nil
    /// without it.
    static func compareWithBefore(archive: DecadeArchive, work: String, questions: [(name: String, api: String)], first: String, last: String) async throws -> String? {
        guard let before = ProcessInfo.processInfo.environment["EFFERENT_BENCH_BEFORE"], !before.isEmpty else { return nil }
        let now = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
        let builds = [("before", before), ("now", now)]
        var out = "  before (\(before)) and now, in this run, alternating:\n"
        var syncs = [String: [TimedRun]]()
        for round in 0..<3 {
            for (label, directory) in builds {
                let home = work + "/sync-\(label)-\(round)"
                try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
                _ = try await Child.run("efferent", ["connect", "--handoff", work + "/handoff.txt"], home: home)
                syncs[label, default: []].append(try timed(directory + "/efferent", ["sync"], home: home))
                try? FileManager.default.removeItem(atPath: home)
            }
        }
        func span(_ values: [Double], _ format: String) -> String {
            String(format: format, values.min()!) + "–" + String(format: format, values.max()!)
        }
        for (label, _) in builds {
            let runs = syncs[label]!
            out += "    sync of the decade from nothing, \(label): wall \(span(runs.map(\.wall), "%.2f")) s, user \(span(runs.map(\.user), "%.2f")) s, "
                + "sys \(span(runs.map(\.system), "%.2f")) s, user+sys \(span(runs.map { $0.user + $0.system }, "%.2f")) s, "
                + "peak RSS \(span(runs.map(\.peakKiB), "%.0f")) KiB (/usr/bin/time -v, 3 runs)\n"
        }
        // Each build on its own copy of the mirror: an index one writes is not the other's format.
        let copy = work + "/laptop-before"
        try FileManager.default.copyItem(atPath: archive.laptop, toPath: copy)
        let homes = ["before": copy, "now": archive.laptop]
        // One run each first: each rewrites its copy's index in its own format, once; and a sync, so
        // the MCP server (which refreshes a mirror older than five minutes) answers from the mirror as it is.
        for (label, directory) in builds {
            _ = try await Child.run("efferent", ["overview", "--offline"], home: homes[label]!, quiet: true, directory: directory)
            _ = try await Child.run("efferent", ["sync"], home: homes[label]!, quiet: true, directory: directory)
        }
        var overviews = [String: [Child]](), mcps = [String: [MCPProbe]]()
        for _ in 0..<5 {
            for (label, directory) in builds {
                overviews[label, default: []].append(try await Child.run("efferent", ["overview", "--offline"], home: homes[label]!, quiet: true, directory: directory))
                mcps[label, default: []].append(try MCPProbe.run(directory + "/efferent", home: homes[label]!))
            }
        }
        for (label, _) in builds {
            let cli = overviews[label]!.sorted { $0.seconds < $1.seconds }, mcp = mcps[label]!.sorted { $0.seconds < $1.seconds }
            out += String(format: "    efferent overview (CLI), %@: %.0f ms (%.0f–%.0f), peak RSS %.0f MiB (%.0f–%.0f); "
                          + "phone_data_overview (MCP over stdio, from start to answer), %.0f ms (%.0f–%.0f), peak RSS %.0f MiB (%.0f–%.0f); 5 runs\n",
                          label, cli[2].seconds * 1000, cli[0].seconds * 1000, cli[4].seconds * 1000,
                          cli.map(\.peakMiB).sorted()[2], cli.map(\.peakMiB).min()!, cli.map(\.peakMiB).max()!,
                          mcp[2].seconds * 1000, mcp[0].seconds * 1000, mcp[4].seconds * 1000,
                          mcp.map(\.peakMiB).sorted()[2], mcp.map(\.peakMiB).min()!, mcp.map(\.peakMiB).max()!)
        }
        let old = try DashboardProcess(home: copy, directory: before), new = try DashboardProcess(home: archive.laptop)
        defer {
            old.stop()
            new.stop()
        }
        var identical = 0, different = [String]()
        for (name, api) in questions {
            var times = [String: [Double]]()
            let first = (try old.page("/", api: api), try new.page("/", api: api))
            if first.0.apiBody == first.1.apiBody { identical += 1 } else { different.append(name) }
            for _ in 0..<7 {
                times["before", default: []].append(try old.page("/", api: api).apiServer)
                times["now", default: []].append(try new.page("/", api: api).apiServer)
            }
            let b = times["before"]!.sorted()[3], n = times["now"]!.sorted()[3]
            out += String(format: "    %@: before %.1f ms, now %.1f ms (medians of 7, server time); SHA-256 %@ %@\n", name, b * 1000, n * 1000,
                          String(Self.sha256(first.1.apiBody).prefix(16)), first.0.apiBody == first.1.apiBody ? "the same" : "DIFFERS")
        }
        // The CLI's JSON of every answer too, each over the decade from each build.
        for arguments in Self.cliQuestions(first: first, last: last) {
            let b = try await Child.run("efferent", arguments + ["--offline", "--format", "json"], home: copy, directory: before)
            let n = try await Child.run("efferent", arguments + ["--offline", "--format", "json"], home: archive.laptop)
            if b.output == n.output { identical += 1 } else { different.append("efferent " + arguments.joined(separator: " ")) }
        }
        out += "    every answer's JSON, before and now: \(identical) the same bytes" + (different.isEmpty ? "" : ", DIFFERENT: " + different.joined(separator: "; ")) + "\n"
        return out
    }

    /// The CLI's questions whose JSON is compared: every answer over the decade.
    static func cliQuestions(first: String, last: String) -> [[String]] {
        let decade = ["--since", first, "--until", last]
        return [["overview"], ["overview"] + decade, ["daily", "--metric", "steps", "--metric", "heartRate"] + decade,
                ["statistics", "--metric", "heartRate", "--group-by", "month"] + decade, ["statistics", "--metric", "steps", "--group-by", "week"] + decade,
                ["sleep"] + decade, ["workouts"] + decade, ["samples", "--metric", "heartRate"] + decade]
    }

    static func sha256(_ text: String) -> String {
        Sodium.sha256(Array(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    struct TimedRun {
        let wall: Double, user: Double, system: Double, peakKiB: Double
    }

    /// `binary arguments` under `/usr/bin/time -v`: its wall, user and system time and its peak RSS
    /// (CPU time, not only wall: the machine is shared, and a loaded one stretches wall times).
    static func timed(_ binary: String, _ arguments: [String], home: String) throws -> TimedRun {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/time")
        process.arguments = ["-v", binary] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["EFFERENT_HOME"] = home
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchError("\(binary) \(arguments.first ?? "") exited \(process.terminationStatus)") }
        func field(_ name: String) -> String? {
            text.split(separator: "\n").first { $0.contains(name) }.flatMap { $0.split(separator: ": ").last.map(String.init) }
        }
        let clock = (field("Elapsed (wall clock)") ?? "0").split(separator: ":").compactMap { Double($0) }
        let wall = clock.reduce(0) { $0 * 60 + $1 }
        return TimedRun(wall: wall, user: Double(field("User time") ?? "") ?? 0, system: Double(field("System time") ?? "") ?? 0,
                        peakKiB: Double(field("Maximum resident set size") ?? "") ?? 0)
    }
}

/// `efferent mcp` as an agent starts it: launched, `initialize`, then one `tools/call` of
/// `phone_data_overview`; the time from launch to its answer and the process's peak RSS then.
struct MCPProbe {
    let seconds: Double
    let peakMiB: Double
    let reply: String

    static func run(_ binary: String, home: String) throws -> MCPProbe {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["mcp"]
        var environment = ProcessInfo.processInfo.environment
        environment["EFFERENT_HOME"] = home
        process.environment = environment
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let started = DispatchTime.now().uptimeNanoseconds
        try process.run()
        let lines = [
            #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#,
            #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"phone_data_overview","arguments":{}}}"#,
        ]
        input.fileHandleForWriting.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        var buffer = Data(), reply = ""
        while reply.isEmpty {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            buffer += chunk
            for line in String(decoding: buffer, as: UTF8.self).split(separator: "\n") where line.contains(#""id":2"#) { reply = String(line) }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        let peak = Measure.peakRSSMiB(of: process.processIdentifier)
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        guard reply.contains("readableDays") || reply.contains("readable") else { throw BenchError("efferent mcp gave no overview: \(reply.prefix(200))") }
        return MCPProbe(seconds: seconds, peakMiB: peak, reply: reply)
    }
}
