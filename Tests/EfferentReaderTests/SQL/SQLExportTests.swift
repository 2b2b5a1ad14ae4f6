import EfferentClient
import EfferentCore
import EfferentSQLite
import EfferentSystem
@testable import EfferentReader
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The SQL export against the answers it must agree with, read back with SQLite: every event of
/// the mirror, `daily` as `DailyAnswer`, nights as `SleepAnswer`, workouts as `WorkoutsAnswer`,
/// routes as `RouteGPX` — with windows of five days, so windows meet inside the archive, a
/// night and a ride cross their edges, and a change of summer time falls inside one.
@Suite struct SQLExportTests {
    typealias F = SQLFixture

    func path(_ harness: ReaderHarness, _ name: String = "export.db") -> String { harness.directory + "/" + name }

    @Test func theFileHoldsEveryEventAndTheAnswersRows() async throws {
        let (harness, mirror) = try await F.synced()
        let file = path(harness)
        let report = try F.export(harness, mirror, to: file).run()
        let source = MirrorSource(mirror: mirror)
        let all = try source.events(from: F.first, through: F.days.last!)
        #expect(report == .init(kind: .built, days: 40, daysChanged: 40, events: all.count))
        #expect(FileMode.permissions(of: file) == 0o600, "health records in plain text are the owner's alone")

        // Events: the same fields, day by day in body order, instants as local text with the offset.
        let stored = try F.rows(file, """
            SELECT day, metric, kind, bucket, start_epoch, end_epoch, value, unit, source, stage, activity, duration, start_time
            FROM events ORDER BY day, start_epoch, metric, source, end_epoch, value, stage
            """)
        func text(_ value: String?) -> SQLiteValue { value.map(SQLiteValue.text) ?? .null }
        func real(_ value: Double?) -> SQLiteValue { value.map(SQLiteValue.real) ?? .null }
        let expected = all.map { item -> [SQLiteValue] in
            let event = item.event
            return [.text(item.day.description), .text(event.metric), .text(event.kind == .total ? "total" : "record"),
                    text(event.bucket?.rawValue), .integer(event.start), .integer(event.end), real(event.value), text(event.unit),
                    text(event.source), text(event.stage), text(event.activity), real(event.duration),
                    .text(LocalInstant.iso(event.start, offset: ZoneCalendar(identifier: F.zone)!.offset(at: Double(event.start))))]
        }.sorted { "\($0)" < "\($1)" }
        #expect(stored.count == all.count)
        #expect(stored.sorted { "\($0)" < "\($1)" } == expected)
        // Across the change to summer time: 01:30 is +01:00, 07:30 +02:00.
        #expect(try F.rows(file, "SELECT start_time FROM events WHERE metric = 'heartRate' AND day = '2025-03-30' ORDER BY start_epoch")
                == [[.text("2025-03-30T07:30:00+02:00")], [.text("2025-03-30T12:30:00+02:00")], [.text("2025-03-30T23:30:00+02:00")]])
        #expect(try F.rows(file, "SELECT start_time, end_time FROM events WHERE metric = 'steps' AND bucket = 'day' AND day = '2025-03-30'")
                == [[.text("2025-03-30T00:00:00+01:00"), .text("2025-03-31T00:00:00+02:00")]])

        // readings: every record with a value and nothing else but the samples faster than a second,
        // typed (a REAL in every row, the metric in the row), with its local start computed as it is read.
        let readings = try F.rows(file, "SELECT day, metric, start_epoch, end_epoch, value, unit, source, start_time, typeof(value) FROM readings")
        let expectedReadings = all.filter { item in
            let event = item.event
            return event.kind == .record && event.bucket == nil && event.value != nil && event.stage == nil && event.activity == nil
                && event.duration == nil && !RecordParts.isSampleSeries(event.metric)
        }.map { item -> [SQLiteValue] in
            let event = item.event
            return [.text(item.day.description), .text(event.metric), .integer(event.start), .integer(event.end), real(event.value), text(event.unit),
                    text(event.source), .text(LocalInstant.iso(event.start, offset: ZoneCalendar(identifier: F.zone)!.offset(at: Double(event.start)))),
                    .text("real")]
        }
        #expect(!expectedReadings.isEmpty && readings.sorted { "\($0)" < "\($1)" } == expectedReadings.sorted { "\($0)" < "\($1)" })
        #expect(try F.rows(file, "SELECT count(*) FROM events WHERE metric = 'heartRate'") == [[.integer(Int64(readings.filter { $0[1] == .text("heartRate") }.count))]])

        // daily: what DailyAnswer gives for the whole range, totals as one value, readings as min/mean/max.
        let range = try DayRange(since: F.first, until: F.days.last!)
        let daily = try DailyAnswer(from: source, metrics: ["steps", "heartRate", "bodyMass", "workout.heartRate.average"], range: range)
        var fromAnswer = [[SQLiteValue]]()
        for (day, row) in zip(range.days, daily.values) {
            if let steps = row[0] { fromAnswer.append([.text(day.description), .text("steps"), .real(steps), .null, .null, .null]) }
            for (metric, base) in [("heartRate", 1), ("bodyMass", 4), ("workout.heartRate.average", 7)] {
                if let mean = row[base + 1] {
                    fromAnswer.append([.text(day.description), .text(metric), .real(mean), real(row[base]), .real(mean), real(row[base + 2])])
                }
            }
        }
        let storedDaily = try F.rows(file, """
            SELECT day, metric, value, min, mean, max FROM daily
            WHERE metric IN ('steps', 'heartRate', 'bodyMass', 'workout.heartRate.average') ORDER BY day, metric
            """)
        #expect(storedDaily == fromAnswer.sorted { "\($0[0])\($0[1])" < "\($1[0])\($1[1])" })
        #expect(try F.rows(file, "SELECT count(*) FROM daily WHERE metric = 'electrocardiogram.voltage'") == [[.integer(0)]],
                "samples faster than a second have no daily row")
        #expect(try F.rows(file, "SELECT day, value FROM metric_daily WHERE metric = 'steps' AND day = '2025-03-12'") == [[.text("2025-03-12"), .real(1002)]])

        // Nights and workouts: what SleepAnswer and WorkoutsAnswer give over the same days.
        let sleep = try SleepAnswer(from: source, range: range)
        #expect(try F.rows(file, "SELECT night, start_epoch, end_epoch, asleep_hours, in_bed_hours, asleep_core_hours, asleep_deep_hours, segments FROM sleep_nights ORDER BY night")
                == sleep.nights.map { [.text($0.night.description), .integer($0.start), .integer($0.end), real($0.asleepHours), real($0.inBedHours),
                                       real($0.stages["asleepCore"]), real($0.stages["asleepDeep"]), .integer(Int64($0.segments))] })
        #expect(sleep.nights.count == 40)
        let workouts = try WorkoutsAnswer(from: source, range: range).workouts
        #expect(workouts.count == 9 && workouts.contains { $0.activity == "cycling" })
        #expect(try F.rows(file, "SELECT start_epoch, end_epoch, day, activity, minutes, distance_meters, active_energy_kcal, average_heart_rate, route_fixes FROM workouts ORDER BY start_epoch")
                == workouts.map { [.integer($0.start), .integer($0.end), .text($0.day.description), .text($0.activity), .real($0.minutes),
                                   real($0.distanceMeters), real($0.activeEnergyKcal), real($0.averageHeartRate), $0.routeFixes.map { .integer(Int64($0)) } ?? .null] })
        for workout in workouts where workout.routeFixes != nil {
            let route = try RouteGPX(from: source, start: workout.start)
            #expect(try F.rows(file, "SELECT epoch, latitude, longitude, altitude FROM routes WHERE workout_start = \(workout.start) ORDER BY epoch, ordinal")
                    == route.fixes.map { [.integer($0.start), real($0.fields["latitude"]), real($0.fields["longitude"]), real($0.fields["altitude"])] })
        }

        // metrics and meta.
        #expect(try F.rows(file, "SELECT kind, unit, name, first_day, last_day, days, events FROM metrics WHERE metric = 'heartRate'")
                == [[.text("record"), .text("count/min"), .text("Heart rate"), .text("2025-03-10"), .text("2025-04-18"), .integer(40), .integer(120)]])
        #expect(try F.rows(file, "SELECT schema_version, archive_id, time_zone, since, until FROM meta")
                == [[.integer(Int64(SQLSchema.version)), .text(harness.reading.bucket.rawValue), .text(F.zone), .null, .null]])
    }

    /// Every table of two files, the columns that say when a file was written left out.
    func tables(_ file: String) throws -> [String: [[SQLiteValue]]] {
        var out = [String: [[SQLiteValue]]]()
        for (table, order) in [("days", "day"), ("events", "day, start_epoch, metric, source, end_epoch, value, stage"),
                               ("readings", "day, metric, source, start_epoch, end_epoch, value"), ("daily", "day, metric"),
                               ("sleep_nights", "night"), ("workouts", "start_epoch"), ("routes", "workout_start, epoch, ordinal"),
                               ("metrics", "metric")] {
            out[table] = try F.rows(file, "SELECT * FROM \(table) ORDER BY \(order)").map { row in table == "days" ? Array(row.dropLast()) : row }
        }
        return out
    }

    @Test func aSecondRunRewritesOnlyTheDaysThatChangedAndEndsAsAFreshBuildWould() async throws {
        let (harness, mirror) = try await F.synced()
        let file = path(harness)
        _ = try F.export(harness, mirror, to: file).run(now: Date(timeIntervalSince1970: 1_750_000_000))
        let again = try F.export(harness, mirror, to: file).run(now: Date(timeIntervalSince1970: 1_750_000_100))
        #expect(again == .init(kind: .upToDate, days: 40, daysChanged: 0, events: 0))

        // The writer rewrites a day inside a window and the day the ride crosses midnight from.
        let changed = [F.days[12], F.days[17]]
        try await harness.upload(try changed.map { ($0, try F.body($0, index: F.days.firstIndex(of: $0)!, version: 5)) })
        _ = try await harness.syncer(mirror).run()
        let report = try F.export(harness, mirror, to: file).run(now: Date(timeIntervalSince1970: 1_750_000_200))
        #expect(report.kind == .updated && report.daysChanged == 2 && report.days == 40)
        let rewritten = try F.rows(file, "SELECT day FROM days WHERE exported_at = '2025-06-15T15:10:00Z' ORDER BY day")
        #expect(rewritten == changed.map { [.text($0.description)] }, "only the changed days' rows were written again")
        #expect(try F.rows(file, "SELECT mean FROM daily WHERE metric = 'heartRate' AND day = '\(F.days[12])'") == [[.real(Distribution.round3((66 + 80 + 63) / 3.0))]])
        #expect(try F.rows(file, "SELECT value FROM readings WHERE metric = 'heartRate' AND day = '\(F.days[12])' ORDER BY start_epoch")
                == [[.real(66)], [.real(80)], [.real(63)]], "the typed readings follow the day's new version")

        let fresh = path(harness, "fresh.db")
        _ = try F.export(harness, mirror, to: fresh).run()
        #expect(try tables(file) == tables(fresh), "an updated file holds what a fresh build of the same mirror holds")

        // A day the mirror forgets leaves the file too.
        try mirror.forget(F.days[39])
        let shorter = try F.export(harness, mirror, to: file).run()
        #expect(shorter.days == 39 && shorter.daysChanged == 1)
        let freshShorter = path(harness, "fresh-shorter.db")
        _ = try F.export(harness, mirror, to: freshShorter).run()
        #expect(try tables(file) == tables(freshShorter))
        #expect(try F.rows(file, "SELECT count(*) FROM events WHERE day = '\(F.days[39])'") == [[.integer(0)]])
    }

    @Test func aBoundedExportHoldsItsDaysAndItsAnswersAsTheCommandsGiveThem() async throws {
        let (harness, mirror) = try await F.synced()
        let file = path(harness)
        var export = F.export(harness, mirror, to: file)
        export = SQLExport(mirror: mirror, path: file, archiveID: export.archiveID, timeZone: F.zone, since: F.days[10], until: F.days[19])
        export.windowDays = 5
        #expect(try export.run().days == 10)
        #expect(try F.rows(file, "SELECT min(day), max(day), count(DISTINCT day) FROM events")
                == [[.text(F.days[10].description), .text(F.days[19].description), .integer(10)]])
        // The last night ends the next morning, outside the bounds, as `efferent sleep --until` reads it.
        let sleep = try SleepAnswer(from: MirrorSource(mirror: mirror), range: DayRange(since: F.days[10], until: F.days[19]))
        #expect(try F.rows(file, "SELECT night, asleep_hours FROM sleep_nights ORDER BY night") == sleep.nights.map { [.text($0.night.description), $0.asleepHours.map(SQLiteValue.real) ?? .null] })
        // Other bounds are another file: built again whole.
        let wider = SQLExport(mirror: mirror, path: file, archiveID: export.archiveID, timeZone: F.zone, since: F.days[5])
        #expect(try wider.run().kind == .built)
        #expect(try F.rows(file, "SELECT since, until FROM meta") == [[.text(F.days[5].description), .null]])
    }

    @Test func aFileItDidNotWriteIsLeftAsItIs() async throws {
        let (harness, mirror) = try await F.synced()
        let notes = path(harness, "notes.txt")
        try Data("my notes\n".utf8).write(to: URL(fileURLWithPath: notes))
        #expect(throws: SQLExportError.notAnExport(notes)) { try F.export(harness, mirror, to: notes).run() }
        #expect(try String(contentsOfFile: notes, encoding: .utf8) == "my notes\n")

        let other = path(harness, "other.db")
        let db = try SQLiteConnection(path: other)
        try db.execute("CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (7)")
        #expect(throws: SQLExportError.notAnExport(other)) { try F.export(harness, mirror, to: other).run() }
        #expect(try F.rows(other, "SELECT a FROM t") == [[.integer(7)]])

        let theirs = path(harness, "theirs.db")
        _ = try SQLExport(mirror: mirror, path: theirs, archiveID: "anotherarchiveid", timeZone: nil).run()
        #expect(throws: SQLExportError.otherArchive(theirs, archive: "anotherarchiveid")) { try F.export(harness, mirror, to: theirs).run() }
    }

    @Test func aBuildThatFailsLeavesTheFileThatWasThere() async throws {
        let (harness, mirror) = try await F.synced()
        let file = path(harness)
        _ = try F.export(harness, mirror, to: file).run()
        let before = try Data(contentsOf: URL(fileURLWithPath: file))
        // A mirrored day that no longer reads, and a run that must build whole (other bounds).
        try harness.profile.write("days/\(F.days[20]).json", Array("{\"series\":[".utf8))
        let rebuild = SQLExport(mirror: mirror, path: file, archiveID: harness.reading.bucket.rawValue, timeZone: F.zone, since: F.days[1])
        #expect(throws: MirrorError.self) { try rebuild.run() }
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: harness.directory).filter { $0.contains("efferent-building") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    @Test func newFilesAreTheOwnersWhateverTheUmask() async throws {
        let (harness, mirror) = try await F.synced()
        let previous = umask(0o022)
        defer { umask(previous) }
        let file = path(harness)
        _ = try F.export(harness, mirror, to: file).run()
        #expect(FileMode.permissions(of: file) == 0o600)
        // A file its owner opened up (for Grafana's group, say) keeps its mode when updated.
        try FileMode.set(0o640, on: file)
        try mirror.forget(F.days[0])
        #expect(try F.export(harness, mirror, to: file).run().daysChanged == 1)
        #expect(FileMode.permissions(of: file) == 0o640)
    }
}
