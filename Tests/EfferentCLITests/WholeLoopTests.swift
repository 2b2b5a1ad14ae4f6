import EfferentCore
import EfferentExportGenerator
import EfferentSystem
import EfferentTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The whole loop as a person runs it: the service, `efferent init`, `import` of a real sample
/// export, `push`; then a second machine's `connect`, `sync` and answers — real binaries, real files.
@Suite(.serialized) struct WholeLoopTests {
    /// The real sample exports copied into the repository with their licences (`Tests/Fixtures/samples/README.md`).
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/samples")

    @Test func initImportPushConnectSyncAnswer() throws {
        let work = NSTemporaryDirectory() + "efferent-cli-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: work) }
        let server = try ServerProcess(data: work + "/service", arguments: [])
        let writer = CommandRunner(home: work + "/phone")
        let code = try writer.run(["invite", "--data", work + "/service"], tool: "efferent-server").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(code.count == 19)

        let noServer = try writer.run(["init"])
        #expect(noServer.status == 64 && noServer.stderr.contains("--server"))
        let noInvite = try writer.run(["init", "--server", server.url, "--time-zone", "Europe/Amsterdam"])
        #expect(noInvite.status == 1 && noInvite.stderr.contains("ask its operator for a code (efferent-server invite)")
                && noInvite.stderr.contains("--invite CODE") && !noInvite.stderr.contains("x-efferent-invite"), "\(noInvite.stderr)")
        let badInvite = try writer.run(["init", "--server", server.url, "--invite", "nope-nope-nope-nope", "--time-zone", "Europe/Amsterdam"])
        #expect(badInvite.status == 1 && badInvite.stderr.contains("invite code"))
        // The keys stay; running init again with a good code finishes the claim.
        let initialised = try writer.run(["init", "--server", server.url, "--invite", code])
        #expect(initialised.status == 0, "\(initialised.stderr)")
        #expect(initialised.stdout.contains("created archive"))
        #expect(FileMode.permissions(of: work + "/phone/reading-key.json").map { $0 & 0o777 } == 0o600)
        #expect(FileMode.permissions(of: work + "/phone").map { $0 & 0o777 } == 0o700)

        // Origin: alxdrcirilo/apple-health-parser tests/data (MIT) — a zip re-made on a Mac.
        let imported = try writer.run(["import", Self.samples.appendingPathComponent("apple-health-parser/export.zip").path])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("read 8 records"))
        // Every plaintext record is in the writer's store: owner only, WAL files included.
        for name in ["writer.sqlite", "writer.sqlite-wal", "writer.sqlite-shm"] where FileManager.default.fileExists(atPath: work + "/phone/" + name) {
            #expect(FileMode.permissions(of: work + "/phone/" + name).map { $0 & 0o777 } == 0o600, "\(name)")
        }
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
        try? FileMode.set(0o644, on: handoffFile)
        let reader = CommandRunner(home: work + "/laptop")
        let absent = try reader.run(["connect", "--handoff", work + "/nowhere.txt"])
        #expect(absent.status == 1 && absent.stderr.contains("efferent handoff > handoff.txt") && !absent.stderr.contains("efferent connect"))
        let open = try reader.run(["connect", "--handoff", handoffFile])
        #expect(open.status == 1 && open.stderr.contains("chmod 600"))
        try? FileMode.set(0o600, on: handoffFile)
        // The writer's own profile is never turned into a reader (it would lose its settings).
        let settingsBefore = try String(contentsOfFile: work + "/phone/profile.json", encoding: .utf8)
        let intoWriter = try writer.run(["connect", "--handoff", handoffFile])
        #expect(intoWriter.status == 1 && intoWriter.stderr.contains("is this archive's writer") && intoWriter.stderr.contains("EFFERENT_HOME"))
        #expect(try String(contentsOfFile: work + "/phone/profile.json", encoding: .utf8) == settingsBefore)
        let connected = try reader.run(["connect", "--handoff", handoffFile])
        #expect(connected.status == 0, "\(connected.stderr)")
        // A reader's profile does not write, and says where writing happens instead of suggesting init.
        let importOnReader = try reader.run(["import", Self.samples.appendingPathComponent("apple-health-parser/export.zip").path])
        #expect(importOnReader.status == 1 && importOnReader.stderr.contains("reads an archive from a handoff"), "\(importOnReader.stderr)")
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
        // Every format of the whole mirror, written a window at a time: the JSON array holds the
        // NDJSON lines' objects in order, the CSV a row for each after its header.
        let eventLines = try reader.run(["query"]).stdout.split(separator: "\n").map { try JSONParser.parse(String($0)) }
        #expect(eventLines.count > 1)
        let array = try reader.run(["query", "--format", "json"])
        #expect(try JSONParser.parse(array.stdout.trimmingCharacters(in: .whitespacesAndNewlines)).arrayValue == eventLines, "\(array.stderr)")
        let csv = try reader.run(["query", "--format", "csv"]).stdout.components(separatedBy: "\r\n").dropLast()
        #expect(csv.first == "day,id,metric,start,end,bucket,unit,source,value,stage,activity,duration")
        #expect(csv.count == eventLines.count + 1)
        #expect(zip(csv.dropFirst(), eventLines).allSatisfy { row, line in row.hasPrefix((line["day"]?.stringValue ?? "?") + ",") })
        let plot = try reader.run(["plot", "sleep", "--since", "2023-12-31", "--until", "2024-01-01", "--offline", "--out", work + "/sleep.svg"])
        let chart = try String(contentsOfFile: work + "/sleep.svg", encoding: .utf8)
        #expect(plot.status == 0 && chart.contains("asleepCore"))
        let exported = try reader.run(["export", "samples", "--metric", "heartRate", "--since", "2024-01-01", "--until", "2024-01-01",
                                       "--format", "jsonl", "--offline", "--out", work + "/hr.jsonl"])
        #expect(exported.status == 0)
        let lines = try String(contentsOfFile: work + "/hr.jsonl", encoding: .utf8)
        #expect(lines.split(separator: "\n").count == 2)
        for file in [work + "/hr.jsonl", work + "/sleep.svg"] {
            #expect(FileMode.permissions(of: file).map { $0 & 0o777 } == 0o600, "readable health data is the owner's: \(file)")
        }
        // A store from before umask 077 (0644) is made owner-only when next opened.
        try? FileMode.set(0o644, on: work + "/phone/writer.sqlite")
        #expect(try writer.run(["status"]).status == 0)
        #expect(FileMode.permissions(of: work + "/phone/writer.sqlite").map { $0 & 0o777 } == 0o600)
        let readerStatus = try reader.run(["status"])
        #expect(readerStatus.stdout.contains("up to date"), "\(readerStatus.stdout)")

        // A mirrored day's file lost (issue 45): status does not say up to date, an answer offline
        // names the day rather than answering it as empty, and the next sync fetches it again.
        try FileManager.default.removeItem(atPath: work + "/laptop/days/2024-01-01.json")
        let lost = try reader.run(["status"])
        #expect(!lost.stdout.contains("up to date") && lost.stdout.contains("1 day is missing or damaged (2024-01-01)"), "\(lost.stdout)")
        let offline = try reader.run(["daily", "--metric", "activeEnergy", "--since", "2024-01-01", "--until", "2024-01-02", "--format", "csv", "--offline"])
        #expect(offline.stderr.contains("the mirror's copy of 2024-01-01 is missing"), "\(offline.stderr)")
        #expect(!offline.stdout.contains("2024-01-01,0.12") && offline.stdout.contains("2024-01-02,0.08"), "\(offline.stdout)")
        let repaired = try reader.run(["sync"])
        #expect(repaired.status == 0 && repaired.stdout.hasPrefix("fetched 1 days"), "\(repaired.stdout) \(repaired.stderr)")
        #expect(try reader.run(["status"]).stdout.contains("up to date"))
        let whole = try reader.run(["daily", "--metric", "activeEnergy", "--since", "2024-01-01", "--until", "2024-01-02", "--format", "csv", "--offline"])
        #expect(whole.stdout.contains("2024-01-01,0.12") && !whole.stderr.contains("missing"), "\(whole.stdout) \(whole.stderr)")
    }

    /// §8 through the real binaries: an agent logs a meal over `efferent mcp` and a weight with
    /// `efferent write`; the owner's `push` applies and uploads them; a reader sees them; the
    /// owner lists and undoes the edit and the reader sees it gone.
    @Test func anAgentWritesTheOwnerPushesAndUndoes() throws {
        let work = NSTemporaryDirectory() + "efferent-cli-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: work) }
        let server = try ServerProcess(data: work + "/service", arguments: ["--admission", "open"])
        let owner = CommandRunner(home: work + "/phone")
        #expect(try owner.run(["init", "--server", server.url, "--time-zone", "UTC"]).status == 0)
        #expect(try owner.run(["import", Self.samples.appendingPathComponent("apple-health-parser/export.zip").path]).status == 0)
        #expect(try owner.run(["push"]).status == 0)
        let handoffFile = work + "/handoff.txt"
        try owner.run(["handoff"]).stdout.write(toFile: handoffFile, atomically: true, encoding: .utf8)
        try? FileMode.set(0o600, on: handoffFile)
        let agent = CommandRunner(home: work + "/agent")
        #expect(try agent.run(["connect", "--handoff", handoffFile]).status == 0)

        // 2024-01-01 12:00 and 07:00 UTC.
        let mcp = try agent.run(["mcp"], stdin: """
            {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}
            {"jsonrpc":"2.0","id":2,"method":"tools/list"}
            {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"phone_data_write","arguments":{"items":[{"op":"put","id":"agent:meal:lunch","metric":"dietaryEnergy","start":1704110400,"end":1704110400,"value":650,"unit":"kcal"}]}}}
            {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"phone_data_write","arguments":{"items":[{"op":"put","id":"agent:x","metric":"dietaryEnergy","start":1704110400,"end":1704110400,"value":650,"unit":"cal"}]}}}

            """)
        let answers = mcp.stdout.split(separator: "\n").map { try? JSONParser.parse(String($0)) }
        #expect(answers.count == 4, "\(mcp.stdout) \(mcp.stderr)")
        #expect(mcp.stdout.contains("\"phone_data_write\"") && mcp.stdout.contains("\"phone_data_edits\""))
        #expect(answers[2]?["result"]?["isError"] == .bool(false), "\(mcp.stdout)")
        #expect(answers[3]?["result"]?["isError"] == .bool(true), "a wrong unit is refused before anything is sent")

        let items = work + "/weight.json"
        try #"[{"op":"put","id":"agent:weight:0101","metric":"bodyMass","start":1704092400,"end":1704092400,"value":71.4,"unit":"kg"}]"#
            .write(toFile: items, atomically: true, encoding: .utf8)
        let wrote = try agent.run(["write", "--items", items])
        #expect(wrote.status == 0 && wrote.stdout.hasPrefix("queued edit "), "\(wrote.stderr)")
        let pending = try agent.run(["edits"])
        #expect(pending.stdout.split(separator: "\n").count == 2 && pending.stdout.contains("pending"), "\(pending.stdout)")
        let waiting = try owner.run(["status"])
        #expect(waiting.stdout.contains("edits    2 waiting on the service; push or apply takes them in"), "\(waiting.stdout)")

        let pushed = try owner.run(["push"])
        #expect(pushed.status == 0, "\(pushed.stderr)")
        #expect(pushed.stdout.components(separatedBy: ": applied 1").count == 3, "\(pushed.stdout)")
        #expect(try owner.run(["status"]).stdout.contains("edits    0 waiting on the service\n"))
        let listed = try agent.run(["edits", "--all"])
        #expect(listed.stdout.components(separatedBy: "applied 1, failed 0").count == 3, "\(listed.stdout)")

        #expect(try agent.run(["sync"]).status == 0)
        let daily = try agent.run(["daily", "--metric", "dietaryEnergy", "--since", "2024-01-01", "--until", "2024-01-01", "--format", "csv", "--offline"])
        #expect(daily.stdout.contains("2024-01-01,650"), "\(daily.stdout) \(daily.stderr)")
        #expect(try agent.run(["query", "--metric", "bodyMass"]).stdout.contains("71.4"))

        let journal = try owner.run(["edits", "--local"])
        #expect(journal.stdout.contains("put agent:meal:lunch  dietaryEnergy 650 kcal"), "\(journal.stdout)")
        let mealEdit = try #require(journal.stdout.split(separator: "\n").first?.split(separator: " ").dropFirst().first.map(String.init))
        let undone = try owner.run(["edits", "undo", mealEdit])
        #expect(undone.status == 0 && undone.stdout.hasPrefix("undid 1 items"), "\(undone.stdout) \(undone.stderr)")
        let again = try owner.run(["edits", "undo", mealEdit])
        #expect(again.status == 1 && again.stderr.contains("already been undone"))
        #expect(try owner.run(["push"]).status == 0)
        #expect(try agent.run(["sync"]).status == 0)
        #expect(!(try agent.run(["query", "--metric", "dietaryEnergy"]).stdout.contains("650")))
        #expect(try agent.run(["query", "--metric", "bodyMass"]).stdout.contains("71.4"), "the other edit stays")

        // A shared link of the day (issue 42), its label, name and passcode chosen to be looked for.
        let shared = try agent.run(["share", "--since", "2024-01-01", "--until", "2024-01-01", "--metric", "bodyMass", "--label", "Canary label",
                                    "--name", "Canary Patient", "--passcode", "canary-pass-42", "--offline", "--json"])
        #expect(shared.status == 0, "\(shared.stderr)")
        let link = try SHLink(parsing: try JSONParser.parse(shared.stdout)["link"]?.stringValue ?? "")

        // Nothing the service keeps (database, log, anything under its directory) holds the entries,
        // nor the shared link's content, its words or its key.
        let service = FileManager.default.enumerator(atPath: work + "/service")
        var scanned = 0
        while let name = service?.nextObject() as? String {
            guard let bytes = try? Data(contentsOf: URL(fileURLWithPath: work + "/service/" + name)) else { continue }
            scanned += bytes.count
            for marker in ["agent:meal", "dietaryEnergy", "resourceType", "http://loinc.org", "Canary label", "Canary Patient", "canary-pass-42",
                           Base64URL.encode(link.key.revealed())] {
                #expect(bytes.range(of: Data(marker.utf8)) == nil, "\(name) holds \(marker.prefix(20))")
            }
        }

        #expect(scanned > 100_000, "the service's files were read: \(scanned) bytes")

        // A read-only handoff cannot write.
        let readOnly = CommandRunner(home: work + "/laptop")
        try owner.run(["handoff", "--read-only"]).stdout.write(toFile: handoffFile, atomically: true, encoding: .utf8)
        try? FileMode.set(0o600, on: handoffFile)
        #expect(try readOnly.run(["connect", "--handoff", handoffFile]).status == 0)
        let refused = try readOnly.run(["write", "--items", items])
        #expect(refused.status == 1 && refused.stderr.contains("no editor key"), "\(refused.stderr)")
    }

    /// Every HealthKit type through the real binaries (decision A.9): the import names what it
    /// carried and what it left out; the reader's answers take any metric; a route goes out as GPX.
    @Test func everyTypeThroughTheCommands() throws {
        let work = NSTemporaryDirectory() + "efferent-cli-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: work) }
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let truths = try ExportGenerator(options: ExportOptions(seed: 14, days: 75)).writeZip(to: URL(fileURLWithPath: work + "/export.zip"))
        let server = try ServerProcess(data: work + "/service", arguments: ["--admission", "open"])
        let writer = CommandRunner(home: work + "/phone")
        #expect(try writer.run(["init", "--server", server.url, "--time-zone", "Europe/Paris"]).status == 0)
        let imported = try writer.run(["import", work + "/export.zip"])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("\ncarried: ") && imported.stdout.contains(" route fixes (workoutRoute.latitude)"), "\(imported.stdout)")
        #expect(imported.stdout.contains("\nleft out on purpose: ") && imported.stdout.contains("Health Records stay in Health"))
        // Only the quirk's record dated years ahead is refused (issue 19: no phone measured it).
        let notCarried = imported.stdout.split(separator: "\n").filter { $0.hasPrefix("not carried: ") }
        #expect(notCarried.allSatisfy { $0.hasSuffix("(dated before 1900 or more than a year ahead)") }, "\(imported.stdout)")
        #expect(try writer.run(["push"]).status == 0)
        let handoffFile = work + "/handoff.txt"
        try writer.run(["handoff"]).stdout.write(toFile: handoffFile, atomically: true, encoding: .utf8)
        try? FileMode.set(0o600, on: handoffFile)
        let reader = CommandRunner(home: work + "/laptop")
        #expect(try reader.run(["connect", "--handoff", handoffFile]).status == 0)
        #expect(try reader.run(["sync"]).status == 0)

        let overview = try JSONParser.parse(try reader.run(["overview", "--format", "json", "--offline"]).stdout)
        let lines = overview["metrics"]?.arrayValue ?? []
        func line(_ metric: String) -> JSONValue? { lines.first { $0["metric"] == .string(metric) } }
        #expect(line("bloodPressureSystolic")?["unit"] == .string("mmHg") && line("bloodPressureSystolic")?["kind"] == .string("record"))
        #expect(line("distanceCycling")?["kind"] == .string("total"))
        #expect(line("workoutRoute.latitude")?["unitNote"]?.stringValue?.contains("ordinal") == true)
        #expect(line("bodyFatPercentage")?["unitNote"]?.stringValue?.hasPrefix("fraction of 1") == true)
        #expect(lines.count > 40, "\(lines.count) metrics")
        let since = truths.firstDate.description, until = truths.lastDate.description
        let daily = try reader.run(["daily", "--metric", "heartRate", "--metric", "distanceCycling", "--since", since, "--until", until,
                                    "--format", "csv", "--offline"])
        #expect(daily.stdout.hasPrefix("day,heartRate.min,heartRate.mean,heartRate.max,distanceCycling\r\n"), "\(daily.stdout.prefix(200))")
        let statistics = try reader.run(["statistics", "--metric", "bloodPressureSystolic", "--since", since, "--until", until,
                                         "--format", "json", "--offline"])
        #expect(try JSONParser.parse(statistics.stdout)["rows"]?.arrayValue?.isEmpty == false, "\(statistics.stdout)")
        let workouts = try reader.run(["workouts", "--since", since, "--until", until, "--format", "csv", "--offline"])
        #expect(workouts.stdout.contains("distanceMeters,activeEnergyKcal,averageHeartRate"), "\(workouts.stdout.prefix(300))")

        let routed = try #require(truths.workouts.first { $0.routeFile != nil })
        let start = ISOInstant.text(routed.start)
        let gpx = try reader.run(["export", "route", "--start", start, "--offline", "--out", work + "/run.gpx"])
        #expect(gpx.status == 0, "\(gpx.stderr)")
        let text = try String(contentsOfFile: work + "/run.gpx", encoding: .utf8)
        #expect(text.hasPrefix("<?xml") && text.components(separatedBy: "<trkpt ").count - 1 == routed.routeFixes)
        let noWorkout = try reader.run(["export", "route", "--start", "2001-01-01T00:00:00Z", "--offline"])
        #expect(noWorkout.status == 1 && noWorkout.stderr.contains("no workout starts at 2001-01-01T00:00:00Z"), "\(noWorkout.stderr)")
        #expect(try reader.run(["export", "route"]).status == 64)
    }

    /// An import's memory stays bounded: a generated year of exports (1.5 M lines of XML with every
    /// quirk) through the real binary, its own peak RSS as the kernel reports it to `wait4`.
    @Test func anImportRunsInBoundedMemory() throws {
        let work = NSTemporaryDirectory() + "efferent-cli-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: work) }
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let truths = try ExportGenerator(options: ExportOptions(years: 1, seed: 5, days: 200)).writeXML(to: URL(fileURLWithPath: work + "/export.xml"))
        let server = try ServerProcess(data: work + "/service", arguments: ["--admission", "open"])
        let writer = CommandRunner(home: work + "/phone")
        #expect(try writer.run(["init", "--server", server.url, "--time-zone", "Europe/Paris"]).status == 0)
        let imported = try writer.runMeasured(["import", work + "/export.xml"])
        #expect(imported.status == 0)
        let read = imported.stdout.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        #expect(read >= truths.totalRecords, "every record of the export was read: \(imported.stdout)")
        #expect(imported.peakKiB / 1024 < 150, "the import's own peak RSS: \(imported.peakKiB / 1024) MiB")
    }

    /// An init killed after some keys were written (and before its settings, so before any claim)
    /// is finished by running init again, rather than refused.
    @Test func aKilledInitIsFinishedByTheNextOne() throws {
        let work = NSTemporaryDirectory() + "efferent-cli-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: work) }
        // Two inits are six registrations, past the default five a minute from one address.
        let server = try ServerProcess(data: work + "/service", arguments: ["--admission", "open", "--rate-limits", "off"])
        let writer = CommandRunner(home: work + "/phone")
        #expect(try writer.run(["init", "--server", server.url, "--time-zone", "UTC"]).status == 0)
        for leftover in ["profile.json", "editor-key.json", "writer-key.json", "handoff.txt"] {
            try? FileManager.default.removeItem(atPath: work + "/phone/" + leftover)
        }
        let again = try writer.run(["init", "--server", server.url, "--time-zone", "UTC"])
        #expect(again.status == 0 && again.stdout.contains("created archive"), "\(again.stderr)")
        #expect(try writer.run(["status"]).status == 0)
    }

    @Test func usageErrorsAndHelp() throws {
        let runner = CommandRunner(home: NSTemporaryDirectory() + "efferent-cli-" + UUID().uuidString)
        let help = try runner.run(["--help"])
        #expect(help.status == 0 && help.stdout.hasPrefix("USAGE: efferent <subcommand> [options]\n"))
        let unknown = try runner.run(["fly"])
        #expect(unknown.status == 64 && unknown.stderr == "error: 'fly' is not a subcommand of efferent. See 'efferent --help' for them all.\n")
        let badDay = try runner.run(["daily", "--since", "2024-02-30"])
        #expect(badDay.status == 64 && badDay.stderr.contains("YYYY-MM-DD"))
        let noProfile = try runner.run(["push"])
        #expect(noProfile.status == 1 && noProfile.stderr.contains("efferent init"))
        let dailyHelp = try runner.run(["daily", "--help"])
        #expect(dailyHelp.status == 0 && dailyHelp.stdout.contains("--metric NAME"))
    }
}
