import EfferentExportGenerator
import EfferentTestSupport
import Foundation
import Testing

/// Decision A.14 as an owner meets it: one history (`efferent-export-gen --two-doors`: quantities,
/// sleep, workouts of every activity the export generator writes, in the app's words, with
/// statistics, events, their activity, heart rate and its series, and GPX routes, rings) fed to
/// four archives on one real service — by `efferent import` alone, by the phone alone over real
/// HTTP to a real `efferent receive`, import then phone, and phone then import — each pushed.
/// Every day the service holds of an archive fed through both doors reads back, event for event,
/// as the archive of the door that came first: nothing twice, nothing lost; and day by day it
/// holds as many heart-rate readings and workouts as the export alone (issue 45: at the
/// protocol's word, 0 extra of either).
@Suite struct BothDoorsLoopTests {
    /// Three weeks in the suite; `EFFERENT_BOTH_DOORS_DAYS=365` measures a year (issue 45's figure).
    static let days = ProcessInfo.processInfo.environment["EFFERENT_BOTH_DOORS_DAYS"].flatMap(Int.init) ?? 21
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

        // Readings and workouts, day by day, against the export alone: none extra, none missing.
        let alone = Self.readingsAndWorkouts(byExport)
        #expect(alone.values.reduce(0) { $0 + $1.workouts } == Self.days, "a workout a day")
        for (order, events) in [("phone alone", byPhone), ("import → phone", afterImport), ("phone → import", afterPhone)] {
            let tallied = Self.readingsAndWorkouts(events)
            let days = Set(alone.keys).union(tallied.keys)
            let extraReadings = days.reduce(0) { $0 + abs((tallied[$1]?.readings ?? 0) - (alone[$1]?.readings ?? 0)) }
            let extraWorkouts = days.reduce(0) { $0 + abs((tallied[$1]?.workouts ?? 0) - (alone[$1]?.workouts ?? 0)) }
            print("two doors, \(order), \(Self.days) days: \(extraReadings) readings and \(extraWorkouts) workouts off the export alone's "
                  + "\(alone.values.reduce(0) { $0 + $1.readings }) and \(alone.values.reduce(0) { $0 + $1.workouts })")
            #expect(extraReadings == 0 && extraWorkouts == 0, "\(order): \(extraReadings) readings, \(extraWorkouts) workouts off the export alone")
        }
        // Each workout under HealthKit's number for its activity, from the phone as from the export.
        let activities = Set(byPhone.compactMap { line in Self.activity(line) })
        #expect(activities == Set(["37", "52", "13", "57", "50", "46"].prefix(Self.days)), "\(activities)")
    }

    /// Per day (`"day"` of each event line): heart-rate readings and workouts.
    static func readingsAndWorkouts(_ lines: [String]) -> [String: (readings: Int, workouts: Int)] {
        var tally = [String: (readings: Int, workouts: Int)]()
        for line in lines {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let metric = object["metric"] as? String, let day = object["day"] as? String ?? (object["start"] as? String).map({ String($0.prefix(10)) })
            else { continue }
            if metric == "heartRate" { tally[day, default: (0, 0)].readings += 1 }
            if metric == "workout" { tally[day, default: (0, 0)].workouts += 1 }
        }
        return tally
    }

    /// A workout line's activity number.
    static func activity(_ line: String) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], object["metric"] as? String == "workout" else {
            return nil
        }
        return object["activity"] as? String
    }
}
