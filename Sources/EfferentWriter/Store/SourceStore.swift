import EfferentSQLite
import EfferentSystem
import EfferentClient
import EfferentCore
import Foundation

/// The writer's local store (`writer.sqlite` in the profile): every record imported, the day each
/// belongs to, and the ledger of days (§9.1). Every change marks its days in the same
/// transaction as the change itself, so no record can be stored without its day going out.
///
/// One connection, one owner at a time (style habit 8): every method runs inside `serialized`,
/// so an import committing batches, a push sealing days and a receiver taking a phone's samples
/// can share one store from their own threads. The connection is never lent: a library that keeps
/// tables of its own in this file (the phone's receiver) writes them inside the one transaction
/// `commit` lends it, beside the records it commits (`RecordTransaction`). The lock is recursive because store methods
/// compose inside each other's transactions (an import's batch marks its days in the same one).
/// The connection and what is kept beside it are reachable only through the lock (`Exclusive`):
/// used outside `serialized`, they stop the process rather than race.
public final class SourceStore: Sendable {
    public static let fileName = "writer.sqlite"
    /// The page size a new store is made with.
    static let pageSize = 16_384

    /// What only the thread holding the store touches.
    final class Owned {
        let db: SQLiteConnection
        var zone: ZoneCalendar

        init(db: SQLiteConnection, zone: ZoneCalendar) {
            self.db = db
            self.zone = zone
        }
    }

    private let owner: Exclusive<Owned>
    /// The connection, inside `serialized` only.
    var db: SQLiteConnection { owner.held.db }
    /// Changed only by `recut(to:)`, under the store's lock (read there before it changes).
    private(set) var currentZone: ZoneCalendar {
        get { owner.held.zone }
        set { owner.held.zone = newValue }
    }
    /// The zone records are filed under local days of (decision A.4).
    public var zone: ZoneCalendar { serialized { currentZone } }
    /// The database file (its write-ahead log is this with `-wal`).
    public let path: String

    public init(path: String, zone: ZoneCalendar) throws {
        self.path = path
        let db = try SQLiteConnection(path: path)
        // Every plaintext record is in here: owner only, also for a store made before umask 077.
        try FileDurability.restrictToOwner([path, path + "-wal", path + "-shm"])
        // A new store is made with 16 KiB pages: an import (millions of rows, each page of the
        // identity index touched again and again) spent 6–8 % less CPU and time than with SQLite's
        // 4 KiB. An existing store keeps its own size: changing it means rewriting the whole file
        // (leaving WAL mode for a VACUUM), for a gain that is the import's alone.
        try db.execute("PRAGMA page_size=\(Self.pageSize)")
        // Migrations sort whole indexes (migration 3 rebuilds the record table): their temporary
        // files stay on disk, so a decade's upgrade does not hold half a gigabyte in memory.
        try db.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA cache_size=-65536; PRAGMA temp_store=FILE;")
        try WriterSchema.migrate(db, now: Date().timeIntervalSince1970)
        try db.execute("PRAGMA temp_store=MEMORY")
        owner = Exclusive(Owned(db: db, zone: zone))
    }

    /// Has the log copied into the database whenever it reaches `megabytes` (in pages of this
    /// store's size: 16 KiB for a new store, 4 KiB for one made before).
    func checkpointEvery(megabytes: Int) throws {
        try serialized {
            let pageBytes = try db.statement("PRAGMA page_size").first { $0.int64(0) } ?? 4096
            try db.execute("PRAGMA wal_autocheckpoint=\(Int64(megabytes) * 1_000_000 / max(pageBytes, 512))")
        }
    }

    /// Sets the zone in memory only (`recut(to:)` also re-files the records).
    func adopt(_ zone: ZoneCalendar) { serialized { currentZone = zone } }

    /// Runs `body` with the connection to itself: the thread that holds the lock is the
    /// connection's one owner until `body` returns.
    func serialized<T>(_ body: () throws -> T) rethrows -> T {
        try owner.withLock { _ in try body() }
    }

    // MARK: Meta

    public func meta(_ key: String) throws -> String? {
        try serialized {
            try db.statement("SELECT value FROM meta WHERE key = ?").first([.text(key)]) { $0.text(0) }
        }
    }

    public func setMeta(_ key: String, _ value: String?) throws {
        try serialized {
            if let value {
                try db.statement("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value")
                    .run([.text(key), .text(value)])
            } else {
                try db.statement("DELETE FROM meta WHERE key = ?").run([.text(key)])
            }
        }
    }

    // MARK: Marking days

    /// Marks days to be rebuilt and sent; their attempts start over. Call inside a transaction
    /// that also holds the change that touched them.
    func mark(_ days: some Sequence<String>) throws {
        try serialized {
            let statement = try db.statement("""
                INSERT INTO day (day, dirty, attempts) VALUES (?, 1, 0) ON CONFLICT (day) DO UPDATE SET dirty = 1, attempts = 0
                """)
            for day in days { try statement.run([.text(day)]) }
        }
    }

    /// Marks `days` to be rebuilt without touching their refusal counts (the re-read of recent
    /// days, §9.4); with `forget` their fingerprints are cleared so they go even if unchanged.
    public func markDays(_ days: [CalendarDay], forget: Bool = false) throws {
        try serialized {
            try db.write {
                let statement = try db.statement("INSERT INTO day (day, dirty) VALUES (?, 1) ON CONFLICT (day) DO UPDATE SET dirty = 1")
                for day in days { try statement.run([.text(day.description)]) }
                if forget {
                    let clear = try db.statement("UPDATE day SET digest = NULL WHERE day = ?")
                    for day in days { try clear.run([.text(day.description)]) }
                }
            }
        }
    }

    // MARK: Imports

    /// Starts an import run; records go through the returned session.
    public func beginImport(source: String, format: String, full: Bool) throws -> ImportSession {
        try serialized {
            // Checkpoints copy the log into the database; during an import they run every ~40 MB of
            // log instead of SQLite's 1,000 pages, so pages rewritten batch after batch are copied once.
            try checkpointEvery(megabytes: 40)
            try db.statement("INSERT INTO import_run (source, format, full, started) VALUES (?, ?, ?, ?)")
                .run([.text(source), .text(format), .integer(full ? 1 : 0), .real(Date().timeIntervalSince1970)])
            return ImportSession(store: self, run: db.lastInsertRowID, full: full)
        }
    }

    // MARK: Reading records

    /// Every record whose start falls on `day` (in the pinned zone), in the order they were stored.
    ///
    /// A record's day is its start's local day (every way in files it so, and a new zone re-files
    /// them), so the day is the span of starts its bounds enclose: read through the identity
    /// index on (start, id), which every insert maintains anyway (migration 8 dropped the index on
    /// day the import paid for on every row).
    public func records(on day: CalendarDay) throws -> [StoredRecord] {
        try serialized {
            let (start, end) = currentZone.bounds(of: day)
            return try db.statement("""
                SELECT metric, total, source, device, start, end, value, unit, stage, activity, duration FROM record
                INDEXED BY record_identity WHERE start >= ? AND start < ? ORDER BY rid
                """).rows([.integer(start), .integer(end)]) { row in
                StoredRecord(metric: row.text(0), isTotal: row.int64(1) == 1, source: row.text(2), device: row.optionalText(3),
                             start: row.int64(4), end: row.int64(5), value: row.isNull(6) ? nil : row.double(6),
                             unit: row.optionalText(7), stage: row.optionalText(8), activity: row.optionalText(9),
                             duration: row.isNull(10) ? nil : row.double(10))
            }
        }
    }

    /// Totals of the day before whose span reaches into `[start, end)`: a sample across midnight
    /// contributes to both days' totals, prorated (§4.1).
    public func totalsSpanning(into start: Int64, _ end: Int64, excludingDay day: CalendarDay) throws -> [StoredRecord] {
        try serialized {
            let previous = currentZone.bounds(of: day.previous)
            return try db.statement("""
                SELECT metric, total, source, device, start, end, value, unit FROM record INDEXED BY record_identity
                WHERE start >= ? AND start < ? AND total = 1 AND end > ? ORDER BY rid
                """).rows([.integer(previous.start), .integer(previous.end), .integer(start)]) { row in
                StoredRecord(metric: row.text(0), isTotal: true, source: row.text(2), device: row.optionalText(3),
                             start: row.int64(4), end: row.int64(5), value: row.isNull(6) ? nil : row.double(6),
                             unit: row.optionalText(7), stage: nil, activity: nil, duration: nil)
            }
        }
    }

    /// The earliest day an imported record falls on: where the archive's run of days begins. An
    /// agent's entry marks its own day but never stretches the run back (a put dated 1970 would
    /// otherwise fill decades with empty days).
    public func earliestDay() throws -> CalendarDay? {
        try serialized {
            try db.statement("SELECT day FROM record WHERE origin = 0 ORDER BY start LIMIT 1").first { CalendarDay($0.text(0)) }.flatMap { $0 }
        }
    }

    /// The local day of the newest imported record (agents' records aside) on or before `day`.
    public func latestDay(onOrBefore day: CalendarDay) throws -> CalendarDay? {
        try serialized {
            try db.statement("SELECT day FROM record WHERE origin = 0 AND start < ? ORDER BY start DESC LIMIT 1")
                .first([.integer(currentZone.bounds(of: day).end)]) { CalendarDay($0.text(0)) }.flatMap { $0 }
        }
    }

    public func recordCount() throws -> Int {
        try serialized {
            Int(try db.statement("SELECT count(*) FROM record").first { $0.int64(0) } ?? 0)
        }
    }

    public func activitySummary(on day: CalendarDay) throws -> ActivitySummaryRecord? {
        try serialized {
            try db.statement("SELECT active_kcal, exercise_min, stand_hours FROM activity_summary WHERE day = ?")
                .first([.text(day.description)]) { row in
                    ActivitySummaryRecord(day: day.description, activeEnergyKilocalories: row.isNull(0) ? nil : row.double(0),
                                          exerciseMinutes: row.isNull(1) ? nil : row.double(1), standHours: row.isNull(2) ? nil : row.double(2))
                }
        }
    }

    public func activitySummaryDays() throws -> [CalendarDay] {
        try serialized {
            try db.statement("SELECT day FROM activity_summary ORDER BY day").rows { CalendarDay($0.text(0)) }.compactMap { $0 }
        }
    }
}

/// A record as the store keeps it: mapped to its metric, in the wire unit.
public struct StoredRecord: Sendable, Equatable {
    public let metric: String
    public let isTotal: Bool
    public let source: String
    public let device: String?
    public let start: Int64
    public let end: Int64
    public let value: Double?
    public let unit: String?
    public let stage: String?
    public let activity: String?
    public let duration: Double?
}
