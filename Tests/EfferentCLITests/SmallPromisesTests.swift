import EfferentCore
import EfferentExportGenerator
import EfferentTestSupport
import EfferentSystem
import Foundation
import Testing

/// Issue 41 item 5 through the real binaries: the command line's small promises kept — a failed
/// claim leaves no profile behind, a reader without a mirror is told so with exit 1, a failed
/// export leaves no `.partial`, a first import reports nothing "already here", a mistyped
/// subcommand or option gets "did you mean", a refusal names the flag typed, and `--help` says
/// what the output shows.
@Suite(.serialized) struct SmallPromisesTests {
    @Test func theCommandLinesSmallPromisesAreKept() throws {
        let work = NSTemporaryDirectory() + "efferent-promises-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        _ = try ExportGenerator(options: ExportOptions(seed: 41, days: 20)).writeZip(to: URL(fileURLWithPath: work + "/export.zip"))
        let server = try ServerProcess(data: work + "/service", arguments: ["--admission", "open"])
        let writer = CommandRunner(home: work + "/phone"), reader = CommandRunner(home: work + "/laptop")

        // A mistyped --server: nothing could be claimed, so nothing is kept, and the corrected init works.
        let typo = try writer.run(["init", "--server", "http://127.0.0.1:1", "--time-zone", "Europe/Paris"])
        #expect(typo.status == 1 && typo.stderr.contains("Cannot reach the archive service at http://127.0.0.1:1"), "\(typo.stderr)")
        #expect(typo.stderr.contains("the keys this run made were removed"), "\(typo.stderr)")
        for name in ["profile.json", "reading-key.json", "writer-key.json", "editor-key.json"] {
            #expect(!FileManager.default.fileExists(atPath: work + "/phone/" + name), "\(name) was left behind")
        }
        let corrected = try writer.run(["init", "--server", server.url, "--time-zone", "Europe/Paris"])
        #expect(corrected.status == 0, "\(corrected.stderr)")

        // A first import: nothing was here before, so nothing is "already here".
        let first = try writer.run(["import", work + "/export.zip"])
        #expect(first.status == 0 && !first.stdout.contains("already here"), "\(first.stdout)")
        let again = try writer.run(["import", work + "/export.zip"])
        #expect(again.status == 0 && again.stdout.contains(": 0 new, ") && again.stdout.contains("already here"), "\(again.stdout)")
        #expect(try writer.run(["push"]).status == 0)

        // A reader with no mirror yet: exit 1 and one whole sentence saying what to run.
        let handoff = work + "/handoff.txt"
        try writer.run(["handoff"]).stdout.write(toFile: handoff, atomically: true, encoding: .utf8)
        try FileMode.set(0o600, on: handoff)
        #expect(try reader.run(["connect", "--handoff", handoff]).status == 0)
        for command in [["overview"], ["daily"], ["sleep", "--format", "json"]] {
            let empty = try reader.run(command + ["--offline"])
            #expect(empty.status == 1 && empty.stdout.isEmpty, "\(command): \(empty.status) \(empty.stdout)")
            #expect(empty.stderr == "error: This reader's mirror holds no day yet: run efferent sync to fetch the archive, then ask again.\n",
                    "\(command): \(empty.stderr)")
        }
        #expect(try reader.run(["sync"]).status == 0)
        #expect(try reader.run(["overview", "--offline"]).status == 0)

        // A failed export leaves nothing, not even an empty `.partial`.
        let route = work + "/route.gpx"
        let noWorkout = try reader.run(["export", "route", "--start", "2001-01-01T00:00:00Z", "--out", route, "--offline"])
        #expect(noWorkout.status != 0 && noWorkout.stderr.contains("no workout starts at"), "\(noWorkout.stderr)")
        #expect(!FileManager.default.fileExists(atPath: route) && !FileManager.default.fileExists(atPath: route + ".partial"))
        let refused = try reader.run(["export", "daily", "--metric", "stepz", "--out", work + "/daily.csv", "--offline"])
        #expect(refused.status == 64 && !FileManager.default.fileExists(atPath: work + "/daily.csv.partial"), "\(refused.stderr)")

        // "Did you mean" for a subcommand and an option; a refusal names the flag typed.
        let dayly = try reader.run(["dayly"])
        #expect(dayly.status == 64 && dayly.stderr == "error: 'dayly' is not a subcommand of efferent. Did you mean 'daily'? See 'efferent --help' for them all.\n",
                "\(dayly.stderr)")
        let option = try reader.run(["daily", "--metrc", "steps"])
        #expect(option.status == 64 && option.stderr.contains("Did you mean --metric?"), "\(option.stderr)")
        let fortnight = try reader.run(["statistics", "--metric", "steps", "--group-by", "fortnight"])
        #expect(fortnight.status == 64 && fortnight.stderr == "error: --group-by takes day, week, month or year; fortnight is none of them.\n",
                "\(fortnight.stderr)")

        // --help says what the output shows: the table's columns, and where the per-activity counts are.
        let help = try reader.run(["workouts", "--help"])
        let table = try reader.run(["workouts", "--since", "2025-05-01", "--until", "2025-06-14", "--offline"])
        #expect(!help.stdout.contains("a count per activity") && help.stdout.contains("--format json adds the count and minutes of each activity"),
                "\(help.stdout)")
        let header = table.stdout.split(separator: "\n").first ?? ""
        for column in ["start", "activity", "minutes", "source"] { #expect(header.contains(column), "\(header)") }
    }
}
