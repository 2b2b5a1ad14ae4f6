import EfferentExportGenerator
import EfferentTestSupport
import Foundation
import Testing

/// Decision A.14 as an owner meets it: one history (`efferent-export-gen --two-doors`: quantities,
/// sleep, workouts with statistics, events and GPX routes, rings) fed to four archives on one real
/// service — by `efferent import` alone, by the phone alone over real HTTP to a real `efferent
/// receive`, import then phone, and phone then import — each pushed. Every day the service holds
/// of an archive fed through both doors reads back, event for event, as the archive of the door
/// that came first: nothing twice, nothing lost.
@Suite struct BothDoorsLoopTests {
    static let days = 21
    static let lastDay = LocalDate(year: 2025, month: 3, day: 21)

    /// One archive, its writer and (when the phone feeds it) its pairing.
    struct Archive {
        let writer: PairedWriter

        init(_ name: String, work: String, server: ServerProcess) throws {
            writer = try PairedWriter(home: work + "/" + name, server: server)
        }

        func importing(_ folder: String) throws {
            let imported = try writer.runner.run(["import", folder + "/export.xml"])
            #expect(imported.status == 0, "\(imported.stdout) \(imported.stderr)")
        }

        /// Every batch posted to a real receiver, each answered 200; the receiver then stopped.
        func receiving(_ batches: [String], home: String) throws {
            let receiver = try RunningReceiver(home: home, arguments: ["--debounce", "3600"])
            let phone = PulsPhone(port: receiver.port, token: writer.token, user: writer.user)
            for batch in batches {
                let answer = try phone.postRetrying(batch)
                #expect(answer.status == 200, "\(answer.body)")
            }
            #expect(receiver.terminate() == 0, "\(receiver.log)")

        }

        func push() throws {
            let pushed = try writer.runner.run(["push"])
            #expect(pushed.status == 0, "\(pushed.stdout) \(pushed.stderr)")
        }

        /// Every event of every day, as the service holds the sealed days (one JSON line each).
        func events(since: String, until: String) throws -> [String] {
            let read = try writer.runner.run(["read", "--since", since, "--until", until])
            #expect(read.status == 0, "\(read.stderr)")
            return read.stdout.split(separator: "\n").map(String.init)
        }
    }

    @Test func bothDoorsInEitherOrderReadBackAsTheFirstDoorsArchive() throws {
        let work = NSTemporaryDirectory() + "efferent-both-doors-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: work) }
        let folder = work + "/history"
        let written = try TwoDoorExport.write(to: URL(fileURLWithPath: folder), seed: 2828, lastDay: Self.lastDay, days: Self.days,
                                              batchSize: 500)
        let batches = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix("batch-") }.sorted()
            .map { try String(contentsOfFile: folder + "/" + $0, encoding: .utf8) }
        #expect(batches.count == written.batches && FileManager.default.fileExists(atPath: folder + "/workout-routes"))

        // Four archives from one address: more claims in a minute than the service's default allows.
        let server = try ServerProcess(data: work + "/service", arguments: ["--admission", "open", "--rate-limits", "off"])
        let exportOnly = try Archive("export", work: work, server: server)
        try exportOnly.importing(folder)
        let phoneOnly = try Archive("phone", work: work, server: server)
        try phoneOnly.receiving(batches, home: work + "/phone")
        let importFirst = try Archive("import-first", work: work, server: server)
        try importFirst.importing(folder)
        try importFirst.push()
        try importFirst.receiving(batches, home: work + "/import-first")
        let phoneFirst = try Archive("phone-first", work: work, server: server)
        try phoneFirst.receiving(batches, home: work + "/phone-first")
        try phoneFirst.push()
        try phoneFirst.importing(folder)
        for archive in [exportOnly, phoneOnly] { try archive.push() }
        // The second door changed no day's body: what it re-sealed (a ring replaced by the same
        // figures) is unchanged, and nothing is sent again.
        for archive in [importFirst, phoneFirst] {
            let pushed = try archive.writer.runner.run(["push"])
            #expect(pushed.status == 0 && pushed.stdout.hasPrefix("sent 0 days"), "\(pushed.stdout) \(pushed.stderr)")
        }

        // The history's days, and one either side (a night begins the evening before).
        let first = LocalDate(daysSinceEpoch: Self.lastDay.daysSinceEpoch - Self.days)
        let last = LocalDate(daysSinceEpoch: Self.lastDay.daysSinceEpoch + 1)
        let (since, until) = (first.description, last.description)
        let byExport = try exportOnly.events(since: since, until: until)
        let byPhone = try phoneOnly.events(since: since, until: until)
        // Every kind the history holds reached the archive, from either door.
        for metric in ["\"heartRate\"", "\"workoutRoute.altitude\"", "\"workout.event\"", "\"activitySummary.", "\"sleep\""] {
            #expect(byExport.contains { $0.contains(metric) } && byPhone.contains { $0.contains(metric) }, "\(metric) in both")
        }
        #expect(byExport.count == byPhone.count, "one door or the other: the same number of events")
        let afterImport = try importFirst.events(since: since, until: until)
        let afterPhone = try phoneFirst.events(since: since, until: until)
        #expect(afterImport.count == byExport.count && afterImport == byExport, "import → phone reads as the export alone")
        #expect(afterPhone.count == byPhone.count && afterPhone == byPhone, "phone → import reads as the phone alone")
    }
}
