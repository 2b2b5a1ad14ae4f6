import EfferentSQLite

/// The writer's database: the source store (records, with the day each belongs to) and the ledger
/// (§9.1: days, meta), in one SQLite file so that a change and the marks on its days commit
/// together. Numbered migrations, recorded in `migration`. The phone receiver's tables are in the
/// same file but are the receiver's (EfferentReceiver's `ReceiverSchema`, in `receiver_migration`):
/// no migration here makes, changes or reads one, but for migration 12's one-time adoption of the
/// totals a store made before kept in `phone_aggregate`.
enum WriterSchema {
    static let migrations: [(version: Int, sql: String)] = [
        (1, """
        -- One row per sample. id is the record's identity (decision A.6): the first 8 bytes of
        -- SHA-256 over its type, source, start, end, value and unit (and stage/activity), so an
        -- overlapping re-import finds every record it already has. Rows are appended in import
        -- order (rid); only the small identity index takes the hash's random order, which keeps
        -- a multi-gigabyte import from thrashing the table's pages.
        CREATE TABLE record (
            rid INTEGER PRIMARY KEY,
            id INTEGER NOT NULL UNIQUE,
            metric TEXT NOT NULL,
            total INTEGER NOT NULL,       -- 1: summed into buckets (§4.1); 0: a record (§4.2)
            source TEXT NOT NULL,
            device TEXT,
            start INTEGER NOT NULL,       -- Unix seconds, floored
            end INTEGER NOT NULL,
            value REAL,                   -- in the wire unit
            unit TEXT,
            stage TEXT,
            activity TEXT,
            duration REAL,
            day TEXT NOT NULL,            -- the local day of start in the pinned zone (§9.3)
            origin INTEGER NOT NULL,      -- 0: an import; 1: an agent's edit
            seen INTEGER NOT NULL         -- the import run that last saw it
        );
        CREATE INDEX record_day ON record (day);
        CREATE TABLE import_run (
            id INTEGER PRIMARY KEY,
            source TEXT NOT NULL,
            format TEXT NOT NULL,
            full INTEGER NOT NULL,        -- 1: a whole Apple export, whose absences are deletions
            started REAL NOT NULL,
            finished REAL,
            records INTEGER NOT NULL DEFAULT 0,
            added INTEGER NOT NULL DEFAULT 0,
            removed INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE import_span (
            run INTEGER NOT NULL,
            metric TEXT NOT NULL,
            first INTEGER NOT NULL,
            last INTEGER NOT NULL,
            PRIMARY KEY (run, metric)
        );
        CREATE TABLE activity_summary (
            day TEXT PRIMARY KEY,
            active_kcal REAL,
            exercise_min REAL,
            stand_hours REAL
        );
        -- The ledger (§9.1).
        CREATE TABLE day (
            day TEXT PRIMARY KEY,
            digest BLOB,                  -- SHA-256 of the body last accepted by the archive
            dirty INTEGER NOT NULL DEFAULT 1,
            updated REAL,
            bytes INTEGER,
            attempts INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX day_on_dirty ON day (dirty, attempts, day);
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        """),
        (2, """
        -- Agent edits (§8). The version each agent id was last written with: it only climbs and
        -- survives deletes, so a re-applied edit still leaves one record under the id.
        CREATE TABLE written (agent_id TEXT PRIMARY KEY, version INTEGER NOT NULL);
        -- Edits applied here whose outcome has not yet reached the service: the outcome is stored
        -- with the change, so a run that could not deliver it sends it again instead of applying
        -- the edit a second time (which would also undo an owner's undo).
        CREATE TABLE applied_edit (
            name TEXT PRIMARY KEY,
            digest BLOB NOT NULL,
            outcome BLOB NOT NULL
        );
        -- Edits the service accepted an outcome for (§8 replay rules), pruned to the window.
        CREATE TABLE answered_edit (
            digest BLOB PRIMARY KEY,
            name TEXT NOT NULL,
            signed_at INTEGER NOT NULL,
            answered_at REAL NOT NULL
        );
        -- Everything an agent did, item by item, and what each item displaced, so it can be undone.
        CREATE TABLE edit_journal (
            seq INTEGER PRIMARY KEY,
            edit TEXT NOT NULL,
            item INTEGER NOT NULL,
            at REAL NOT NULL,
            op TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            added INTEGER,                -- record.id this item wrote (a put)
            metric TEXT,
            start INTEGER,
            end INTEGER,
            value REAL,
            unit TEXT,
            stage TEXT,
            version INTEGER,
            undone REAL
        );
        CREATE INDEX edit_journal_edit ON edit_journal (edit);
        CREATE INDEX edit_journal_agent ON edit_journal (agent_id);
        -- The record an item replaced or removed, as it was.
        CREATE TABLE edit_displaced (
            seq INTEGER PRIMARY KEY,
            rid INTEGER NOT NULL,
            id INTEGER NOT NULL,
            metric TEXT NOT NULL,
            total INTEGER NOT NULL,
            source TEXT NOT NULL,
            device TEXT,
            start INTEGER NOT NULL,
            end INTEGER NOT NULL,
            value REAL,
            unit TEXT,
            stage TEXT,
            activity TEXT,
            duration REAL,
            day TEXT NOT NULL,
            origin INTEGER NOT NULL,
            seen INTEGER NOT NULL
        );
        """),
        (3, """
        -- Record identity is looked up by (start, id) rather than by id alone. An export lists
        -- each type in time order, so a batch of inserts now lands on a narrow run of index pages;
        -- keyed by the random id alone, every batch rewrote nearly the whole index, and a decade
        -- import wrote 7.4 GB for a 400 MB store. The id still names one record (it hashes the
        -- start among the rest, decision A.6); agents' records are found by id alone, among
        -- their own few. Rows keep their rid, so days keep their order.
        CREATE TABLE record_v3 (
            rid INTEGER PRIMARY KEY,
            id INTEGER NOT NULL,
            metric TEXT NOT NULL,
            total INTEGER NOT NULL,
            source TEXT NOT NULL,
            device TEXT,
            start INTEGER NOT NULL,
            end INTEGER NOT NULL,
            value REAL,
            unit TEXT,
            stage TEXT,
            activity TEXT,
            duration REAL,
            day TEXT NOT NULL,
            origin INTEGER NOT NULL,
            seen INTEGER NOT NULL
        );
        INSERT INTO record_v3 SELECT rid, id, metric, total, source, device, start, end, value, unit, stage, activity, duration,
            day, origin, seen FROM record;
        DROP TABLE record;
        ALTER TABLE record_v3 RENAME TO record;
        CREATE INDEX record_day ON record (day);
        CREATE UNIQUE INDEX record_identity ON record (start, id);
        CREATE UNIQUE INDEX record_agent ON record (id) WHERE origin = 1;
        """),
        (4, """
        -- How often each day was marked. A push reads it before building a day and clears the
        -- mark only if it has not moved since: records an import or a phone commits while the
        -- day is sealed and uploading mark it again, and the next push sends them. A trigger
        -- counts every mark, whichever statement makes it (an upsert's DO UPDATE fires it too).
        ALTER TABLE day ADD COLUMN marks INTEGER NOT NULL DEFAULT 0;
        CREATE TRIGGER day_marked AFTER UPDATE OF dirty ON day WHEN NEW.dirty = 1
        BEGIN
            UPDATE day SET marks = marks + 1 WHERE day = NEW.day;
        END;
        """),
        (5, """
        -- Why the day was last refused: the service's sentence, or the writer's own when the day
        -- could not be built or sealed under the service's 1 MiB; status shows it beside parked days.
        ALTER TABLE day ADD COLUMN refusal TEXT;
        -- The upload time the archive's listing showed right after the writer's own last upload of
        -- the day. The daily check sends again a day whose listed time moved without the writer
        -- sending it: a captured upload replayed inside the signature window (§5.3) reverts a day
        -- to the same size, which the size check alone cannot see.
        ALTER TABLE day ADD COLUMN listed TEXT;
        """),
        (6, """
        -- A phone's live samples (the Puls Sync Protocol receiver, `efferent receive`). A sample's
        -- records are ordinary records (decision A.6 identity) that name the sample they came from,
        -- so a deletion by UUID takes exactly those records with it. The samples themselves, their
        -- points, the paired phones, the batches taken and HealthKit's buckets as sent are the
        -- receiver's own tables (EfferentReceiver's ReceiverSchema), in this file, made by the
        -- receiver. (This migration made phone_aggregate too until the receiver owned it.)
        ALTER TABLE record ADD COLUMN sample INTEGER;
        CREATE INDEX record_sample ON record (sample) WHERE sample IS NOT NULL;
        """),
        (7, """
        -- Moved: the phone samples' UUIDs out of a unique index into phone_uuid is the receiver's
        -- migration 2 now (ReceiverSchema). The number stays taken: stores made before have it.
        """),
        (8, """
        -- No index on day: a record's day is its start's local day, so a day's records are a span
        -- of the (start, id) identity index. The day index was a third B-tree every inserted row
        -- paid for (a quarter of an import's SQLite time); the day column stays, for reading.
        DROP INDEX IF EXISTS record_day;
        """),
        (9, """
        -- Moved: the phone's buckets going stale is migration 12's supplied_total.stale now (the
        -- buckets as sent are the receiver's). The number stays taken: stores made before have it.
        """),
        (10, """
        -- One record per HealthKit sample, whichever door it came through (decision A.14): a phone
        -- sample and an export record of the same sample meet on one row, which carries the
        -- export's identity. matched is the import run whose export record a phone sample's row
        -- took on (or, for an export's row a phone sample adopted, the run that stored it); NULL
        -- while no export record stands for the row. No index: a twin is looked up by start, on
        -- the identity index, and only for a record the identity did not find.
        ALTER TABLE record ADD COLUMN matched INTEGER;
        """),
        (11, """
        -- Moved: the digest of each phone batch is the receiver's migration 3 now (ReceiverSchema).
        -- The number stays taken: stores made before have it.
        """),
        (12, """
        -- Totals computed outside the archive that stand for its own (SuppliedTotals): HealthKit's
        -- de-duplicated sums over an hour or a day, as a phone's receiver supplies them with the
        -- batch they came in (the buckets as sent are the receiver's phone_aggregate). A total
        -- stands only while nothing it covers has changed since it came: a total record added or
        -- removed inside its span makes it stale until it is supplied again. Instants are Unix
        -- seconds. A store made before keeps the totals its phone_aggregate held (adoptions).
        CREATE TABLE supplied_total (
            type TEXT NOT NULL,           -- the HealthKit quantity type
            width TEXT NOT NULL,          -- 'hour' or 'day'
            start REAL NOT NULL,
            end REAL NOT NULL,
            value REAL,                   -- NULL: the hour or day holds no samples
            unit TEXT,
            stale INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (type, width, start)
        ) WITHOUT ROWID;
        CREATE INDEX supplied_total_start ON supplied_total (start);
        """),
        (13, """
        -- The archive's own totals, for a writer restored from a kit (`SourceStore.restore`): each
        -- hour and day bucket a sealed day held. The samples they were summed from are not in the
        -- archive (a body carries totals, not their samples), so these stand for the buckets until
        -- the store's own samples sum to as much or more: a re-imported export or a phone's backfill
        -- of the same history sums to the same figure and changes nothing; more of a bucket's samples
        -- than the archive counted make the larger sum stand. Instants are Unix seconds.
        CREATE TABLE archived_total (
            metric TEXT NOT NULL,
            width TEXT NOT NULL,          -- 'hour' or 'day'
            start INTEGER NOT NULL,
            end INTEGER NOT NULL,
            value REAL NOT NULL,
            unit TEXT,
            PRIMARY KEY (metric, width, start)
        ) WITHOUT ROWID;
        CREATE INDEX archived_total_start ON archived_total (start);
        """),
    ]

    /// What a migration takes over from what a store made before holds, run in the migration's
    /// transaction: migration 12 keeps the totals among the buckets the writer's migration 6 once
    /// stored (`phone_aggregate`, the receiver's table now; `stale` from migration 9 when the
    /// store got that far).
    static let adoptions: [Int: @Sendable (SQLiteConnection) throws -> Void] = [
        12: { db in
            let columns = try db.statement("SELECT name FROM pragma_table_info('phone_aggregate')").rows { $0.text(0) }
            guard !columns.isEmpty else { return }
            try db.execute("""
                INSERT OR IGNORE INTO supplied_total (type, width, start, end, value, unit, stale)
                SELECT type, interval_unit, bucket_start / 1000.0, bucket_end / 1000.0, value, unit, \(columns.contains("stale") ? "stale" : "0")
                FROM phone_aggregate
                WHERE func = 'sum' AND device_filter = 'all' AND interval_value = 1 AND interval_unit IN ('hour', 'day')
                """)
        },
    ]

    static func migrate(_ db: SQLiteConnection, now: Double) throws {
        try db.execute("CREATE TABLE IF NOT EXISTS migration (version INTEGER PRIMARY KEY, applied REAL NOT NULL)")
        let done = Set(try db.statement("SELECT version FROM migration").rows { Int($0.int64(0)) })
        if let newest = done.max(), newest > (migrations.last?.version ?? 0) {
            throw WriterError.newerDatabase(newest)
        }
        for (version, sql) in migrations where !done.contains(version) {
            try db.write {
                try db.execute(sql)
                try adoptions[version]?(db)
                try db.statement("INSERT INTO migration (version, applied) VALUES (?, ?)").run([.integer(Int64(version)), .real(now)])
            }
        }
    }
}
