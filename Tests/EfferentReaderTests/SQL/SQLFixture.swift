import EfferentClient
import EfferentCore
import EfferentSQLite
@testable import EfferentReader
import Foundation

/// Forty days of a Berlin archive across the change to summer time (2025-03-30), with what each
/// table of the SQL export is made from: day and hour step totals, heart rate readings, nights
/// that cross midnight, workouts with statistics and a GPS route, one of them across midnight.
enum SQLFixture {
    static let zone = "Europe/Berlin"
    static let first = CalendarDay("2025-03-10")!
    static let days = (0..<40).map { first.adding(days: $0) }

    /// Unix seconds of a local clock time on `day` in Berlin (hours past 24 run into the next day).
    static func at(_ day: CalendarDay, _ hour: Int, _ minute: Int = 0) -> Int64 {
        let calendar = ZoneCalendar(identifier: zone)!
        let midnight = calendar.start(of: day.adding(days: hour / 24))
        let seconds = midnight + Int64(hour % 24) * 3600 + Int64(minute) * 60
        // Across the spring change the wall clock skips an hour: correct by the offset difference.
        return seconds - (calendar.offset(at: Double(seconds)) - calendar.offset(at: Double(midnight)))
    }

    /// The events filed under `day`, `version` changing the heart rate so a day can be rewritten.
    static func events(_ day: CalendarDay, index: Int, version: Int = 0) throws -> [DayEvent] {
        let calendar = ZoneCalendar(identifier: zone)!
        let (midnight, nextMidnight) = calendar.bounds(of: day)
        var events = [
            try DayEvent(kind: .total, metric: "steps", bucket: .day, unit: "count", start: midnight, end: nextMidnight, value: Double(1000 + index)),
            try DayEvent(kind: .total, metric: "steps", bucket: .hour, unit: "count", start: at(day, 9), end: at(day, 10), value: 600),
            try DayEvent(kind: .total, metric: "steps", bucket: .hour, unit: "count", start: at(day, 10), end: at(day, 11), value: Double(400 + index)),
        ]
        for (hour, value) in [(7, 61.0), (12, 75.0), (23, 58.0)] {
            events.append(try DayEvent(kind: .record, metric: "heartRate", unit: "count/min", source: "Watch", start: at(day, hour, 30),
                                       end: at(day, hour, 30), value: value + Double(version)))
        }
        // Tonight's sleep begins before midnight; the part after midnight is filed under tomorrow.
        events.append(try DayEvent(kind: .record, metric: "sleep", source: "Watch", start: at(day, 23), end: at(day, 23, 50), stage: "asleepCore"))
        events.append(try DayEvent(kind: .record, metric: "sleep", source: "Phone", start: at(day, 22, 50), end: at(day, 24 + 6, 40), stage: "inBed"))
        events.append(try DayEvent(kind: .record, metric: "sleep", source: "Watch", start: at(day, 0, 10), end: at(day, 6, 30), stage: "asleepDeep"))
        if index % 5 == 2 {
            let start = at(day, 18), end = at(day, 18, 30)
            events.append(try DayEvent(kind: .record, metric: "workout", source: "Watch", start: start, end: end, activity: "37", duration: 1800))
            for (metric, unit, value) in [("workout.heartRate.average", "count/min", 141.5), ("workout.activeEnergy.sum", "kcal", 250.25),
                                          ("workout.distanceWalkingRunning.sum", "m", 5012.5)] {
                events.append(try DayEvent(kind: .record, metric: metric, unit: unit, source: "Watch", start: start, end: end, value: value))
            }
            for fix in stride(from: start, through: end, by: 60) {
                let step = Double(fix - start) / 60
                for (field, unit, value) in [("latitude", "deg", 52.52 + step / 1000), ("longitude", "deg", 13.405 + step / 1000), ("altitude", "m", 34 + step)] {
                    events.append(try DayEvent(kind: .record, metric: "workoutRoute." + field, unit: unit, source: "Watch", start: fix, end: fix, value: value))
                }
            }
        }
        if index == 17 {
            // A ride across midnight, filed under the day it started.
            events.append(try DayEvent(kind: .record, metric: "workout", source: "Watch", start: at(day, 23, 40), end: at(day, 24, 20),
                                       activity: "13", duration: 2400))
        }
        if index % 7 == 3 {
            events.append(try DayEvent(kind: .record, metric: "bodyMass", unit: "kg", source: "Scale", start: at(day, 7), end: at(day, 7), value: 71.5 + Double(index) / 10))
            events.append(try DayEvent(kind: .record, metric: "electrocardiogram.voltage", unit: "mcV", source: "Watch", start: at(day, 8), end: at(day, 8), value: 12))
        }
        return events
    }

    /// A harness holding the forty days and a synced mirror of them.
    static func synced() async throws -> (ReaderHarness, Mirror) {
        let harness = try await ReaderHarness()
        try await harness.upload(try days.enumerated().map { index, day in (day, try body(day, index: index)) })
        let mirror = try harness.mirror()
        _ = try await harness.syncer(mirror).run()
        return (harness, mirror)
    }

    static func body(_ day: CalendarDay, index: Int, version: Int = 0) throws -> String {
        String(decoding: DayBody(events: try events(day, index: index, version: version), timeZone: zone).bytes, as: UTF8.self)
    }

    static func export(_ harness: ReaderHarness, _ mirror: Mirror, to path: String, windowDays: Int = 5) -> SQLExport {
        var export = SQLExport(mirror: mirror, path: path, archiveID: harness.reading.bucket.rawValue, timeZone: zone)
        export.windowDays = windowDays
        return export
    }

    /// Every row of a query, as SQLite stored the values.
    static func rows(_ path: String, _ sql: String) throws -> [[SQLiteValue]] {
        let db = try SQLiteConnection(path: path, readOnly: true, create: false)
        let statement = try db.statement(sql)
        return try statement.rows { row in (0..<statement.columnCount).map { row.value($0) } }
    }
}
