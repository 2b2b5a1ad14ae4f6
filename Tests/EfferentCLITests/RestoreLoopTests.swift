import EfferentExportGenerator
import EfferentTestSupport
import EfferentSystem
import Foundation
import Testing

/// Issue 40 item 3 as an owner who lost a laptop meets it, with the real binaries, a real service
/// on loopback, real HTTP to a real `efferent receive` and real SQLite files. A writer fed one
/// history through both doors (`efferent-export-gen --two-doors`: the export, then the phone) and
/// pushed writes a kit and verifies it; an empty EFFERENT_HOME restores from the kit alone; then
/// the restored writer pushes (nothing), imports the old export again (nothing sent, nothing twice),
/// is paired again and takes the phone's whole backfill over HTTP (nothing sent, nothing twice),
/// and its archive, its `daily` and a reader set up from the kit read day for day as the old
/// writer's. Its `check` agrees as the old one's did, an agent's edit reaches the archive, and
/// the kit's refusals write nothing into the empty home.
@Suite(.serialized) struct RestoreLoopTests {
    static let days = 14
    static let lastDay = LocalDate(year: 2025, month: 3, day: 21)

    @Test func restoredWriterCarriesOnAsTheLostOne() throws {
        let work = NSTemporaryDirectory() + "efferent-restore-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: work) }
        let folder = work + "/history"
        let written = try TwoDoorExport.write(to: URL(fileURLWithPath: folder), seed: 4040, lastDay: Self.lastDay, days: Self.days,
                                              batchSize: 500)
        let batches = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix("batch-") }.sorted()
            .map { try String(contentsOfFile: folder + "/" + $0, encoding: .utf8) }
        #expect(batches.count == written.batches)
        let server = try ServerProcess(data: work + "/service", arguments: ["--admission", "open", "--rate-limits", "off"])

        // The lost laptop: export, then the phone, pushed; a kit written and verified.
        let old = try PairedWriter(home: work + "/old", server: server, zone: "Europe/Amsterdam")
        #expect(try old.runner.run(["import", folder + "/export.xml"]).status == 0)
        try Self.receive(batches, into: work + "/old", token: old.token, user: old.user)
        #expect(try old.runner.run(["push"]).status == 0)
        let passphrase = work + "/passphrase"
        try "quartz-meadow-ember-violin-harbor\n".write(toFile: passphrase, atomically: true, encoding: .utf8)
        try FileMode.set(0o600, on: passphrase)
        let kit = work + "/kit.txt"
        #expect(try old.runner.run(["keys", "backup", "--passphrase-file", passphrase, "--out", kit]).status == 0)
        let verified = try old.runner.run(["keys", "verify", "--passphrase-file", passphrase, kit])
        #expect(verified.status == 0, "\(verified.stdout) \(verified.stderr)")

        let first = LocalDate(daysSinceEpoch: Self.lastDay.daysSinceEpoch - Self.days).description
        let last = LocalDate(daysSinceEpoch: Self.lastDay.daysSinceEpoch + 1).description
        func events(_ runner: CommandRunner) throws -> [String] {
            let read = try runner.run(["read", "--since", first, "--until", last])
            #expect(read.status == 0, "\(read.stderr)")
            return read.stdout.split(separator: "\n").map(String.init)
        }
        func daily(_ runner: CommandRunner) throws -> String {
            let answer = try runner.run(["daily", "--metric", "steps", "--metric", "activeEnergy", "--metric", "heartRate", "--since", first,
                                         "--until", last, "--format", "csv"])
            #expect(answer.status == 0, "\(answer.stderr)")
            return answer.stdout
        }
        let before = try events(old.runner)
        let dailyBefore = try daily(old.runner)
        let checkBefore = try old.runner.run(["check"]).stdout
        #expect(before.count > 1000 && dailyBefore.split(whereSeparator: \.isNewline).count > Self.days, "\(before.count) events; daily: \(dailyBefore.prefix(600))")

        // A kit refused writes nothing into the empty home.
        let lost = CommandRunner(home: work + "/new")
        let wrong = work + "/wrong"
        try "quartz-meadow-ember-violin-harbour\n".write(toFile: wrong, atomically: true, encoding: .utf8)
        try FileMode.set(0o600, on: wrong)
        let refused = try lost.run(["init", "--recover", kit, "--passphrase-file", wrong])
        #expect(refused.status != 0 && refused.stderr.contains("The passphrase does not open this kit"), "\(refused.stderr)")
        #expect(RecoveryKitTests.snapshot(lost.home).isEmpty, "nothing written")

        // The new laptop: the kit alone.
        let restored = try lost.run(["init", "--recover", kit, "--passphrase-file", passphrase])
        #expect(restored.status == 0, "\(restored.stdout) \(restored.stderr)")
        #expect(restored.stdout.contains("restored archive ") && restored.stdout.contains("\(Self.days + 1) days")
                || restored.stdout.contains(" days, "), "\(restored.stdout)")
        #expect(restored.stdout.contains("not recovered: each phone's pairing"), "says what it cannot bring back: \(restored.stdout)")
        #expect(!FileManager.default.fileExists(atPath: lost.home + "/restore.unfinished"))
        #expect(try lost.run(["init", "--recover", kit, "--passphrase-file", passphrase]).stderr.contains("already holds an archive"))

        let pushed = try lost.run(["push"])
        #expect(pushed.status == 0 && pushed.stdout.hasPrefix("sent 0 days"), "first push after: \(pushed.stdout) \(pushed.stderr)")

        // The export the old writer imported, imported again: nothing sent, nothing twice.
        let imported = try lost.run(["import", folder + "/export.xml"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let afterImport = try lost.run(["push"])
        #expect(afterImport.status == 0 && afterImport.stdout.hasPrefix("sent 0 days"), "after import: \(afterImport.stdout)")

        // The phone paired again, backfilling the history the archive holds: nothing sent, nothing twice.
        let pairing = try lost.run(["receive", "pair", "--url", "https://health.example.net/puls", "--name", "Anna's iPhone"]).stdout
        func field(_ label: String) -> String {
            pairing.split(separator: "\n").first { $0.hasPrefix("  \(label) ") }
                .map { String($0.dropFirst(label.count + 3)).trimmingCharacters(in: .whitespaces) } ?? ""
        }
        try Self.receive(batches, into: lost.home, token: field("token"), user: field("user ID"))
        let afterPhone = try lost.run(["push"])
        #expect(afterPhone.status == 0 && afterPhone.stdout.hasPrefix("sent 0 days"), "after the phone: \(afterPhone.stdout)")

        let after = try events(lost)
        #expect(after.count == before.count && after == before, "the archive reads as the lost writer left it")
        #expect(try daily(lost) == dailyBefore, "daily, day for day")
        #expect(try lost.run(["check"]).stdout == checkBefore, "check agrees as before")

        // A reader from the kit reads the same days.
        let reader = CommandRunner(home: work + "/reader")
        let asReader = try reader.run(["keys", "restore", "--reader", "--passphrase-file", passphrase, kit])
        #expect(asReader.status == 0, "\(asReader.stderr)")
        #expect(try reader.run(["sync"]).status == 0)
        #expect(try daily(reader) == dailyBefore, "a reader set up from the kit")

        // An agent's edit, applied by the restored writer, reaches the archive.
        let agent = CommandRunner(home: work + "/agent")
        #expect(try agent.run(["connect", "--handoff", lost.home + "/handoff.txt"]).status == 0)
        let items = work + "/weight.json"
        // 2025-03-21 08:00 UTC, the history's last day.
        try #"[{"op":"put","id":"agent:weight:0321","metric":"bodyMass","start":1742544000,"end":1742544000,"value":71.5,"unit":"kg"}]"#
            .write(toFile: items, atomically: true, encoding: .utf8)
        let wrote = try agent.run(["write", "--items", items])
        #expect(wrote.status == 0, "\(wrote.stdout) \(wrote.stderr)")
        let applied = try lost.run(["push"])
        #expect(applied.status == 0 && !applied.stdout.hasPrefix("sent 0 days"), "\(applied.stdout) \(applied.stderr)")
        #expect(try events(lost).contains { $0.contains("\"bodyMass\"") && $0.contains("71.5") })
    }

    /// Every batch posted to a real receiver on `home`, each answered 200; the receiver then stopped.
    static func receive(_ batches: [String], into home: String, token: String, user: String) throws {
        let receiver = try RunningReceiver(home: home, arguments: ["--debounce", "3600"])
        let phone = PulsPhone(port: receiver.port, token: token, user: user)
        for batch in batches {
            let answer = try phone.postRetrying(batch)
            #expect(answer.status == 200, "\(answer.body)")
        }
        #expect(receiver.terminate() == 0, "\(receiver.log)")
    }
}
