import EfferentCore
import EfferentExportGenerator
import EfferentTestSupport
import EfferentSystem
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 17 through the real binaries: every answer complete or loudly partial, names that do
/// not exist refused with the ones that do, the zone learnt from the export and changeable, and
/// agents sent to the door that answers them with tools that check what they are given.
@Suite(.serialized) struct NothingSilentTests {
    /// A generated export (Europe/Paris, 75 days to 2025-06-14) pushed by a writer and synced by a reader.
    struct Archive {
        let work: String
        let server: ServerProcess
        let writer: CommandRunner
        let reader: CommandRunner
        let truths: ExportTruths
        var since: String { truths.firstDate.description }
        var until: String { truths.lastDate.description }
    }

    static func archive(initArguments: [String] = ["--time-zone", "Europe/Paris"]) throws -> Archive {
        let work = NSTemporaryDirectory() + "efferent-silent-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let truths = try ExportGenerator(options: ExportOptions(seed: 14, days: 75)).writeZip(to: URL(fileURLWithPath: work + "/export.zip"))
        let server = try ServerProcess(data: work + "/service", arguments: ["--admission", "open"])
        let writer = CommandRunner(home: work + "/phone"), reader = CommandRunner(home: work + "/laptop")
        let initialised = try writer.run(["init", "--server", server.url] + initArguments)
        #expect(initialised.status == 0, "\(initialised.stderr)")
        return Archive(work: work, server: server, writer: writer, reader: reader, truths: truths)
    }

    static func connect(_ archive: Archive) throws {
        let handoff = archive.work + "/handoff.txt"
        try archive.writer.run(["handoff"]).stdout.write(toFile: handoff, atomically: true, encoding: .utf8)
        try? FileMode.set(0o600, on: handoff)
        #expect(try archive.reader.run(["connect", "--handoff", handoff]).status == 0)
        #expect(try archive.reader.run(["sync"]).status == 0)
    }

    static func lines(_ text: String) -> [Substring] { text.split(whereSeparator: \.isNewline) }

    /// Items 1, 3, 4 and 8: complete files, pages that say what they left out, unknown names
    /// refused, empty answers said, no range cap, and tables with units, rounding and local times.
    @Test func answersAreCompleteOrSayWhatTheyLeftOut() throws {
        let archive = try Self.archive()
        defer { try? FileManager.default.removeItem(atPath: archive.work) }
        #expect(try archive.writer.run(["import", archive.work + "/export.zip"]).status == 0)
        #expect(try archive.writer.run(["push"]).status == 0)
        try Self.connect(archive)
        let reader = archive.reader, since = archive.since, until = archive.until

        // 1. A file holds every row; a page on the terminal says how many it left out and how to get them.
        let page = try reader.run(["samples", "--metric", "heartRate", "--since", since, "--until", until, "--format", "json", "--offline"])
        let matched = try #require(try JSONParser.parse(page.stdout)["matched"]?.integerValue)
        #expect(matched > 5000, "a range with more readings than any page: \(matched)")
        let file = archive.work + "/hr.csv"
        let exported = try reader.run(["export", "samples", "--metric", "heartRate", "--since", since, "--until", until, "--offline", "--out", file])
        #expect(exported.status == 0 && exported.stdout.contains("\(matched) rows"), "\(exported.stdout) \(exported.stderr)")
        #expect(Self.lines(try String(contentsOfFile: file, encoding: .utf8)).count == Int(matched) + 1)
        #expect(!FileManager.default.fileExists(atPath: file + ".partial"))
        let printed = try reader.run(["samples", "--metric", "heartRate", "--since", since, "--until", until, "--format", "csv", "--offline"])
        #expect(Self.lines(printed.stdout).count == 501)
        #expect(printed.stderr.contains("matched \(matched), returned 500; \(Int(matched) - 500) rows were left out"), "\(printed.stderr)")
        #expect(printed.stderr.contains("efferent export samples --metric heartRate --since \(since) --until \(until) --out heartRate.csv"))
        let workouts = try reader.run(["export", "workouts", "--since", since, "--until", until, "--offline"])
        #expect(Self.lines(workouts.stdout).count == archive.truths.workouts.count + 1, "\(workouts.stdout.prefix(300))")

        // 4. No range cap on local answers and exports; the days are cut to the archive's, and that is said.
        let years = try reader.run(["export", "daily", "--metric", "steps", "--since", "2016-01-01", "--until", "2025-12-31", "--offline"])
        let held = Int(CalendarDay("2025-12-31")!.daysSinceEpoch - CalendarDay(since)!.daysSinceEpoch) + 1
        #expect(years.status == 0 && Self.lines(years.stdout).count == held + 1, "\(years.stderr)")
        #expect(years.stderr.contains("cut to \(since) … 2025-12-31, the days the archive holds"), "\(years.stderr)")
        let sinceAlone = try reader.run(["daily", "--metric", "steps", "--since", since, "--format", "csv", "--offline"])
        #expect(Self.lines(sinceAlone.stdout).count > 75 + 1, "--since alone runs through today, not 90 days: \(sinceAlone.stderr)")

        // 3. Names: read loosely where one fits, refused with the archive's names and the closest otherwise.
        let loose = try reader.run(["samples", "--metric", "Steps", "--since", since, "--until", until, "--format", "csv", "--offline"])
        #expect(loose.status == 0 && loose.stderr.contains("Steps read as steps") && Self.lines(loose.stdout).count == 76, "\(loose.stderr)")
        for (arguments, closest) in [(["query", "--metric", "stepz"], "steps"), (["ask", "--metric", "stepz", "--since", until, "--until", until], "steps"),
                                     (["daily", "--metric", "stepz", "--offline"], "steps"), (["workouts", "--activity", "yogaa", "--offline"], "yoga")] {
            let refused = try reader.run(arguments)
            #expect(refused.status == 64, "\(arguments): \(refused.stdout) \(refused.stderr)")
            #expect(refused.stderr.contains("(the closest is \(closest))"), "\(arguments): \(refused.stderr)")
            #expect(refused.stdout.isEmpty)
        }
        #expect(try reader.run(["query", "--metric", "stepz"]).stderr.contains("this archive holds activeEnergy, "))
        let noYoga = try reader.run(["workouts", "--activity", "yoga", "--since", "2016-01-01", "--until", "2016-01-31", "--offline"])
        #expect(noYoga.status == 0 && noYoga.stderr.contains("none of 2016-01-01 … 2016-01-31, so nothing was read")
                && noYoga.stderr.contains("no yoga workouts in the days asked"), "\(noYoga.stderr)")
        // Days after the export's last, before today: inside the archive's span, and empty.
        let noSteps = try reader.run(["daily", "--metric", "steps", "--since", "2025-07-01", "--until", "2025-07-02", "--offline"])
        #expect(noSteps.status == 0 && noSteps.stderr.contains("no steps between 2025-07-01 and 2025-07-02"), "\(noSteps.stderr)")
        let noEvents = try reader.run(["query", "--metric", "bodyMass", "--since", "2016-01-01", "--until", "2016-01-02"])
        #expect(noEvents.status == 0 && noEvents.stderr.contains("no bodyMass events between 2016-01-01 and 2016-01-02"))

        // 8. Tables: units in headers, rounding to what each measurement means, local times with offsets.
        let daily = try reader.run(["daily", "--metric", "steps", "--metric", "activeEnergy", "--metric", "distanceWalkingRunning",
                                    "--since", until, "--until", until, "--offline"])
        let header = try #require(Self.lines(daily.stdout).first)
        #expect(header.split(separator: " ", omittingEmptySubsequences: true).count >= 4)
        #expect(header.contains("activeEnergy (kcal)") && header.contains("distanceWalkingRunning (km)"), "\(daily.stdout)")
        let cells = try #require(Self.lines(daily.stdout).last).split(separator: " ", omittingEmptySubsequences: true)
        #expect(Int(cells[1]) != nil, "steps are whole: \(cells)")
        #expect(cells[2].split(separator: ".").last?.count == 1, "energy has one decimal: \(cells)")
        #expect(cells[3].split(separator: ".").last?.count == 2, "km have two decimals: \(cells)")
        let csv = try reader.run(["daily", "--metric", "activeEnergy", "--since", until, "--until", until, "--format", "csv", "--offline"])
        #expect(Self.lines(csv.stdout).last?.split(separator: ",").last?.split(separator: ".").last.map { $0.count > 1 } == true,
                "CSV keeps full precision: \(csv.stdout)")
        let readings = try reader.run(["statistics", "--metric", "heartRate", "--since", since, "--until", until, "--offline"])
        #expect(!readings.stdout.contains("sum") && readings.stdout.contains("mean (count/min)"), "\(readings.stdout)")
        let totals = try reader.run(["statistics", "--metric", "steps", "--since", since, "--until", until, "--offline"])
        #expect(Self.lines(totals.stdout).first?.hasSuffix("sum") == true, "\(totals.stdout)")
        // June in Paris is two hours ahead of UTC: times read as its wall clock, with the offset.
        let local = try reader.run(["samples", "--metric", "heartRate", "--since", until, "--until", until, "--format", "csv", "--limit", "1", "--offline"])
        #expect(Self.lines(local.stdout).last?.contains("T00:") == true && local.stdout.contains("+02:00,"), "\(local.stdout)")
        let nights = try reader.run(["sleep", "--since", "2025-06-01", "--until", "2025-06-02", "--offline"])
        #expect(nights.stdout.contains(" +02:00") && nights.stdout.contains("asleepHours (h)"), "\(nights.stdout)")
    }

    /// Item 2: `init` without a zone lets the first import pin the one its records name; a pinned
    /// zone the data disagrees with is a warning naming both; `zone set` re-cuts every day, the
    /// archive's days are replaced, and a reader's next sync sees them.
    @Test func theZoneIsLearntWarnedAboutAndChanged() throws {
        let learning = try Self.archive(initArguments: [])
        defer { try? FileManager.default.removeItem(atPath: learning.work) }
        let imported = try learning.writer.run(["import", learning.work + "/export.zip"])
        #expect(imported.stdout.contains("days are cut in Europe/Paris: ") && imported.stdout.contains("(HKTimeZone)"), "\(imported.stdout)")
        #expect(try learning.writer.run(["zone"]).stdout == "days are cut in Europe/Paris\n")

        let archive = try Self.archive(initArguments: ["--time-zone", "UTC"])
        defer { try? FileManager.default.removeItem(atPath: archive.work) }
        let warned = try archive.writer.run(["import", archive.work + "/export.zip"])
        #expect(warned.stderr.contains("warning: ") && warned.stderr.contains("name the zone Europe/Paris, but this archive cuts its days in UTC"),
                "\(warned.stderr)")
        #expect(warned.stderr.contains("`efferent zone set Europe/Paris` re-cuts every day"))
        #expect(try archive.writer.run(["check"]).stderr.contains("efferent zone set Europe/Paris"))
        #expect(try archive.writer.run(["push"]).status == 0)
        try Self.connect(archive)

        // A reading just after local midnight in Paris (22:xx UTC in June) is filed under the UTC day first.
        func lateReading() throws -> (start: String, day: String)? {
            let query = try archive.reader.run(["query", "--metric", "heartRate", "--since", "2025-06-10", "--until", "2025-06-11"])
            for line in Self.lines(query.stdout) {
                let event = try JSONParser.parse(String(line))
                guard let start = event["start"]?.stringValue, start.hasPrefix("2025-06-10T22:"), let day = event["day"]?.stringValue else { continue }
                return (start, day)
            }
            return nil
        }
        let before = try #require(try lateReading())
        #expect(before.day == "2025-06-10")

        let changed = try archive.writer.run(["zone", "set", "Europe/Paris"])
        #expect(changed.status == 0, "\(changed.stderr)")
        #expect(changed.stdout.contains("days are cut in Europe/Paris now (they were cut in UTC)") && changed.stdout.contains("\nsent "),
                "\(changed.stdout)")
        #expect(!(try archive.writer.run(["check"]).stderr.contains("zone set")), "the warning goes once the zone agrees")
        let synced = try archive.reader.run(["sync"])
        #expect(synced.status == 0 && !synced.stdout.hasPrefix("fetched 0 "), "\(synced.stdout)")
        let after = try #require(try lateReading())
        #expect(after.start == before.start && after.day == "2025-06-11", "the reader sees the new days: \(after)")
        #expect(try String(contentsOfFile: archive.work + "/laptop/profile.json", encoding: .utf8).contains("Europe/Paris"))
        let refused = try archive.writer.run(["zone", "set", "Mars/Olympus"])
        #expect(refused.status == 64 && refused.stderr.contains("IANA"))

        // A day the new cut leaves with nothing is replaced by an empty day, not left as it was.
        let events = archive.work + "/late.ndjson"
        try #"{"v":1,"metric":"bodyMass","start":"2024-01-01T23:30:00Z","value":70,"unit":"kg"}"#.write(toFile: events, atomically: true, encoding: .utf8)
        let small = try Self.archive(initArguments: ["--time-zone", "UTC"])
        defer { try? FileManager.default.removeItem(atPath: small.work) }
        #expect(try small.writer.run(["import", events]).status == 0)
        #expect(try small.writer.run(["push"]).status == 0)
        try Self.connect(small)
        let day = small.work + "/laptop/days/2024-01-01.json"
        #expect(try String(contentsOfFile: day, encoding: .utf8).contains("bodyMass"))
        #expect(try small.writer.run(["zone", "set", "Asia/Tokyo"]).status == 0)
        #expect(try small.reader.run(["sync"]).status == 0)
        let emptied = try String(contentsOfFile: day, encoding: .utf8)
        #expect(!emptied.contains("bodyMass") && emptied.contains("Asia/Tokyo"), "\(emptied)")
        #expect(try String(contentsOfFile: small.work + "/laptop/days/2024-01-02.json", encoding: .utf8).contains("bodyMass"))
    }

    /// Items 6 and 7: the handoff leads with `efferent mcp`; the remote endpoint offers only what
    /// answers once a read key exists and refuses as an error; `efferent mcp`, driven by the
    /// official MCP Python SDK, checks arguments, lists the archive's names, annotates its tools,
    /// pages long answers, and answers a missing profile with its sentence.
    @Test func agentsAreSentToTheDoorThatAnswers() throws {
        let archive = try Self.archive()
        defer { try? FileManager.default.removeItem(atPath: archive.work) }
        #expect(try archive.writer.run(["import", archive.work + "/export.zip"]).status == 0)
        #expect(try archive.writer.run(["push"]).status == 0)
        let handoff = try archive.writer.run(["handoff"]).stdout
        let instruction = try #require(Self.lines(handoff).dropFirst().first)
        let local = try #require(instruction.range(of: "efferent mcp")), remote = try #require(instruction.range(of: "setup_guide"))
        #expect(local.lowerBound < remote.lowerBound && instruction.contains("efferent connect --handoff handoff.txt"), "\(instruction)")
        #expect(instruction.contains("Keep the reading key and the editor key local"))
        try Self.connect(archive)

        // The remote endpoint: init registered a read key, so only the tools that answer are offered.
        let bucket = try #require(Self.lines(handoff).first { $0.hasPrefix("http") }?.split(separator: "/").last.map(String.init))
        func post(_ body: String) throws -> JSONValue {
            let connection = try RawHTTPConnection(port: archive.server.port)
            let response = try connection.exchange("POST /mcp/b/\(bucket) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                                                   + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body)
            return try JSONParser.parse(response.body)
        }
        let tools = try post(#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
        #expect(tools["result"]?["tools"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["setup_guide", "archive_status"])
        let closed = try post(#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_sealed_days"}}"#)
        #expect(closed["result"]?["isError"] == .bool(true), "\(closed)")

        // The local server through a real MCP client: over stdio (`efferent mcp`), and over
        // Streamable HTTP at the `/mcp` of a dashboard on the same mirror.
        let dashboard = Process()
        dashboard.executableURL = CommandRunner.products.appendingPathComponent("efferent")
        dashboard.arguments = ["dashboard", "--listen", "127.0.0.1:0", "--offline"]
        dashboard.environment = ProcessInfo.processInfo.environment.merging(["EFFERENT_HOME": archive.reader.home]) { _, new in new }
        let printed = Pipe()
        dashboard.standardOutput = printed
        dashboard.standardError = FileHandle.nullDevice
        try dashboard.run()
        defer {
            kill(dashboard.processIdentifier, SIGTERM)
            dashboard.waitUntilExit()
        }
        let address = try #require(PrintedAddress.read(from: printed.fileHandleForReading))
        let script = WholeLoopTests.samples.deletingLastPathComponent().appendingPathComponent("mcp/mcp_client_check.py").path
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", script, CommandRunner.products.appendingPathComponent("efferent").path, archive.reader.home,
                            archive.since, archive.until, "http://127.0.0.1:\(address.port)/mcp", address.token]
        let out = Pipe(), err = Pipe()
        python.standardOutput = out
        python.standardError = err
        try python.run()
        let output = out.fileHandleForReading.readDataToEndOfFile(), errors = err.fileHandleForReading.readDataToEndOfFile()
        python.waitUntilExit()
        #expect(python.terminationStatus == 0,
                "the MCP client check must run (python3 with the mcp package; scripts/test installs it): \(String(decoding: errors, as: UTF8.self).suffix(2000))")
        guard python.terminationStatus == 0 else { return }
        let seen = try JSONParser.parse(Array(output))
        let listed = try #require(seen["tools"]?.objectValue)
        #expect(Set(listed.keys).isSuperset(of: ["phone_data_overview", "phone_data_daily", "phone_data_samples", "phone_data_write"]))
        for (name, tool) in listed {
            let annotations = tool["annotations"]
            #expect(annotations?["readOnlyHint"] != nil && annotations?["destructiveHint"] != nil, "\(name)")
        }
        #expect(listed["phone_data_daily"]?["annotations"]?["readOnlyHint"] == .bool(true))
        #expect(listed["phone_data_write"]?["annotations"]?["readOnlyHint"] == .bool(false))
        let metricEnum = listed["phone_data_samples"]?["metricEnum"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(metricEnum.contains("heartRate") && metricEnum.contains("workoutRoute.latitude") && !metricEnum.contains("insulinDelivery"),
                "the archive's names, not every name the protocol defines: \(metricEnum.count)")
        #expect(seen["groupBy"]?["isError"] == .bool(true) && seen["groupBy"]?["text"]?.stringValue?.contains("the nearest is groupBy") == true,
                "\(seen["groupBy"] ?? .null)")
        #expect(seen["metricsAsString"]?["isError"] == .bool(true) && seen["metricsAsString"]?["text"]?.stringValue?.contains("must be a list") == true)
        #expect(seen["unknownMetric"]?["text"]?.stringValue?.contains("the nearest is steps") == true)
        #expect(seen["unknownTool"]?["rpcError"]?.integerValue == -32602)
        #expect(seen["good"]?["isError"] == .bool(false))
        // The SDK checked each result's structuredContent against the tool's outputSchema; the text is the same object.
        #expect(seen["groupByCamel"]?["isError"] == .bool(false) && seen["groupByCamel"]?["structured"] == .bool(true) && seen["good"]?["structured"] == .bool(true))
        for (name, tool) in listed { #expect(tool["outputSchema"] == .bool(true), "\(name) declares no outputSchema") }
        let older = try JSONParser.parse(seen["good"]?["text"]?.stringValue ?? "")
        let camel = try JSONParser.parse(seen["groupByCamel"]?["text"]?.stringValue ?? "")
        #expect(older["rows"] == camel["rows"] && older["note"]?.stringValue?.hasSuffix("group_by is read as groupBy, the spelling the API and MCP share.") == true,
                "\(older["note"] ?? .null)")
        let long = try JSONParser.parse(seen["longDaily"]?["text"]?.stringValue ?? "")
        // 2016-01-01 … is cut to the archive's 75 days, said in the note, with no page left.
        #expect(long["next"] == nil && long["rows"]?.arrayValue?.count == 75, "\(long["note"] ?? .null)")
        #expect(long["note"]?.stringValue?.hasPrefix("cut to 2025-04-01 … ") == true, "\(long["note"] ?? .null)")
        #expect(seen["missingProfile"]?["error"]?.stringValue?.contains("does not exist: run `efferent init`") == true, "\(seen["missingProfile"] ?? .null)")

        // The tools beyond the answers, against the answers' own figures.
        func answer(_ key: String) throws -> JSONValue {
            #expect(seen[key]?["isError"] == .bool(false), "\(key): \(seen[key] ?? .null)")
            return try JSONParser.parse(seen[key]?["text"]?.stringValue ?? "{}")
        }
        let daily = try answer("dailySteps")
        let stepDays = daily["rows"]?.arrayValue?.compactMap { $0.arrayValue?.last?.numberValue } ?? []
        let latest = try answer("latest")["latest"]?.arrayValue ?? []
        #expect(latest.count == 2 && latest[0]["metric"] == .string("heartRate") && latest[0]["value"]?.numberValue != nil
                && latest[0]["start"]?.stringValue != nil && latest[1]["kind"] == .string("total"), "\(latest)")
        // The last day's steps, as daily gives that day.
        if let last = latest[1]["day"]?.stringValue, let row = daily["rows"]?.arrayValue?.first(where: { $0.arrayValue?.first?.stringValue == last }) {
            #expect(latest[1]["value"] == row.arrayValue?.last, "\(latest[1]) against daily's \(row)")
        }
        let compared = try answer("compare")
        #expect(compared["first"]?["sum"]?.numberValue == stepDays.reduce(0, +) && compared["first"]?["days"]?.integerValue == Int64(stepDays.count),
                "\(compared) against daily's \(stepDays.count) days")
        #expect(compared["change"]?["sum"]?["difference"]?.numberValue == 0)
        let listedWorkouts = try answer("workouts")
        #expect(try answer("compareWorkouts")["first"]?["count"]?.integerValue == listedWorkouts["total"]?.integerValue)
        let rings = try answer("rings")["rows"]?.arrayValue ?? []
        #expect(!rings.isEmpty, "the generated export has Apple's activity summaries")
        for day in rings {
            guard let move = day["move"], let value = move["value"]?.numberValue, let goal = move["goal"]?.numberValue else { continue }
            #expect(move["closed"] == .bool(goal > 0 && value >= goal), "\(day)")
        }
        #expect(try answer("stateOfMind")["rows"] != nil)
        let row = try #require(seen["workoutRow"]?.objectValue, "the generated export has workouts with routes")
        let detail = try answer("workout")
        #expect(detail["distanceMeters"] == row["distanceMeters"] && detail["activity"] == row["activity"], "\(detail) against \(row)")
        #expect(detail["route"]?["fixes"] == row["routeFixes"], "\(detail["route"] ?? .null)")
        let covered = detail["route"]?["distanceMeters"]?.numberValue ?? 0
        #expect(covered > 0 && detail["route"]?["splits"]?.arrayValue?.count == Int(covered / 1000), "\(covered) m")
        #expect((detail["heartRate"]?["points"]?.arrayValue?.count ?? 301) <= 300)
        #expect(seen["noWorkout"]?["isError"] == .bool(true) && seen["noWorkout"]?["text"]?.stringValue?.contains("no workout starts at") == true)
        #expect(seen["resources"]?.arrayValue == [.string("efferent://guide")])
        #expect(seen["guide"]?.stringValue?.contains("Never add up `_samples` of a total") == true)

        // Over HTTP: the same tools, the same refusals and the same answers; no token, no answer.
        let http = try #require(seen["http"])
        for key in ["tools", "groupBy", "metricsAsString", "unknownMetric", "unknownTool", "good", "longDaily", "latest", "rings",
                    "stateOfMind", "compare", "compareWorkouts", "workout", "resources", "guide"] {
            #expect(http[key] == seen[key], "\(key) over HTTP: \(http[key] ?? .null) against stdio's \(seen[key] ?? .null)")
        }
        #expect(http["withoutToken"]?["status"]?.integerValue == 401, "\(http["withoutToken"] ?? .null)")
    }

    /// Issue 29: a mirror's index that does not read is rebuilt from the days, the answer is the
    /// same, and the person is told once on stderr (no value from the days in the sentence).
    @Test func anIndexThatDoesNotReadIsRebuiltAndSaidOnce() throws {
        let archive = try Self.archive()
        defer { try? FileManager.default.removeItem(atPath: archive.work) }
        #expect(try archive.writer.run(["import", archive.work + "/export.zip"]).status == 0)
        #expect(try archive.writer.run(["push"]).status == 0)
        try Self.connect(archive)
        let question = ["daily", "--metric", "steps", "--since", archive.since, "--until", archive.until, "--format", "csv", "--offline"]
        let before = try archive.reader.run(question)
        #expect(before.status == 0 && !before.stderr.contains("index"), "\(before.stderr)")

        let index = archive.work + "/laptop/index.bin"
        #expect(FileManager.default.fileExists(atPath: index))
        try Data("not an index".utf8).write(to: URL(fileURLWithPath: index))
        let rebuilt = try archive.reader.run(question)
        #expect(rebuilt.status == 0 && rebuilt.stdout == before.stdout)
        #expect(rebuilt.stderr.components(separatedBy: "is rebuilt from the days").count == 2, "said once: \(rebuilt.stderr)")
        #expect(rebuilt.stderr.contains(index), "\(rebuilt.stderr)")
        let after = try archive.reader.run(question)
        #expect(after.status == 0 && after.stdout == before.stdout && !after.stderr.contains("index"), "rebuilt and saved: \(after.stderr)")
    }
}
