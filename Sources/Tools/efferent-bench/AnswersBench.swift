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
        let export = work + "/export.zip"
        _ = try await Child.run("efferent-export-gen", ["--years", String(years), "--out", export], home: work)
        let truths = try JSONParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: work + "/export.truths.json"))))
        let first = truths["firstDate"]?.stringValue ?? "2015-06-15", last = truths["lastDate"]?.stringValue ?? "2025-06-14"
        let archive = try await DecadeArchive(work: work, export: export)
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
            ("workouts, one page", "/api/v1/workouts?\(decade)", "≤ 100 ms", {
                try sql.statement("SELECT * FROM workouts WHERE day BETWEEN ?1 AND ?2 ORDER BY start_epoch LIMIT 1000")
                    .rows([.text(first), .text(last)]) { $0.double(6) }.count
            }),
            ("daily steps (a page of 400 days)", "/api/v1/daily?metric=steps&\(decade)", "≤ 100 ms", {
                try sql.statement("SELECT day, value FROM daily WHERE metric = 'steps' AND day BETWEEN ?1 AND ?2 ORDER BY day")
                    .rows([.text(first), .text(dailyUntil)]) { $0.double(1) }.count
            }),
            ("overview of the decade (API)", "/api/v1/overview?\(decade)", "≤ 100 ms", { try overviewFromSQL(sql) }),
        ]
        // One call each first: the dashboard's first answer waits for the index it loads at start.
        let cold = try dashboard.page("/", api: "/api/v1/overview?\(decade)")
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
        let overviewSQL = try (0..<5).map { _ in
            let started = DispatchTime.now().uptimeNanoseconds
            _ = try overviewFromSQL(sql)
            return Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        }.sorted()[2]

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
        Measure.row("efferent sync of the decade (index written)", Measure.format(resync.seconds, "s", digits: 2),
                    "first sync " + Measure.format(archive.sync.seconds, "s", digits: 2), ratio: nil, goal: "within 10 % of before")
        print("    dashboard peak RSS \(String(format: "%.0f MiB", dashboard.peakRSSMiB))")
    }

    /// The overview's lines from the copy's per-day series counts (what `metrics` and the index hold).
    static func overviewFromSQL(_ sql: SQLiteConnection) throws -> Int {
        try sql.statement("SELECT s.metric, min(s.kind), min(d.day), max(d.day), count(DISTINCT d.day), sum(d.events) "
                          + "FROM series_days d JOIN series s ON s.series_id = d.series_id GROUP BY s.metric ORDER BY s.metric")
            .rows { $0.int64(5) }.count
    }
}
