import EfferentCore
import EfferentSQLite

/// Writes and removes the `event_rows`, `readings`, `sample_runs`, `series`, `series_days` and
/// `days` rows of whole days. A record with a value and nothing else (`isReading`) goes to the
/// typed `readings`, every other event to `event_rows`.
///
/// Each distinct series key gets one `series` row, found again through a table kept in memory, so
/// an event row carries an integer where a wide table would repeat five strings.
final class EventRowWriter {
    private let db: SQLiteConnection
    private let clock: LocalClock
    private var seriesIDs: [DaySeries.Key: Int64] = [:]
    private let insertEvent: SQLiteStatement
    private let insertReading: SQLiteStatement
    private let insertRun: SQLiteStatement
    private let insertSeries: SQLiteStatement
    private let insertSeriesDay: SQLiteStatement
    private let insertDay: SQLiteStatement
    /// Events written by this writer, for the report.
    private(set) var eventsWritten = 0

    init(db: SQLiteConnection, clock: LocalClock) throws {
        self.db = db
        self.clock = clock
        insertEvent = try db.statement("INSERT INTO event_rows VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)")
        insertReading = try db.statement("""
            INSERT INTO readings (day, metric, value, unit, source, start_epoch, end_epoch, start_offset, end_offset)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
            """)
        insertRun = try db.statement("INSERT INTO sample_runs VALUES (?1, ?2, ?3, ?4)")
        insertSeries = try db.statement("INSERT INTO series (metric, kind, bucket, unit, source) VALUES (?1, ?2, ?3, ?4, ?5)")
        insertSeriesDay = try db.statement("INSERT INTO series_days VALUES (?1, ?2, ?3)")
        insertDay = try db.statement("INSERT OR REPLACE INTO days VALUES (?1, ?2, ?3, ?4, ?5)")
        for (id, key) in try db.statement("SELECT series_id, metric, kind, bucket, unit, source FROM series").rows([], { row in
            (row.int64(0), DaySeries.Key(kind: row.text(2) == "total" ? .total : .record, metric: row.text(1),
                                         bucket: row.optionalText(3).flatMap(DayEvent.Bucket.init(rawValue:)),
                                         unit: row.optionalText(4), source: row.optionalText(5)))
        }) {
            seriesIDs[key] = id
        }
    }

    private func seriesID(_ key: DaySeries.Key) throws -> Int64 {
        if let known = seriesIDs[key] { return known }
        try insertSeries.run([.text(key.metric), .text(SQLSchema.kindName(key.kind)), key.bucket.map { .text($0.rawValue) } ?? .null,
                              key.unit.map(SQLiteValue.text) ?? .null, key.source.map(SQLiteValue.text) ?? .null])
        let id = db.lastInsertRowID
        seriesIDs[key] = id
        return id
    }

    /// Writes every event of `day` with its local offsets, and the day's row stamped `exportedAt`;
    /// `packed` holds, run by run, the `sample_runs` row of a run stored as one (`SampleRun.encoded`).
    func write(_ day: ExportWindow.Day, packed: [SampleRun.Encoded?], exportedAt: String) throws {
        let dayText = SQLiteValue.text(day.day.description)
        let zone = try clock.zone(day.timeZone)
        var perSeries = [Int64: Int]()
        var seq: Int64 = 0
        for (index, run) in day.runs.enumerated() {
            let id = try seriesID(run.key)
            perSeries[id, default: 0] += run.events.count
            if let packed = packed[index] {
                try insertRun.run([.integer(id), dayText, .integer(packed.offset), .text(packed.text)])
                seq += Int64(run.events.count)
                continue
            }
            if Self.isReading(run.key) {
                let metric = SQLiteValue.text(run.key.metric), unit = run.key.unit.map(SQLiteValue.text) ?? .null
                let source = run.key.source.map(SQLiteValue.text) ?? .null
                for event in run.events where Self.isReading(event) {
                    insertReading.rewind()
                    try insertReading.bind(1, dayText)
                    try insertReading.bind(2, metric)
                    try insertReading.bind(3, real: event.value)
                    try insertReading.bind(4, unit)
                    try insertReading.bind(5, source)
                    try insertReading.bind(6, integer: event.start)
                    try insertReading.bind(7, integer: event.end)
                    let startOffset = zone.offset(at: Double(event.start))
                    try insertReading.bind(8, integer: startOffset)
                    try insertReading.bind(9, integer: event.end == event.start ? startOffset : zone.offset(at: Double(event.end)))
                    _ = try insertReading.step()
                    seq += 1
                }
            }
            for event in run.events where !(Self.isReading(run.key) && Self.isReading(event)) {
                insertEvent.rewind()
                try insertEvent.bind(1, integer: id)
                try insertEvent.bind(2, dayText)
                try insertEvent.bind(3, integer: seq)
                try insertEvent.bind(4, integer: event.start)
                try insertEvent.bind(5, integer: event.end)
                let startOffset = zone.offset(at: Double(event.start))
                try insertEvent.bind(6, integer: startOffset)
                try insertEvent.bind(7, integer: event.end == event.start ? startOffset : zone.offset(at: Double(event.end)))
                try insertEvent.bind(8, real: event.value)
                try insertEvent.bind(9, text: event.stage)
                try insertEvent.bind(10, text: event.activity)
                try insertEvent.bind(11, real: event.duration)
                _ = try insertEvent.step()
                seq += 1
            }
        }
        for (id, count) in perSeries.sorted(by: { $0.key < $1.key }) {
            try insertSeriesDay.run([dayText, .integer(id), .integer(Int64(count))])
        }
        try insertDay.run([dayText, .text(day.uploaded), day.timeZone.map(SQLiteValue.text) ?? .null, .integer(seq), .text(exportedAt)])
        eventsWritten += Int(seq)
    }

    /// Whether events of a series may be readings: records of no bucket.
    static func isReading(_ key: DaySeries.Key) -> Bool { key.kind == .record && key.bucket == nil }

    /// Whether an event of such a series is a reading: a value and nothing else.
    static func isReading(_ event: DayEvent) -> Bool {
        event.value != nil && event.stage == nil && event.activity == nil && event.duration == nil
    }

    /// Removes every row of `day` (its events, its series tallies and its `days` row).
    func remove(_ day: CalendarDay) throws {
        let dayText = SQLiteValue.text(day.description)
        let ids = try db.statement("SELECT d.series_id, s.metric FROM series_days d JOIN series s ON s.series_id = d.series_id WHERE d.day = ?1")
            .rows([dayText]) { ($0.int64(0), $0.text(1)) }
        let delete = try db.statement("DELETE FROM event_rows WHERE series_id = ?1 AND day = ?2")
        let deleteRun = try db.statement("DELETE FROM sample_runs WHERE series_id = ?1 AND day = ?2")
        let deleteReadings = try db.statement("DELETE FROM readings WHERE metric = ?1 AND day = ?2")
        for (id, _) in ids {
            try delete.run([.integer(id), dayText])
            try deleteRun.run([.integer(id), dayText])
        }
        for metric in Set(ids.map(\.1)) { try deleteReadings.run([.text(metric), dayText]) }
        try db.statement("DELETE FROM series_days WHERE day = ?1").run([dayText])
        try db.statement("DELETE FROM days WHERE day = ?1").run([dayText])
    }

    /// Drops `series` rows no day uses any more, and forgets them.
    func dropUnusedSeries() throws {
        try db.execute("DELETE FROM series WHERE series_id NOT IN (SELECT DISTINCT series_id FROM series_days)")
        let kept = Set(try db.statement("SELECT series_id FROM series").rows { $0.int64(0) })
        seriesIDs = seriesIDs.filter { kept.contains($0.value) }
    }
}
