import EfferentCore
import Foundation
#if canImport(Glibc)
import Glibc
import EfferentSystem
#endif

/// Issue 20: a generated decade through the release binaries, then the mirror as SQL — the export
/// to a file (time and peak RSS, beside `efferent query` of every metric of the same decade) and
/// `efferent sql` for a one-year daily aggregate once its copy is built (beside `efferent daily`
/// for the same year).
enum SQLBench {
    static func run(years: Int = 10) async throws {
        let work = NSTemporaryDirectory() + "efferent-sql-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let export = work + "/export.zip"
        _ = try await Child.run("efferent-export-gen", ["--years", String(years), "--out", export], home: work)
        let truths = try JSONParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: work + "/export.truths.json"))))
        let server = try BenchServer(data: work + "/service")
        defer { server.stop() }
        let url = "http://127.0.0.1:\(server.port)"
        _ = try await Child.run("efferent", ["init", "--server", url, "--time-zone", "Europe/Paris"], home: work + "/phone")
        _ = try await Child.run("efferent", ["import", export], home: work + "/phone")
        _ = try await Child.run("efferent", ["push"], home: work + "/phone")
        let handoff = try await Child.run("efferent", ["handoff"], home: work + "/phone")
        try handoff.output.write(toFile: work + "/handoff.txt", atomically: true, encoding: .utf8)
        try FileMode.set(0o600, on: work + "/handoff.txt")
        let laptop = work + "/laptop"
        _ = try await Child.run("efferent", ["connect", "--handoff", work + "/handoff.txt"], home: laptop)
        _ = try await Child.run("efferent", ["sync"], home: laptop)

        // Reference: every event of the decade out of the mirror, as `efferent query` prints them.
        let query = try await Child.median(3) { try await Child.run("efferent", ["query"], home: laptop, quiet: true) }
        let file = work + "/health.db"
        let built = try await Child.run("efferent", ["export", "sqlite", file, "--offline"], home: laptop)
        let fileMiB = Double((try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0) / 1_048_576
        let unchanged = try await Child.median(3) { try await Child.run("efferent", ["export", "sqlite", file, "--offline"], home: laptop) }

        // A one-year daily aggregate: `efferent sql` after its copy is built, against `efferent daily`.
        let last = truths["lastDate"]?.stringValue ?? "2025-06-14"
        let year = String(last.prefix(4))
        let firstSQL = try await Child.run("efferent", ["sql", "--offline", "SELECT 1"], home: laptop, quiet: true)
        let aggregate = "SELECT strftime('%m', day) AS month, sum(value) AS steps FROM daily WHERE metric = 'steps' "
            + "AND day BETWEEN '\(year)-01-01' AND '\(year)-12-31' GROUP BY month"
        let sql = try await Child.median(5) { try await Child.run("efferent", ["sql", "--offline", aggregate], home: laptop, quiet: true) }
        let daily = try await Child.median(5) {
            try await Child.run("efferent", ["daily", "--metric", "steps", "--since", "\(year)-01-01", "--until", min(last, "\(year)-12-31"),
                                             "--offline"], home: laptop, quiet: true)
        }

        Measure.header("The mirror as SQL: a generated \(years)-year export, synced, through the release binaries")
        print("  \(built.output.trimmed)")
        Measure.row("export sqlite of the decade", Measure.format(built.seconds, "s", digits: 2),
                    "query, every metric " + Measure.format(query.seconds, "s", digits: 2), ratio: built.seconds / query.seconds, goal: "≤ 5 s")
        Measure.row("export sqlite peak RSS / file size", Measure.format(built.peakMiB, "MiB", digits: 0) + " / " + Measure.format(fileMiB, "MiB", digits: 0),
                    "query " + Measure.format(query.peakMiB, "MiB", digits: 0), ratio: built.peakMiB / query.peakMiB, goal: "RSS ≤ 200 MB")
        Measure.row("export sqlite, nothing changed (median 3)", Measure.format(unchanged.seconds, "s", digits: 2), "", ratio: nil, goal: "")
        Measure.row("sql: first build of the copy", Measure.format(firstSQL.seconds, "s", digits: 2), "", ratio: nil, goal: "")
        Measure.row("sql: a year's steps by month (median 5)", Measure.format(sql.seconds * 1000, "ms", digits: 0),
                    "daily --metric steps " + Measure.format(daily.seconds * 1000, "ms", digits: 0), ratio: sql.seconds / daily.seconds,
                    goal: "≤ 100 ms")
        try engines(file)
    }

    /// The DuckDB and Datasette queries documents/sql.md documents, timed on the exported file by
    /// `interop/sql_timings.py`, each beside the same query on the `daily` table (issue 41 item 6).
    static func engines(_ file: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "interop/sql_timings.py", file]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let timings = (try? JSONParser.parse(Array(data)))?.objectValue else {
            throw BenchError("interop/sql_timings.py exited \(process.terminationStatus) (scripts/lib.sh's ensure_sql_engines installs DuckDB and Datasette)")
        }
        let goals = ["duckdb: 90th percentile of heart rate (readings)": "≤ 3 s", "datasette: a page of readings": "≤ 1 s",
                     "datasette: a page of events, ?_nocount=1": "≤ 1 s"]
        for name in timings.keys.sorted() {
            guard let seconds = timings[name]?["seconds"]?.numberValue, let reference = timings[name]?["reference"]?.numberValue else { continue }
            Measure.row(name, Measure.format(seconds, "s", digits: 2), "same on daily " + Measure.format(reference, "s", digits: 2),
                        ratio: seconds / reference, goal: goals[name] ?? "")
        }
    }
}
