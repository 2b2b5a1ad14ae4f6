import EfferentSQLite
import EfferentPostgres

/// The service's PostgreSQL schema as numbered migrations, the same ideas as `SQLiteSchema` in
/// PostgreSQL's types. Several processes may start at once: migrations run under one advisory
/// lock, so exactly one applies each and the others wait and then find it done. Never edit a
/// shipped migration: add one.
enum PostgresSchema {
    /// The advisory lock's key: "EFFERENT" as eight ASCII bytes.
    static let lockKey: Int64 = 0x4546_4645_5245_4E54

    static let migrations: [(version: Int, sql: String)] = [
        (1, """
        CREATE TABLE bucket (
            id text COLLATE "C" PRIMARY KEY,
            writer bytea NOT NULL,
            reader bytea,
            editor bytea,
            taken int8 NOT NULL DEFAULT 0,      -- bytes ever handed to this bucket; never decreases
            created int8 NOT NULL
        );
        -- Listings read (day, bytes, uploaded) from the index alone; sealed days are stored out of
        -- line and never compressed (ciphertext does not compress).
        CREATE TABLE day (
            bucket text COLLATE "C" NOT NULL,
            day text COLLATE "C" NOT NULL,
            bytes int4 NOT NULL,                -- int4, so running sums are int8, not numeric
            uploaded int8 NOT NULL,             -- ms since 1970, strictly increasing per day
            sealed bytea NOT NULL,
            PRIMARY KEY (bucket, day) INCLUDE (bytes, uploaded)
        );
        ALTER TABLE day ALTER COLUMN sealed SET STORAGE EXTERNAL;
        CREATE TABLE edit (
            bucket text COLLATE "C" NOT NULL,
            name text COLLATE "C" NOT NULL,
            bytes int8 NOT NULL,
            at int8 NOT NULL,                   -- ms since 1970 when queued
            editor bytea NOT NULL,
            signature bytea NOT NULL,
            "timestamp" int8 NOT NULL,
            answered int8,                      -- ms since 1970 of the (latest) outcome
            applied int8,
            failed int8,
            outcome bytea,
            sealed bytea,                       -- dropped when the outcome is recorded
            PRIMARY KEY (bucket, name)
        );
        CREATE INDEX edit_pending ON edit (bucket, name) WHERE answered IS NULL;
        CREATE TABLE invite (
            hash bytea PRIMARY KEY,             -- SHA-256 of the code; the code itself is never kept
            created int8 NOT NULL,
            expires int8 NOT NULL,
            used int8
        );
        CREATE TABLE tally (
            name text PRIMARY KEY,
            bytes int8 NOT NULL
        );
        INSERT INTO tally (name, bytes) VALUES ('service', 0);
        -- Rate-limit counts shared by every service process. Unlogged: a crash of the database
        -- forgets the current minute's counts, which costs nothing worth a write-ahead log.
        CREATE UNLOGGED TABLE request_count (
            key text COLLATE "C" PRIMARY KEY,
            minute int8 NOT NULL,
            count int8 NOT NULL
        );
        """),
        // Shared links (decision A.15): what the service learns of each, and its encrypted files.
        (2, """
        CREATE TABLE link (
            id text COLLATE "C" PRIMARY KEY,    -- the manifest URL's last segment: 32 random bytes, base64url
            bucket text COLLATE "C" NOT NULL,
            created int8 NOT NULL,              -- ms since 1970
            expires int8 NOT NULL,              -- ms since 1970; the files are deleted then
            long_term bool NOT NULL,            -- flag L: the files may be replaced
            passcode text,                      -- flag P: an Argon2id string, never the passcode
            failures int8 NOT NULL DEFAULT 0,   -- wrong passcodes, for good
            version int8,                       -- the published version; NULL until the first publish
            files int8 NOT NULL DEFAULT 0,
            bytes int8 NOT NULL DEFAULT 0,      -- of the published version
            published int8,
            opened int8 NOT NULL DEFAULT 0,     -- manifest answers given
            revoked int8,
            locked int8,
            cleared int8                        -- when its files were deleted (expiry, revocation, lock)
        );
        CREATE INDEX link_bucket ON link (bucket, created);
        CREATE INDEX link_live ON link (expires) WHERE cleared IS NULL;
        CREATE TABLE link_file (
            link text COLLATE "C" NOT NULL,
            version int8 NOT NULL,
            n int8 NOT NULL,
            bytes int8 NOT NULL,
            uploaded int8 NOT NULL,
            jwe bytea NOT NULL,
            PRIMARY KEY (link, version, n)
        );
        ALTER TABLE link_file ALTER COLUMN jwe SET STORAGE EXTERNAL;
        CREATE TABLE link_access (
            link text COLLATE "C" NOT NULL,
            at int8 NOT NULL,
            recipient text NOT NULL
        );
        CREATE INDEX link_access_by_link ON link_access (link, at);
        CREATE TABLE link_ticket (
            hash bytea PRIMARY KEY,             -- SHA-256 of a file address's token
            link text COLLATE "C" NOT NULL,
            version int8 NOT NULL,
            n int8 NOT NULL,
            expires int8 NOT NULL
        );
        CREATE INDEX link_ticket_expiry ON link_ticket (expires);
        """),
        (3, """
        -- Recovery kits' sealed records (documents/protocol.md, "Recovery kits"), off Efferent's
        -- routes: each under a locator derived from a secret the service never sees.
        CREATE TABLE kit (
            locator text COLLATE "C" PRIMARY KEY,
            bucket text COLLATE "C" NOT NULL,
            bytes int8 NOT NULL,
            at int8 NOT NULL,                   -- ms since 1970 when put
            sealed bytea NOT NULL
        );
        CREATE INDEX kit_bucket ON kit (bucket, at);
        """),
    ]

    /// Applies every migration the database has not seen, each in its own transaction, holding
    /// the advisory lock throughout.
    static func migrate(_ db: PostgresConnection, now: Int64) throws {
        try db.query("SELECT pg_advisory_lock($1::int8)", [.integer(lockKey)])
        defer { _ = try? db.query("SELECT pg_advisory_unlock($1::int8)", [.integer(lockKey)]) }
        try db.execute("CREATE TABLE IF NOT EXISTS migration (version int8 PRIMARY KEY, applied int8 NOT NULL)")
        let rows = try db.query("SELECT version FROM migration")
        let done = Set((0..<rows.count).map { Int(rows.int64($0, 0)) })
        if let newest = done.max(), newest > (migrations.last?.version ?? 0) {
            throw StoreError.newerSchema(newest)
        }
        for (version, sql) in migrations where !done.contains(version) {
            try db.transaction {
                try db.execute(sql)
                try db.query("INSERT INTO migration (version, applied) VALUES ($1::int8, $2::int8)", [.integer(Int64(version)), .integer(now)])
            }
        }
    }
}
