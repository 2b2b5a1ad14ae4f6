import EfferentSQLite
import EfferentWriter

/// The receiver's tables (Puls Sync Protocol v1): the phones paired and their figures, every
/// sample by HealthKit UUID, workouts' route and series points, ring days and the profile as
/// sent, and every batch taken. They live in the writer's file (`writer.sqlite`), beside its
/// records and ledger, on the writer's one connection: a batch's sample rows and batch
/// reservation commit in the same transaction as its records and the marks on their days
/// (design.md, "The receiver"). Numbered migrations, recorded in `receiver_migration`; the
/// writer's own are in `migration` (WriterSchema).
///
/// Until this list, the writer's migrations 6, 7 and 11 made these tables; a store made then has
/// them under the same names and no `receiver_migration`. Such a store is adopted (`adopt`): the
/// migrations whose work is already there are recorded as done, judged from the schema itself, not
/// from the writer's list (which a newer writer keeps on moving past 6 with the moved ones empty).
/// Migration 4 takes over the last of what the writer's tables held for the receiver (the buckets
/// table its migration 6 made, two keys of its `meta`); none of the writer's own changes after it.
enum ReceiverSchema {
    static let migrations: [(version: Int, sql: String)] = [
        (1, """
        -- (The writer's migration 6 until the receiver owned its tables.)
        -- One row per HealthKit UUID (16 bytes; the wire's case does not matter). present = 0 is a
        -- workout that only its route or series lines have named so far.
        CREATE TABLE phone_sample (
            sid INTEGER PRIMARY KEY,
            uuid BLOB NOT NULL UNIQUE,
            type TEXT NOT NULL,
            kind TEXT NOT NULL,
            start REAL,                   -- epoch milliseconds, as sent
            source TEXT,                  -- a workout's, for route and series lines that come later
            device TEXT,
            present INTEGER NOT NULL
        );
        CREATE INDEX phone_sample_type ON phone_sample (type, start) WHERE present = 1;
        CREATE TABLE phone_route_point (workout BLOB NOT NULL, t REAL NOT NULL, PRIMARY KEY (workout, t)) WITHOUT ROWID;
        CREATE TABLE phone_series_point (
            workout BLOB NOT NULL, type TEXT NOT NULL, t REAL NOT NULL, PRIMARY KEY (workout, type, t)
        ) WITHOUT ROWID;
        -- One day of activity rings, replaced whole by each line (§6.5).
        CREATE TABLE phone_activity_summary (
            local_date TEXT PRIMARY KEY,
            date REAL NOT NULL,
            move_kcal REAL, move_goal_kcal REAL, exercise_min REAL, exercise_goal_min REAL,
            stand_hours REAL, stand_goal_hours REAL, move_mode INTEGER, move_time_min REAL, move_time_goal_min REAL
        );
        -- Name, e-mail, birth date and sex: kept here only, never in a day, never uploaded.
        CREATE TABLE phone_profile (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            name TEXT, email TEXT, date_of_birth REAL, biological_sex TEXT, updated REAL NOT NULL
        );
        -- Paired phones: only the SHA-256 of each token is kept.
        CREATE TABLE phone_token (
            id INTEGER PRIMARY KEY,
            hash BLOB NOT NULL UNIQUE,
            name TEXT NOT NULL,
            created REAL NOT NULL,
            last_used REAL,
            revoked REAL,
            last_batch REAL,
            last_error TEXT,
            last_error_at REAL
        );
        -- Every batch taken, reserved in the batch's own transaction: a replay does nothing (§6.1).
        CREATE TABLE phone_batch (
            batch_id BLOB PRIMARY KEY,
            token INTEGER NOT NULL,
            received REAL NOT NULL,
            samples INTEGER NOT NULL,
            accepted INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE phone_device_day (
            token INTEGER NOT NULL, day TEXT NOT NULL, batches INTEGER NOT NULL, samples INTEGER NOT NULL,
            PRIMARY KEY (token, day)
        ) WITHOUT ROWID;
        -- Per type: batches that carried it and when the last came (GET /v1/stats).
        CREATE TABLE phone_type (type TEXT PRIMARY KEY, batches INTEGER NOT NULL, last_batch REAL NOT NULL);
        """),
        (2, """
        -- (The writer's migration 7 until the receiver owned its tables.)
        -- A phone sample's UUID is no longer a unique index that every batch updates: UUIDs are
        -- random, so each 1,000-sample commit rewrote hundreds of that index's pages (a 184,464-
        -- sample backfill wrote 532 MB where an import of the same records writes 60 MB).
        -- phone_uuid holds them in UUID order and is filled in bulk; the rows added since (sid
        -- above meta 'phone-uuids-merged') the receiver keeps in memory and numbers itself, always
        -- above the mark (PhoneSampleIndex). source and device are kept for workouts only (their
        -- route and series lines take them; every other sample's are in its records).
        CREATE TABLE phone_sample_v7 (
            sid INTEGER PRIMARY KEY,
            uuid BLOB NOT NULL,
            type TEXT NOT NULL,
            kind TEXT NOT NULL,
            start REAL,
            source TEXT,
            device TEXT,
            present INTEGER NOT NULL
        );
        INSERT INTO phone_sample_v7 (sid, uuid, type, kind, start, source, device, present)
            SELECT sid, uuid, type, kind, start, source, device, present FROM phone_sample;
        DROP TABLE phone_sample;
        ALTER TABLE phone_sample_v7 RENAME TO phone_sample;
        CREATE INDEX phone_sample_type ON phone_sample (type, start) WHERE present = 1;
        CREATE TABLE phone_uuid (uuid BLOB PRIMARY KEY, sid INTEGER NOT NULL) WITHOUT ROWID;
        INSERT INTO phone_uuid (uuid, sid) SELECT uuid, sid FROM phone_sample ORDER BY uuid;
        INSERT OR REPLACE INTO meta (key, value) SELECT 'phone-uuids-merged', CAST(coalesce(max(sid), 0) AS TEXT) FROM phone_sample;
        """),
        (3, """
        -- (The writer's migration 11 until the receiver owned its tables.)
        -- SHA-256 of each batch's inflated body, so that a batch ID sent again with other content
        -- (a sender's bug: its lines are not stored, the ID being taken) is named in the log.
        ALTER TABLE phone_batch ADD COLUMN digest BLOB;
        """),
        (4, """
        -- The rest of what the phone sends, and the receiver's own settings, out of the writer's
        -- tables. HealthKit's buckets as sent, upserted on the protocol's identity (§6.4): the
        -- writer's migration 6 made this table until the receiver owned it, so a store made before
        -- keeps its rows (and a stale column nothing reads now: the totals among them are the
        -- writer's supplied_total, its migration 12).
        CREATE TABLE IF NOT EXISTS phone_aggregate (
            type TEXT NOT NULL,
            func TEXT NOT NULL,
            interval_value INTEGER NOT NULL,
            interval_unit TEXT NOT NULL,
            device_filter TEXT NOT NULL,
            bucket_start REAL NOT NULL,   -- epoch milliseconds, as sent
            bucket_end REAL NOT NULL,
            value REAL,                   -- NULL: the bucket is empty
            unit TEXT,
            PRIMARY KEY (type, func, interval_value, interval_unit, device_filter, bucket_start)
        ) WITHOUT ROWID;
        DROP INDEX IF EXISTS phone_aggregate_total;
        -- The user ID phones send and the mark of phone_uuid (PhoneSampleIndex), kept in the
        -- writer's meta until now: moved, not copied, so no key is the writer's and the receiver's.
        CREATE TABLE receiver_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO receiver_meta (key, value) SELECT key, value FROM meta WHERE key IN ('receive.user', 'phone-uuids-merged');
        DELETE FROM meta WHERE key IN ('receive.user', 'phone-uuids-merged');
        """),
    ]

    /// Brings the receiver's tables to the newest migration, each in a transaction of its own.
    static func migrate(_ db: SQLiteConnection, now: Double) throws {
        try db.write {
            guard try !exists(db, table: "receiver_migration") else { return }
            try db.execute("CREATE TABLE receiver_migration (version INTEGER PRIMARY KEY, applied REAL NOT NULL)")
            try adopt(db, now: now)
        }
        let done = Set(try db.statement("SELECT version FROM receiver_migration").rows { Int($0.int64(0)) })
        if let newest = done.max(), newest > (migrations.last?.version ?? 0) {
            throw ReceiverStoreError.newerDatabase(newest)
        }
        for (version, sql) in migrations where !done.contains(version) {
            try db.write {
                try db.execute(sql)
                try db.statement("INSERT INTO receiver_migration (version, applied) VALUES (?, ?)").run([.integer(Int64(version)), .real(now)])
            }
        }
    }

    /// A store the writer's migrations gave phone tables: each migration above whose work is
    /// there is recorded as done (1: the tables; 2: `phone_uuid`; 3: `phone_batch.digest`).
    private static func adopt(_ db: SQLiteConnection, now: Double) throws {
        guard try exists(db, table: "phone_token") else { return }
        var done = [1]
        if try exists(db, table: "phone_uuid") { done.append(2) }
        let hasDigest = try db.statement("SELECT count(*) FROM pragma_table_info('phone_batch') WHERE name = 'digest'").first { $0.int64(0) } ?? 0
        if hasDigest > 0 { done.append(3) }
        for version in done {
            try db.statement("INSERT INTO receiver_migration (version, applied) VALUES (?, ?)").run([.integer(Int64(version)), .real(now)])
        }
    }

    private static func exists(_ db: SQLiteConnection, table: String) throws -> Bool {
        try db.statement("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?").first([.text(table)]) { $0.int64(0) } ?? 0 > 0
    }
}

public enum ReceiverStoreError: Error, Equatable, CustomStringConvertible {
    case newerDatabase(Int)

    public var description: String {
        switch self {
        case let .newerDatabase(version):
            "The receiver's tables were made by a newer efferent (receiver schema \(version)); use that version or newer."
        }
    }
}
