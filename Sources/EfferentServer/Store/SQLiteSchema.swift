import EfferentSQLite

/// The service's SQLite schema as numbered migrations, each applied once and recorded in
/// `migration` (the shape of GRDB's `DatabaseMigrator`). Never edit a shipped migration: add one.
enum SQLiteSchema {
    static let migrations: [(version: Int, sql: String)] = [
        (1, """
        CREATE TABLE bucket (
            id TEXT PRIMARY KEY,
            writer BLOB NOT NULL,
            reader BLOB,
            editor BLOB,
            taken INTEGER NOT NULL DEFAULT 0,   -- bytes ever handed to this bucket; never decreases
            created INTEGER NOT NULL
        );
        -- The blob is the last column so listings never read its overflow pages.
        CREATE TABLE day (
            bucket TEXT NOT NULL,
            day TEXT NOT NULL,
            bytes INTEGER NOT NULL,
            uploaded INTEGER NOT NULL,          -- ms since 1970, strictly increasing per day
            sealed BLOB NOT NULL,
            PRIMARY KEY (bucket, day)
        );
        CREATE INDEX day_listing ON day (bucket, day, bytes, uploaded);
        CREATE TABLE edit (
            bucket TEXT NOT NULL,
            name TEXT NOT NULL,
            bytes INTEGER NOT NULL,
            at INTEGER NOT NULL,                -- ms since 1970 when queued
            editor BLOB NOT NULL,
            signature BLOB NOT NULL,
            timestamp INTEGER NOT NULL,
            answered INTEGER,                   -- ms since 1970 of the (latest) outcome
            applied INTEGER,
            failed INTEGER,
            outcome BLOB,
            sealed BLOB,                        -- dropped when the outcome is recorded
            PRIMARY KEY (bucket, name)
        );
        CREATE INDEX edit_pending ON edit (bucket, answered, name);
        CREATE TABLE invite (
            hash BLOB PRIMARY KEY,              -- SHA-256 of the code; the code itself is never kept
            created INTEGER NOT NULL,
            expires INTEGER NOT NULL,
            used INTEGER
        );
        CREATE TABLE tally (
            name TEXT PRIMARY KEY,
            bytes INTEGER NOT NULL
        );
        INSERT INTO tally (name, bytes) VALUES ('service', 0);
        """),
        (2, """
        -- Recovery kits' sealed records (documents/protocol.md, "Recovery kits"), off Efferent's
        -- routes: each under a locator derived from a secret the service never sees.
        CREATE TABLE kit (
            locator TEXT PRIMARY KEY,
            bucket TEXT NOT NULL,
            bytes INTEGER NOT NULL,
            at INTEGER NOT NULL,                -- ms since 1970 when put
            sealed BLOB NOT NULL
        );
        CREATE INDEX kit_bucket ON kit (bucket, at);
        """),
    ]

    /// Applies every migration the database has not seen, each in its own transaction.
    static func migrate(_ db: SQLiteConnection, now: Int64) throws {
        try db.execute("CREATE TABLE IF NOT EXISTS migration (version INTEGER PRIMARY KEY, applied INTEGER NOT NULL)")
        let done = Set(try db.statement("SELECT version FROM migration").rows { Int($0.int64(0)) })
        for (version, sql) in migrations where !done.contains(version) {
            try db.write {
                try db.execute(sql)
                try db.statement("INSERT INTO migration (version, applied) VALUES (?, ?)").run([.integer(Int64(version)), .integer(now)])
            }
        }
        if let newest = done.max(), newest > (migrations.last?.version ?? 0) {
            throw StoreError.newerSchema(newest)
        }
    }
}

/// A store that cannot be opened or used as it is; one sentence for the operator.
public enum StoreError: Error, CustomStringConvertible, Equatable {
    case newerSchema(Int)
    case cannotOpen(String)
    /// The database is out of reach (a PostgreSQL server restarting, a network cut). The
    /// request's transaction did not commit, unless the connection was lost during the COMMIT
    /// itself, which nobody can tell; every write is safe to repeat.
    case unavailable(String)

    public var isUnavailable: Bool {
        if case .unavailable = self { true } else { false }
    }

    public var description: String {
        switch self {
        case let .newerSchema(version): "The archive database was written by a newer efferent-server (schema \(version)); run that version or newer."
        case let .cannotOpen(reason): "The archive database cannot be opened: \(reason)"
        case let .unavailable(reason): "The archive database cannot be reached: \(reason)"
        }
    }
}
