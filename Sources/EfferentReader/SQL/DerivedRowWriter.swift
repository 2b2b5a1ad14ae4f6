import EfferentCore
import EfferentSQLite

/// Writes the answers' rows — `daily`, `sleep_nights`, `workouts`, `routes` — for a range of local
/// days, each computed by the answer the CLI and MCP give (`DailyAnswer`, `SleepAnswer`,
/// `WorkoutsAnswer`, `RouteGPX`) over a window of the mirror, so a row here is what
/// `efferent daily`, `sleep` or `workouts` prints for the same day.
final class DerivedRowWriter {
    private let db: SQLiteConnection
    private let insertDaily: SQLiteStatement
    private let insertNight: SQLiteStatement
    private let insertWorkout: SQLiteStatement
    private let insertFix: SQLiteStatement

    init(db: SQLiteConnection) throws {
        self.db = db
        insertDaily = try db.statement("INSERT INTO daily VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)")
        insertNight = try db.statement("INSERT INTO sleep_nights VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)")
        insertWorkout = try db.statement("INSERT INTO workouts VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)")
        insertFix = try db.statement("INSERT OR IGNORE INTO routes VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)")
    }

    /// The metrics `daily` holds: every one with numbers, except the samples faster than a second
    /// (route fixes, ECG voltages, beats, audiogram points), whose daily minimum, mean and maximum
    /// say nothing; `efferent daily --metric` still gives those.
    static func isDaily(_ metric: String) -> Bool {
        !MetricCatalogue.withoutValues.contains(metric) && !RecordParts.isSampleSeries(metric)
    }

    /// Removes the rows keyed by the local days `since…until`.
    func remove(since: CalendarDay, until: CalendarDay) throws {
        let bounds: [SQLiteValue] = [.text(since.description), .text(until.description)]
        try db.statement("DELETE FROM daily WHERE day BETWEEN ?1 AND ?2").run(bounds)
        try db.statement("DELETE FROM sleep_nights WHERE night BETWEEN ?1 AND ?2").run(bounds)
        try db.statement("DELETE FROM workouts WHERE day BETWEEN ?1 AND ?2").run(bounds)
        try db.statement("DELETE FROM routes WHERE day BETWEEN ?1 AND ?2").run(bounds)
    }

    /// Removes the rows keyed by a day outside `span` (days the mirror no longer holds); all of
    /// them when there is no span.
    func remove(outside span: DayRange?) throws {
        let bounds: [SQLiteValue] = [.text(span?.since.description ?? "9999-12-31"), .text(span?.until.description ?? "0001-01-01")]
        try db.statement("DELETE FROM daily WHERE day < ?1 OR day > ?2").run(bounds)
        try db.statement("DELETE FROM sleep_nights WHERE night < ?1 OR night > ?2").run(bounds)
        try db.statement("DELETE FROM workouts WHERE day < ?1 OR day > ?2").run(bounds)
        try db.statement("DELETE FROM routes WHERE day < ?1 OR day > ?2").run(bounds)
    }

    /// The answers' rows of some local days, computed apart from writing them, so a window's rows
    /// can be computed on one core while the rows before them are inserted on the other.
    struct Rows: Sendable {
        var daily: [[SQLiteValue]] = []
        var nights: [[SQLiteValue]] = []
        var workouts: [[SQLiteValue]] = []
        var fixes: [[SQLiteValue]] = []
    }

    /// Inserts rows computed by `rows(_:from:clock:)`.
    func insert(_ rows: Rows) throws {
        for (statement, table) in [(insertDaily, rows.daily), (insertNight, rows.nights), (insertWorkout, rows.workouts), (insertFix, rows.fixes)] {
            for row in table { try statement.run(row) }
        }
    }

    /// The rows of the local days of `range` from `window`, which must hold the mirror's days from
    /// the one before `range` to three after it (what the answers read).
    static func rows(_ range: DayRange, from window: ExportWindow, clock: LocalClock) throws -> Rows {
        var rows = Rows()
        try daily(range, window.source, into: &rows.daily)
        try sleep(range, window, clock: clock, into: &rows.nights)
        try workouts(range, window, clock: clock, into: &rows)
        return rows
    }

    private static func daily(_ range: DayRange, _ source: WindowSource, into rows: inout [[SQLiteValue]]) throws {
        let metrics = Set(source.slice(from: range.since.previous, through: range.until).lazy
            .filter { $0.event.value != nil && Self.isDaily($0.event.metric) }.map(\.event.metric)).sorted()
        guard !metrics.isEmpty else { return }
        let answer = try DailyAnswer(from: source, metrics: metrics, range: range)
        let columnsOf = Dictionary(grouping: answer.columns.indices, by: { answer.columns[$0].metric })
        for (day, row) in zip(range.days, answer.values) {
            let dayText = SQLiteValue.text(day.description)
            for metric in metrics {
                guard let columns = columnsOf[metric] else { continue }
                let unit = answer.units[metric].map(SQLiteValue.text) ?? .null
                if columns.count == 1 {
                    guard let sum = row[columns[0]] else { continue }
                    rows.append([dayText, .text(metric), .text("total"), .real(sum), unit, .null, .null, .null])
                } else {
                    let (minimum, mean, maximum) = (row[columns[0]], row[columns[1]], row[columns[2]])
                    guard let mean else { continue }
                    rows.append([dayText, .text(metric), .text("record"), .real(mean), unit,
                                 minimum.map(SQLiteValue.real) ?? .null, .real(mean), maximum.map(SQLiteValue.real) ?? .null])
                }
            }
        }
    }

    /// The zone a local day of the window was cut in (UTC when the window does not hold it).
    private static func zone(of day: CalendarDay, _ window: ExportWindow) -> String? { window.days[day]?.timeZone }

    private static func sleep(_ range: DayRange, _ window: ExportWindow, clock: LocalClock, into rows: inout [[SQLiteValue]]) throws {
        func hours(_ value: Double?) -> SQLiteValue { value.map(SQLiteValue.real) ?? .null }
        for night in try SleepAnswer(from: window.source, range: range).nights {
            let zone = zone(of: night.night, window)
            rows.append([
                .text(night.night.description), .text(try LocalInstant.iso(night.start, in: zone, clock: clock)),
                .text(try LocalInstant.iso(night.end, in: zone, clock: clock)), .integer(night.start), .integer(night.end),
                hours(night.asleepHours), hours(night.inBedHours), hours(night.stages["awake"]), hours(night.stages["asleepUnspecified"]),
                hours(night.stages["asleepCore"]), hours(night.stages["asleepDeep"]), hours(night.stages["asleepREM"]),
                hours(night.stages["unknown"]), .integer(Int64(night.segments)), .integer(Int64(night.naps.count)),
                .real(Distribution.round3(night.naps.reduce(0) { $0 + $1.asleepHours })),
            ])
        }
    }

    private static func workouts(_ range: DayRange, _ window: ExportWindow, clock: LocalClock, into rows: inout Rows) throws {
        // A workout that crosses midnight overlaps two windows; it belongs to the day it started.
        let workouts = try WorkoutsAnswer(from: window.source, range: range).workouts.filter { range.contains($0.day) }
        guard !workouts.isEmpty else { return }
        let columns = WorkoutsAnswer.columns
        func cell(_ row: [JSONValue], _ name: String) -> SQLiteValue {
            switch row[columns.firstIndex(of: name)!] {
            case let .number(value): return name == "routeFixes" ? .integer(Int64(value)) : .real(value)
            case let .string(text): return .text(text)
            default: return .null
            }
        }
        // The workout event a route belongs to, as RouteGPX finds it: the first starting at that second.
        var firstStarting = [Int64: DayEvent]()
        for item in window.source.all where item.event.metric == "workout" && firstStarting[item.event.start] == nil {
            firstStarting[item.event.start] = item.event
        }
        var routed = Set<Int64>()
        for workout in workouts {
            let zone = zone(of: workout.day, window)
            let row = WorkoutsAnswer.row(workout)
            rows.workouts.append([
                .integer(workout.start), .integer(workout.end), .text(try LocalInstant.iso(workout.start, in: zone, clock: clock)),
                .text(try LocalInstant.iso(workout.end, in: zone, clock: clock)), .text(workout.day.description), cell(row, "activity"),
                cell(row, "minutes"), cell(row, "source"), cell(row, "distanceMeters"), cell(row, "activeEnergyKcal"),
                cell(row, "averageHeartRate"), cell(row, "maximumHeartRate"), cell(row, "routeFixes"),
            ])
            guard workout.routeFixes != nil, let event = firstStarting[workout.start], routed.insert(workout.start).inserted else { continue }
            try route(of: workout, event: event, fixes: window.routeFields(from: event.start, through: event.end), zone: zone,
                      clock: clock, into: &rows.fixes)
        }
    }

    /// The route `efferent export route --start` writes for this workout, fix by fix.
    private static func route(of workout: WorkoutsAnswer.Workout, event: DayEvent, fixes: some Sequence<ArchiveEvent>, zone: String?,
                              clock: LocalClock, into rows: inout [[SQLiteValue]]) throws {
        guard let route = try? RouteGPX(workout: event, events: fixes) else { return }
        func field(_ value: Double?) -> SQLiteValue { value.map(SQLiteValue.real) ?? .null }
        let day = SQLiteValue.text(workout.day.description), source = route.source.map(SQLiteValue.text) ?? .null
        for fix in route.fixes {
            rows.append([
                .integer(workout.start), .integer(fix.start), .integer(fix.ordinal), .text(try LocalInstant.iso(fix.start, in: zone, clock: clock)),
                day, field(fix.latitude), field(fix.longitude), field(fix.altitude), field(fix.speed),
                field(fix.course), field(fix.horizontalAccuracy), field(fix.verticalAccuracy), source,
            ])
        }
    }
}
