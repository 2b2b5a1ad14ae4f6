import EfferentCore
import EfferentExportGenerator
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The whole loop as a person runs it: the service, `efferent init`, `import` of a real sample
/// export, `push`; then a second machine's `connect`, `sync` and answers — real binaries, real files.
@Suite(.serialized) struct WholeLoopTests {
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/samples")

    @Test func initImportPushConnectSyncAnswer() throws {
        let work = NSTemporaryDirectory() + "efferent-cli-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: work) }
        let server = try RunningServer(data: work + "/service")
        let writer = CommandRunner(home: work + "/phone")
        let code = try writer.run(["invite", "--data", work + "/service"], tool: "efferent-server").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(code.count == 19)

        let noServer = try writer.run(["init"])
        #expect(noServer.status == 64 && noServer.stderr.contains("--server"))
        let badInvite = try writer.run(["init", "--server", server.url, "--invite", "nope-nope-nope-nope", "--time-zone", "Europe/Amsterdam"])
        #expect(badInvite.status == 1 && badInvite.stderr.contains("invite code"))
        // The keys stay; running init again with a good code finishes the claim.
        let initialised = try writer.run(["init", "--server", server.url, "--invite", code])
        #expect(initialised.status == 0, "\(initialised.stderr)")
        #expect(initialised.stdout.contains("created archive"))
        var info = stat()
        #expect(stat(work + "/phone/reading-key.json", &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(stat(work + "/phone", &info) == 0 && info.st_mode & 0o777 == 0o700)

        // Origin: alxdrcirilo/apple-health-parser tests/data (MIT) — a zip re-made on a Mac.
        let imported = try writer.run(["import", Self.samples.appendingPathComponent("apple-health-parser/export.zip").path])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("read 8 records"))
        let pushed = try writer.run(["push"])
        #expect(pushed.status == 0, "\(pushed.stderr)")
        #expect(pushed.stdout.hasPrefix("sent "))
        let again = try writer.run(["push"])
        #expect(again.stdout.hasPrefix("sent 0 days in 0 requests"), "\(again.stdout)")
        let status = try writer.run(["status"])
        #expect(status.stdout.contains("pending  0 days") && status.stdout.contains("parked   0 days"))

        // The handoff goes to another machine; a handoff anybody can read is refused.
        let handoff = try writer.run(["handoff"])
        #expect(handoff.status == 0 && handoff.stdout.contains("efferent-reading-v1."))
        let handoffFile = work + "/handoff.txt"
        try handoff.stdout.write(toFile: handoffFile, atomically: true, encoding: .utf8)
        chmod(handoffFile, 0o644)
        let reader = CommandRunner(home: work + "/laptop")
        let open = try reader.run(["connect", "--handoff", handoffFile])
        #expect(open.status == 1 && open.stderr.contains("chmod 600"))
        chmod(handoffFile, 0o600)
        let connected = try reader.run(["connect", "--handoff", handoffFile])
        #expect(connected.status == 0, "\(connected.stderr)")
        let synced = try reader.run(["sync"])
        #expect(synced.status == 0 && synced.stdout.hasPrefix("fetched "), "\(synced.stderr)")

        let samples = try reader.run(["samples", "--metric", "heartRate", "--since", "2024-01-01", "--until", "2024-01-01", "--format", "json"])
        let json = try JSONParser.parse(samples.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(json["matched"]?.integerValue == 2, "\(samples.stdout) \(samples.stderr)")
        let sleep = try reader.run(["sleep", "--since", "2023-12-31", "--until", "2024-01-01", "--format", "json", "--offline"])
        let nights = try JSONParser.parse(sleep.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(nights["nightsRecorded"]?.integerValue == 1, "\(sleep.stdout)")
        let daily = try reader.run(["daily", "--metric", "activeEnergy", "--since", "2024-01-01", "--until", "2024-01-02", "--format", "csv"])
        #expect(daily.stdout.contains("2024-01-01,0.12") && daily.stdout.contains("2024-01-02,0.08"), "\(daily.stdout)")
        let query = try reader.run(["query", "--metric", "sleep"])
        #expect(query.stdout.split(separator: "\n").count == 2)
        let plot = try reader.run(["plot", "sleep", "--since", "2023-12-31", "--until", "2024-01-01", "--offline", "--out", work + "/sleep.svg"])
        let chart = try String(contentsOfFile: work + "/sleep.svg", encoding: .utf8)
        #expect(plot.status == 0 && chart.contains("asleepCore"))
        let exported = try reader.run(["export", "samples", "--metric", "heartRate", "--since", "2024-01-01", "--until", "2024-01-01",
                                       "--format", "jsonl", "--offline", "--out", work + "/hr.jsonl"])
        #expect(exported.status == 0)
        let lines = try String(contentsOfFile: work + "/hr.jsonl", encoding: .utf8)
        #expect(lines.split(separator: "\n").count == 2)
        let readerStatus = try reader.run(["status"])
        #expect(readerStatus.stdout.contains("up to date"), "\(readerStatus.stdout)")
    }

    /// An import's memory stays bounded: a generated year of exports (1.5 M lines of XML with every
    /// quirk) through the real binary, its own peak RSS as the kernel reports it to `wait4`.
    @Test func anImportRunsInBoundedMemory() throws {
        let work = NSTemporaryDirectory() + "efferent-cli-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: work) }
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let truths = try ExportGenerator(options: ExportOptions(years: 1, seed: 5, days: 200)).writeXML(to: URL(fileURLWithPath: work + "/export.xml"))
        let server = try RunningServer(data: work + "/service", arguments: ["--admission", "open"])
        let writer = CommandRunner(home: work + "/phone")
        #expect(try writer.run(["init", "--server", server.url, "--time-zone", "Europe/Paris"]).status == 0)
        let imported = try writer.runMeasured(["import", work + "/export.xml"])
        #expect(imported.status == 0)
        let read = imported.stdout.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        #expect(read >= truths.totalRecords, "every record of the export was read: \(imported.stdout)")
        #expect(imported.peakKiB / 1024 < 150, "the import's own peak RSS: \(imported.peakKiB / 1024) MiB")
    }

    @Test func usageErrorsAndHelp() throws {
        let runner = CommandRunner(home: NSTemporaryDirectory() + "efferent-cli-" + UUID().uuidString)
        let help = try runner.run(["--help"])
        #expect(help.status == 0 && help.stdout.hasPrefix("USAGE: efferent <subcommand> [options]\n"))
        let unknown = try runner.run(["fly"])
        #expect(unknown.status == 64 && unknown.stderr == "error: 'fly' is not a subcommand of efferent; see 'efferent --help'.\n")
        let badDay = try runner.run(["daily", "--since", "2024-02-30"])
        #expect(badDay.status == 64 && badDay.stderr.contains("YYYY-MM-DD"))
        let noProfile = try runner.run(["push"])
        #expect(noProfile.status == 1 && noProfile.stderr.contains("efferent init"))
        let dailyHelp = try runner.run(["daily", "--help"])
        #expect(dailyHelp.status == 0 && dailyHelp.stdout.contains("--metric NAME"))
    }
}
