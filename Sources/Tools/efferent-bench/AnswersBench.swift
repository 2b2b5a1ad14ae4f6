import EfferentClient
import EfferentCore
import EfferentReader
import EfferentSQLite
import Foundation

/// Issue 29: the reader's answers over a generated decade (release binaries), each the median of
/// seven warm calls to the dashboard's JSON API (its `Server-Timing`), beside SQLite answering the
/// same question from the `efferent export sqlite` copy of the same mirror in the same run (a
/// prepared statement over a read-only connection, rows read into Swift values), as a ratio; then
/// `efferent overview` from the CLI (wall time and peak RSS) and the decade's sync.
enum AnswersBench {
    static func run(years: Int = 10) async throws {
        let work = NSTemporaryDirectory() + "efferent-answers-bench-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let (archive, truths, first, last) = try await DecadeArchive.generated(years: years, in: work)
        defer { archive.server.stop() }
        // The same mirror synced again from nothing: what a sync of the decade costs with its index.
        let again = work + "/again"
        try FileManager.default.createDirectory(atPath: again, withIntermediateDirectories: true)
        _ = try await Child.run("efferent", ["connect", "--handoff", work + "/handoff.txt"], home: again)
        let resync = try await Child.run("efferent", ["sync"], home: again)
        let file = work + "/health.db"
        _ = try await Child.run("efferent", ["export", "sqlite", file, "--offline"], home: archive.laptop)
        let sql = try SQLiteConnection(path: file, readOnly: true, create: false)

        let dashboard = try DashboardProcess(home: archive.laptop)
        defer { dashboard.stop() }
        let decade = "since=\(first)&until=\(last)"
        let dailyUntil = CalendarDay(first)!.adding(days: 399).description
        let yearSince = CalendarDay(last)!.adding(days: -364).description
        let questions: [(name: String, api: String, goal: String, reference: () throws -> Int)] = [
            ("samples heartRate, a page of 500", "/api/v1/samples?metric=heartRate&\(decade)", "≤ 50 ms", {
                let page = try sql.statement("SELECT day, start_time, end_time, kind, bucket, unit, source, value FROM events "
                                             + "WHERE metric = 'heartRate' AND day BETWEEN ?1 AND ?2 ORDER BY start_epoch, end_epoch LIMIT 500")
                    .rows([.text(first), .text(last)]) { $0.double(7) }
                let count = try sql.statement("SELECT count(*) FROM events WHERE metric = 'heartRate' AND day BETWEEN ?1 AND ?2")
                    .first([.text(first), .text(last)]) { $0.int64(0) } ?? 0
                return page.count + Int(count)
            }),
            ("statistics heartRate by month", "/api/v1/statistics?metric=heartRate&groupBy=month&\(decade)", "≤ 100 ms", {
                // SQLite has no percentiles: it groups and sorts the readings, Swift takes the ranks.
                var groups = [String: [Double]]()
                _ = try sql.statement("SELECT substr(day, 1, 7) AS month, value FROM events WHERE metric = 'heartRate' "
                                      + "AND day BETWEEN ?1 AND ?2 ORDER BY month, value")
                    .rows([.text(first), .text(last)]) { groups[$0.text(0), default: []].append($0.double(1)) }
                return groups.values.reduce(0) { $0 + (Distribution.percentile($1, 0.5) > 0 ? 1 : 0) }
            }),
            // The question the answer answers: the page's rows, every column read, the count of all
            // and each activity's count and minutes (`total` and `byActivity`).
            ("workouts, one page", "/api/v1/workouts?\(decade)", "≤ 100 ms", {
                let page = try sql.statement("SELECT start_time, end_time, activity, day, minutes, source, distance_meters, active_energy_kcal, "
                                             + "average_heart_rate, maximum_heart_rate, route_fixes FROM workouts WHERE day BETWEEN ?1 AND ?2 "
                                             + "ORDER BY start_epoch, end_epoch, activity LIMIT 1000")
                    .rows([.text(first), .text(last)]) { row in (0..<row.columnCount).map { row.value($0) } }
                let count = try sql.statement("SELECT count(*) FROM workouts WHERE day BETWEEN ?1 AND ?2")
                    .first([.text(first), .text(last)]) { $0.int64(0) } ?? 0
                let activities = try sql.statement("SELECT activity, count(*), sum(minutes) FROM workouts WHERE day BETWEEN ?1 AND ?2 GROUP BY activity")
                    .rows([.text(first), .text(last)]) { ($0.text(0), $0.int64(1), $0.double(2)) }
                return page.count + Int(count) + activities.count
            }),
            // What this row compared with until issue 29's last change: the page's rows stepped
            // through, one column of each read, no count and no activities. Kept, so the change of
            // reference is seen beside the figure it changes.
            ("workouts vs SQLite's page alone, 1 column", "/api/v1/workouts?\(decade)", "≤ 100 ms", {
                try sql.statement("SELECT * FROM workouts WHERE day BETWEEN ?1 AND ?2 ORDER BY start_epoch LIMIT 1000")
                    .rows([.text(first), .text(last)]) { $0.double(6) }.count
            }),
            ("daily steps (a page of 400 days)", "/api/v1/daily?metric=steps&\(decade)", "≤ 100 ms", {
                try sql.statement("SELECT day, value FROM daily WHERE metric = 'steps' AND day BETWEEN ?1 AND ?2 ORDER BY day")
                    .rows([.text(first), .text(dailyUntil)]) { $0.double(1) }.count
            }),
            ("overview (API, every day)", "/api/v1/overview", "≤ 100 ms", { try overviewFromSQL(sql) }),
            ("overview (API, the decade asked)", "/api/v1/overview?\(decade)", "≤ 100 ms", { try overviewFromSQL(sql, from: first, through: last) }),
            ("overview (API, one year asked)", "/api/v1/overview?since=\(yearSince)&until=\(last)", "≤ 100 ms", {
                try overviewFromSQL(sql, from: yearSince, through: last)
            }),
        ]
        // One call each first: the dashboard's first answer waits for the index it loads at start.
        let cold = try dashboard.page("/", api: "/api/v1/overview")
        var rows = [(name: String, server: Double, reference: Double, goal: String)]()
        for question in questions {
            _ = try dashboard.page("/", api: question.api)
            let server = try (0..<7).map { _ in try dashboard.page("/", api: question.api).apiServer }.sorted()[3]
            _ = try question.reference()
            let reference = try (0..<7).map { _ in
                let started = DispatchTime.now().uptimeNanoseconds
                _ = try question.reference()
                return Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
            }.sorted()[3]
            rows.append((question.name, server, reference, question.goal))
        }
        let overview = try await Child.median(5) { try await Child.run("efferent", ["overview", "--offline"], home: archive.laptop, quiet: true) }
        // MCP's first answer as an agent starts it: a fresh `efferent mcp`, just after a sync (so it does not refresh first).
        _ = try await Child.run("efferent", ["sync"], home: archive.laptop, quiet: true)
        let mcp = try (0..<5).map { _ in try MCPProbe.run(Child.binary("efferent"), home: archive.laptop) }.sorted { $0.seconds < $1.seconds }[2]
        let overviewSQL = try (0..<5).map { _ in
            let started = DispatchTime.now().uptimeNanoseconds
            _ = try overviewFromSQL(sql)
            return Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        }.sorted()[2]

        let beforeAndNow = try await compareWithBefore(archive: archive, work: work, questions: questions.reduce(into: []) { asked, question in
            if !asked.contains(where: { $0.api == question.api }) { asked.append((question.name, question.api)) }
        }, first: first, last: last)

        let inProcess = try compareInProcess(laptop: archive.laptop, first: CalendarDay(first)!, last: CalendarDay(last)!)

        Measure.header("Answers over a generated \(years)-year mirror: the dashboard's /api/v1 (server time) beside SQLite over its export (medians of 7)")
        print("  mirror: \(first) … \(last), \(truths["recordCounts"]?["heartRate"]?.integerValue ?? 0) heart-rate readings; "
              + "first answer after the dashboard started \(String(format: "%.0f ms", cold.apiServer * 1000))")
        for row in rows {
            Measure.row(row.name, Measure.format(row.server * 1000, "ms", digits: 1), "SQLite " + Measure.format(row.reference * 1000, "ms", digits: 1),
                        ratio: row.server / row.reference, goal: row.goal + ", ≤ 2× SQLite")
        }
        Measure.row("efferent overview (CLI, median 5)", Measure.format(overview.seconds * 1000, "ms", digits: 0),
                    "SQLite " + Measure.format(overviewSQL * 1000, "ms", digits: 1), ratio: overview.seconds / overviewSQL, goal: "≤ 0.5 s")
        Measure.row("efferent overview peak RSS", Measure.format(overview.peakMiB, "MiB", digits: 0), "", ratio: nil, goal: "≤ 150 MB")
        Measure.row("phone_data_overview (MCP stdio, median 5)", Measure.format(mcp.seconds * 1000, "ms", digits: 0),
                    "SQLite " + Measure.format(overviewSQL * 1000, "ms", digits: 1), ratio: mcp.seconds / overviewSQL, goal: "≤ 0.5 s, start to answer")
        Measure.row("phone_data_overview peak RSS", Measure.format(mcp.peakMiB, "MiB", digits: 0), "", ratio: nil, goal: "≤ 150 MB")
        Measure.row("efferent sync of the decade (index written)", Measure.format(resync.seconds, "s", digits: 2),
                    "first sync " + Measure.format(archive.sync.seconds, "s", digits: 2), ratio: nil, goal: "within 10 % of before")
        Measure.row("  its CPU (user+sys)", Measure.format(resync.cpuSeconds, "s", digits: 2),
                    "first sync " + Measure.format(archive.sync.cpuSeconds, "s", digits: 2), ratio: nil, goal: "")
        print("    dashboard peak RSS \(String(format: "%.0f MiB", dashboard.peakRSSMiB))")
        if let beforeAndNow { print(beforeAndNow, terminator: "") }
        print("  in this process (release, warm, medians, each with its JSON made): each answer as the request gives it (index) beside the answer's own")
        print("  constructor reading the days (what every answer did before the index), and whether their JSON is the same bytes")
        for row in inProcess {
            Measure.row("  " + row.name, Measure.format(row.index * 1000, "ms", digits: 1), "days " + Measure.format(row.days * 1000, "ms", digits: 0),
                        ratio: row.index / row.days, goal: row.identical ? "identical JSON" : "JSON DIFFERS")
        }
    }

    /// The mirror opened here: each question answered by the request (from the index where it
    /// can) and by the answer's constructor over the days, timed, and their JSON compared.
    static func compareInProcess(laptop: String, first: CalendarDay, last: CalendarDay) throws -> [(name: String, index: Double, days: Double, identical: Bool)] {
        let profile = Profile(directory: laptop)
        let endpoint = try JSONParser.parse(try profile.read(Mirror.fileName))["endpoint"]?.stringValue ?? ""
        let source = MirrorSource(mirror: try Mirror(profile: profile, endpoint: endpoint))
        let decade = try DayRange(since: first, until: last), page = try DayRange(since: first, until: first.adding(days: 399))
        func request(_ kind: AnswerRequest.Kind, _ metric: String?, _ metrics: [String] = [], groupBy: String? = nil) -> AnswerRequest {
            AnswerRequest(kind: kind, since: first, until: last, metrics: metrics, metric: metric, groupBy: groupBy)
        }
        let questions: [(String, AnswerRequest, () throws -> any Answer)] = [
            ("samples heartRate, 500 rows", request(.samples, "heartRate"), { try SamplesAnswer(from: source, metric: "heartRate", range: decade) }),
            ("statistics heartRate by month", request(.statistics, "heartRate", groupBy: "month"),
             { try StatisticsAnswer(from: source, metric: "heartRate", range: decade, groupBy: .month) }),
            ("daily steps, 400 days", request(.daily, nil, ["steps"]), { try DailyAnswer(from: source, metrics: ["steps"], range: page) }),
            ("daily heartRate, 400 days", request(.daily, nil, ["heartRate"]), { try DailyAnswer(from: source, metrics: ["heartRate"], range: page) }),
            ("statistics steps by week", request(.statistics, "steps", groupBy: "week"),
             { try StatisticsAnswer(from: source, metric: "steps", range: decade, groupBy: .week) }),
            ("workouts, first page", request(.workouts, nil), { try WorkoutsAnswer(from: source, range: decade) }),
            ("workouts, second page", { var asked = request(.workouts, nil); asked.offset = DayRange.Limits.maximumRows; return asked }(),
             { try WorkoutsAnswer(from: source, range: decade, offset: DayRange.Limits.maximumRows) }),
            ("overview, every day", AnswerRequest(kind: .overview), { try OverviewAnswer(from: source) }),
        ]
        func median(_ runs: Int, _ body: () throws -> Void) rethrows -> Double {
            try (0..<runs).map { _ in
                let started = DispatchTime.now().uptimeNanoseconds
                try body()
                return Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
            }.sorted()[runs / 2]
        }
        // What the index costs: loading it as a command does (index.bin read, every day's file
        // stamped), and what sync adds (every day digested as it is stored).
        let mirror = source.mirror
        let load = try median(5) { _ = try Mirror(profile: profile, endpoint: endpoint).indexSnapshot() }
        let digest = try median(1) {
            for day in mirror.days { _ = try MirrorDigest.digest(try mirror.body(day) ?? [], day: day, stamp: mirror.uploaded(day) ?? "") }
        }
        let indexMiB = Double((try? FileManager.default.attributesOfItem(atPath: profile.path("index.bin"))[.size] as? Int) ?? 0) / 1_048_576
        print(String(format: "  the index: %.1f MiB on disk; loaded and checked against %d days' files in %.0f ms; every day digested (what sync adds) in %.2f s",
                     indexMiB, mirror.days.count, load * 1000, digest))
        return try questions.map { name, question, days in
            let byIndex = try question.answer(from: source, today: last, pageDays: AnswerScope.pageDays).answer
            let byDays = try days()
            // The bytes every surface writes (a page of workouts straight as text) against the days' JSON value written.
            let identical = try byIndex.jsonBytes { _ in } == byDays.json.canonicalBytes()
            // Each timed with its JSON made: a page of workouts fills its statistics only then.
            let index = try median(7) { _ = try question.answer(from: source, today: last, pageDays: AnswerScope.pageDays).answer.jsonBytes { _ in } }
            let read = try median(3) { _ = try days().json }
            return (name, index, read, identical)
        }
    }

    /// The overview's lines from the copy's per-day series counts (what `metrics` and the index hold),
    /// of every day or of the days from `from` through `through`.
    static func overviewFromSQL(_ sql: SQLiteConnection, from: String = "0001-01-01", through: String = "9999-12-31") throws -> Int {
        try sql.statement("SELECT s.metric, min(s.kind), min(d.day), max(d.day), count(DISTINCT d.day), sum(d.events) "
                          + "FROM series_days d JOIN series s ON s.series_id = d.series_id WHERE d.day BETWEEN ?1 AND ?2 "
                          + "GROUP BY s.metric ORDER BY s.metric")
            .rows([.text(from), .text(through)]) { $0.int64(5) }.count
    }
}
