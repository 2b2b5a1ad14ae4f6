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
        // Shared links (decision A.15): what the service learns of each, and its encrypted files.
        (2, """
        CREATE TABLE link (
            id TEXT PRIMARY KEY,                -- the manifest URL's last segment: 32 random bytes, base64url
            bucket TEXT NOT NULL,
            created INTEGER NOT NULL,           -- ms since 1970
            expires INTEGER NOT NULL,           -- ms since 1970; the files are deleted then
            long_term INTEGER NOT NULL,         -- flag L: the files may be replaced
            passcode TEXT,                      -- flag P: an Argon2id string, never the passcode
            failures INTEGER NOT NULL DEFAULT 0,-- wrong passcodes, for good
            version INTEGER,                    -- the published version; NULL until the first publish
            files INTEGER NOT NULL DEFAULT 0,
            bytes INTEGER NOT NULL DEFAULT 0,   -- of the published version
            published INTEGER,
            opened INTEGER NOT NULL DEFAULT 0,  -- manifest answers given
            revoked INTEGER,
            locked INTEGER,
            cleared INTEGER                     -- when its files were deleted (expiry, revocation, lock)
        );
        CREATE INDEX link_bucket ON link (bucket, created);
        CREATE INDEX link_live ON link (expires) WHERE cleared IS NULL;
        -- The blob is the last column, so a manifest that embeds nothing never reads it.
        CREATE TABLE link_file (
            link TEXT NOT NULL,
            version INTEGER NOT NULL,
            n INTEGER NOT NULL,
            bytes INTEGER NOT NULL,
            uploaded INTEGER NOT NULL,
            jwe BLOB NOT NULL,
            PRIMARY KEY (link, version, n)
        );
        CREATE TABLE link_access (
            link TEXT NOT NULL,
            at INTEGER NOT NULL,
            recipient TEXT NOT NULL
        );
        CREATE INDEX link_access_by_link ON link_access (link, at);
        CREATE TABLE link_ticket (
            hash BLOB PRIMARY KEY,              -- SHA-256 of a file address's token
            link TEXT NOT NULL,
            version INTEGER NOT NULL,
            n INTEGER NOT NULL,
            expires INTEGER NOT NULL
        );
        CREATE INDEX link_ticket_expiry ON link_ticket (expires);
        """),
        (3, """
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
