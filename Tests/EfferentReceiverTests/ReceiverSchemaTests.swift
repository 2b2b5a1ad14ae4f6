import EfferentClient
import EfferentCore
@testable import EfferentReceiver
import EfferentSQLite
import EfferentTestSupport
@testable import EfferentWriter
import Foundation
import Testing

/// The receiver's tables, once made by the writer's migrations 6, 7 and 11 and now by its own
/// (`ReceiverSchema`, recorded in `receiver_migration`): a store made before opens with every
/// row, token, bucket and mark it held, and goes on deduplicating, replaying and building days
/// from HealthKit's totals as it did; the two keys the receiver kept in the writer's `meta` are
/// the receiver's own, and no longer the writer's.
@Suite struct ReceiverSchemaTests {
    static let rate = "HKQuantityTypeIdentifierHeartRate"

    /// The schema a store made by main at afe97c3 has (writer migrations 1–11, phone tables among
    /// them; no `receiver_migration`), as `sqlite3 .schema` printed it, comments dropped.
    static let schemaBeforeTheMove = """
        CREATE TABLE migration (version INTEGER PRIMARY KEY, applied REAL NOT NULL);
        CREATE TABLE import_run (id INTEGER PRIMARY KEY, source TEXT NOT NULL, format TEXT NOT NULL, full INTEGER NOT NULL, started REAL NOT NULL,
            finished REAL, records INTEGER NOT NULL DEFAULT 0, added INTEGER NOT NULL DEFAULT 0, removed INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE import_span (run INTEGER NOT NULL, metric TEXT NOT NULL, first INTEGER NOT NULL, last INTEGER NOT NULL, PRIMARY KEY (run, metric));
        CREATE TABLE activity_summary (day TEXT PRIMARY KEY, active_kcal REAL, exercise_min REAL, stand_hours REAL);
        CREATE TABLE day (day TEXT PRIMARY KEY, digest BLOB, dirty INTEGER NOT NULL DEFAULT 1, updated REAL, bytes INTEGER,
            attempts INTEGER NOT NULL DEFAULT 0, marks INTEGER NOT NULL DEFAULT 0, refusal TEXT, listed TEXT);
        CREATE INDEX day_on_dirty ON day (dirty, attempts, day);
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE written (agent_id TEXT PRIMARY KEY, version INTEGER NOT NULL);
        CREATE TABLE applied_edit (name TEXT PRIMARY KEY, digest BLOB NOT NULL, outcome BLOB NOT NULL);
        CREATE TABLE answered_edit (digest BLOB PRIMARY KEY, name TEXT NOT NULL, signed_at INTEGER NOT NULL, answered_at REAL NOT NULL);
        CREATE TABLE edit_journal (seq INTEGER PRIMARY KEY, edit TEXT NOT NULL, item INTEGER NOT NULL, at REAL NOT NULL, op TEXT NOT NULL,
            agent_id TEXT NOT NULL, added INTEGER, metric TEXT, start INTEGER, end INTEGER, value REAL, unit TEXT, stage TEXT, version INTEGER,
            undone REAL);
        CREATE INDEX edit_journal_edit ON edit_journal (edit);
        CREATE INDEX edit_journal_agent ON edit_journal (agent_id);
        CREATE TABLE edit_displaced (seq INTEGER PRIMARY KEY, rid INTEGER NOT NULL, id INTEGER NOT NULL, metric TEXT NOT NULL, total INTEGER NOT NULL,
            source TEXT NOT NULL, device TEXT, start INTEGER NOT NULL, end INTEGER NOT NULL, value REAL, unit TEXT, stage TEXT, activity TEXT,
            duration REAL, day TEXT NOT NULL, origin INTEGER NOT NULL, seen INTEGER NOT NULL);
        CREATE TABLE record (rid INTEGER PRIMARY KEY, id INTEGER NOT NULL, metric TEXT NOT NULL, total INTEGER NOT NULL, source TEXT NOT NULL,
            device TEXT, start INTEGER NOT NULL, end INTEGER NOT NULL, value REAL, unit TEXT, stage TEXT, activity TEXT, duration REAL,
            day TEXT NOT NULL, origin INTEGER NOT NULL, seen INTEGER NOT NULL, sample INTEGER, matched INTEGER);
        CREATE UNIQUE INDEX record_identity ON record (start, id);
        CREATE UNIQUE INDEX record_agent ON record (id) WHERE origin = 1;
        CREATE TRIGGER day_marked AFTER UPDATE OF dirty ON day WHEN NEW.dirty = 1
        BEGIN
            UPDATE day SET marks = marks + 1 WHERE day = NEW.day;
        END;
        CREATE INDEX record_sample ON record (sample) WHERE sample IS NOT NULL;
        CREATE TABLE phone_route_point (workout BLOB NOT NULL, t REAL NOT NULL, PRIMARY KEY (workout, t)) WITHOUT ROWID;
        CREATE TABLE phone_series_point (workout BLOB NOT NULL, type TEXT NOT NULL, t REAL NOT NULL, PRIMARY KEY (workout, type, t)) WITHOUT ROWID;
        CREATE TABLE phone_aggregate (type TEXT NOT NULL, func TEXT NOT NULL, interval_value INTEGER NOT NULL, interval_unit TEXT NOT NULL,
            device_filter TEXT NOT NULL, bucket_start REAL NOT NULL, bucket_end REAL NOT NULL, value REAL, unit TEXT,
            stale INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (type, func, interval_value, interval_unit, device_filter, bucket_start)) WITHOUT ROWID;
        CREATE INDEX phone_aggregate_total ON phone_aggregate (bucket_start)
            WHERE func = 'sum' AND device_filter = 'all' AND interval_value = 1 AND interval_unit IN ('hour', 'day');
        CREATE TABLE phone_activity_summary (local_date TEXT PRIMARY KEY, date REAL NOT NULL, move_kcal REAL, move_goal_kcal REAL,
            exercise_min REAL, exercise_goal_min REAL, stand_hours REAL, stand_goal_hours REAL, move_mode INTEGER, move_time_min REAL,
            move_time_goal_min REAL);
        CREATE TABLE phone_profile (id INTEGER PRIMARY KEY CHECK (id = 1), name TEXT, email TEXT, date_of_birth REAL, biological_sex TEXT,
            updated REAL NOT NULL);
        CREATE TABLE phone_token (id INTEGER PRIMARY KEY, hash BLOB NOT NULL UNIQUE, name TEXT NOT NULL, created REAL NOT NULL, last_used REAL,
            revoked REAL, last_batch REAL, last_error TEXT, last_error_at REAL);
        CREATE TABLE phone_batch (batch_id BLOB PRIMARY KEY, token INTEGER NOT NULL, received REAL NOT NULL, samples INTEGER NOT NULL,
            accepted INTEGER NOT NULL, digest BLOB) WITHOUT ROWID;
        CREATE TABLE phone_device_day (token INTEGER NOT NULL, day TEXT NOT NULL, batches INTEGER NOT NULL, samples INTEGER NOT NULL,
            PRIMARY KEY (token, day)) WITHOUT ROWID;
        CREATE TABLE phone_type (type TEXT PRIMARY KEY, batches INTEGER NOT NULL, last_batch REAL NOT NULL);
        CREATE TABLE phone_sample (sid INTEGER PRIMARY KEY, uuid BLOB NOT NULL, type TEXT NOT NULL, kind TEXT NOT NULL, start REAL, source TEXT,
            device TEXT, present INTEGER NOT NULL);
        CREATE INDEX phone_sample_type ON phone_sample (type, start) WHERE present = 1;
        CREATE TABLE phone_uuid (uuid BLOB PRIMARY KEY, sid INTEGER NOT NULL) WITHOUT ROWID;
        """

    static func uuid(_ n: Int) -> String { String(format: "CCCCCCCC-0000-4000-8000-%012d", n) }
    static func sample(_ n: Int) -> String {
        PulsBatchText.quantity(uuid: uuid(n), type: rate, start: 1_718_000_000_000 + Double(n) * 60_000, end: 1_718_000_000_000 + Double(n) * 60_000,
                               value: Double(60 + n), unit: "count/min")
    }

    /// A store as the code before the move left it (tables under today's names, made and recorded
    /// by the writer's migrations 1–11): it opens with the receiver's tables adopted, not made
    /// again, and every phone, token, sample, mark and batch it held goes on counting.
    @Test func aStoreFromBeforeTheMoveOpensWithEverythingItHeld() throws {
        let directory = NSTemporaryDirectory() + "efferent-receiver-schema-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/writer.sqlite"
        let token = "an-old-token-of-the-old-iphone-xxxxxxxxxxxx"
        let user = "A1B2C3D4-0000-4000-8000-000000000001"
        let oldBatch = "B0000000-0000-4000-8000-00000000000A"
        do {
            let old = try SQLiteConnection(path: path)
            try old.execute("PRAGMA journal_mode=WAL")
            try old.execute(Self.schemaBeforeTheMove)
            for version in 1...11 { try old.execute("INSERT INTO migration (version, applied) VALUES (\(version), 0)") }
            try old.execute("""
                INSERT INTO meta (key, value) VALUES ('receive.user', '\(user)'), ('phone-uuids-merged', '2');
                INSERT INTO import_run (id, source, format, full, started) VALUES (1, 'efferent receive', 'pulshealth-receive', 0, 1718000000);
                INSERT INTO phone_device_day VALUES (1, '2024-06-10', 1, 3);
                INSERT INTO phone_type VALUES ('\(Self.rate)', 1, 1718000000000);
                INSERT INTO phone_profile (id, name, updated) VALUES (1, 'Anna Example', 1718000000);
                INSERT INTO day (day, dirty) VALUES ('2024-06-10', 0);
                -- HealthKit's step totals of two hours (one gone stale) and an average, as the writer kept them.
                INSERT INTO phone_aggregate VALUES ('HKQuantityTypeIdentifierStepCount', 'sum', 1, 'hour', 'all', 1718006400000, 1718010000000, 1234, 'count', 0);
                INSERT INTO phone_aggregate VALUES ('HKQuantityTypeIdentifierStepCount', 'sum', 1, 'hour', 'all', 1718010000000, 1718013600000, 99, 'count', 1);
                INSERT INTO phone_aggregate VALUES ('\(Self.rate)', 'average', 1, 'hour', 'all', 1718006400000, 1718010000000, 61.5, 'count/min', 0);
                INSERT INTO meta (key, value) VALUES ('clock.offset', '7');
                """)
            try old.statement("INSERT INTO phone_token (id, hash, name, created, last_batch) VALUES (1, ?, 'Old iPhone', 1718000000, 1718000000)")
                .run([.blob(ReceiverStore.tokenHash(token))])
            try old.statement("INSERT INTO phone_batch VALUES (?, 1, 1718000000, 3, 3, ?)")
                .run([.blob(try #require(PulsUUID(oldBatch)).bytes), .blob(Array(repeating: 9, count: 32))])
            // Samples 1 and 2 moved into phone_uuid (the mark is 2); sample 3 above the mark.
            for n in 1...3 {
                let uuid = try #require(PulsUUID(Self.uuid(n)))
                let start = 1_718_000_000 + Int64(n) * 60
                try old.statement("INSERT INTO phone_sample (sid, uuid, type, kind, start, present) VALUES (?, ?, ?, 'quantity', ?, 1)")
                    .run([.integer(Int64(n)), .blob(uuid.bytes), .text(Self.rate), .real(Double(start) * 1000)])
                if n <= 2 { try old.statement("INSERT INTO phone_uuid (uuid, sid) VALUES (?, ?)").run([.blob(uuid.bytes), .integer(Int64(n))]) }
                try old.statement("""
                    INSERT INTO record (id, metric, total, source, device, start, end, value, unit, day, origin, seen, sample)
                    VALUES (?, 'heartRate', 0, 'Apple Watch', 'Apple Watch', ?, ?, ?, 'count/min', '2024-06-10', 0, 1, ?)
                    """).run([.integer(Int64(1000 + n)), .integer(start), .integer(start), .real(Double(60 + n)), .integer(Int64(n))])
            }
        }

        let writer = try SourceStore(path: path, zone: try #require(ZoneCalendar(identifier: "UTC")))
        // The writer's migration 12 took the totals among the buckets over, the stale one as stale.
        let supplied = try writer.serialized {
            try writer.db.statement("SELECT type, width, start, end, value, stale FROM supplied_total ORDER BY start").rows { row in
                (0..<6).map { row.text(Int32($0)) }
            }
        }
        #expect(supplied == [["HKQuantityTypeIdentifierStepCount", "hour", "1718006400.0", "1718010000.0", "1234.0", "0"],
                             ["HKQuantityTypeIdentifierStepCount", "hour", "1718010000.0", "1718013600.0", "99.0", "1"]])
        let phones = try ReceiverStore(store: writer)
        func versions(_ table: String) throws -> [Int64] {
            try phones.serialized { db in try db.statement("SELECT version FROM \(table) ORDER BY version").rows { $0.int64(0) } }
        }
        #expect(try versions("migration") == Array(1...13))
        #expect(try versions("receiver_migration") == [1, 2, 3, 4], "the tables adopted as they stand, none made again")
        // The keys moved out of the writer's meta (its own stay); the buckets stay, as the receiver's.
        #expect(try writer.meta("receive.user") == nil && writer.meta("phone-uuids-merged") == nil && writer.meta("clock.offset") == "7")
        #expect(try phones.serialized { db in try db.statement("SELECT key, value FROM receiver_meta ORDER BY key").rows { [$0.text(0), $0.text(1)] } }
                == [["phone-uuids-merged", "2"], ["receive.user", user]])
        #expect(try phones.serialized { db in try db.statement("SELECT count(*) FROM phone_aggregate").first { $0.int64(0) } } == 3)
        // The day those steps fall on is built from HealthKit's fresh hour, as before the move.
        let built = try DayBuilder(store: writer, hourlyFrom: CalendarDay("2024-01-01")).events(for: try #require(CalendarDay("2024-06-10")))
        #expect(built.filter { $0.metric == "steps" }.map(\.value) == [1234], "the stale hour stays stale")

        // The pairing: the user ID, the token (on its own connection, as a receiver checks it), the phone's figures.
        #expect(try phones.existingPhoneUser() == PulsUUID(user))
        #expect(try PhoneTokens(path: path).phone(hash: ReceiverStore.tokenHash(token)) == 1)
        let paired = try phones.pairedPhones(today: try #require(CalendarDay("2024-06-10")))
        #expect(paired.map(\.name) == ["Old iPhone"] && paired.first?.batchesToday == 1 && paired.first?.samplesToday == 3)
        #expect(try phones.phoneStats().map { [$0.type, "\($0.rows)", "\($0.batches)"] } == [[Self.rate, "3", "1"]])
        #expect(try phones.phoneProfile()?.name == "Anna Example")
        #expect(try writer.recordCount() == 3)

        // Samples found where they were (moved and above the mark), numbered after them; a deletion
        // takes its record; the batch ID stored before is a replay.
        let run = try phones.beginPhoneRun(source: "test")
        let reader = phones.batchReader(run: run)
        try reader.feed(Array(PulsBatchText.batch(samples: [1, 3, 4].map(Self.sample),
                                                  deletions: [PulsBatchText.deletion(uuid: Self.uuid(2), type: Self.rate)]).utf8))
        let counts = try phones.commit(try reader.finish(), token: 1, run: run, now: 1_718_100_000)
        #expect(counts.accepted == 1 && counts.duplicates == 2 && counts.deleted == 1, "\(counts)")
        let fourth = try #require(PulsUUID(Self.uuid(4)))
        let fourthSID = try phones.serialized { db -> Int64? in
            try db.statement("SELECT sid FROM phone_sample WHERE uuid = ?").first([.blob(fourth.bytes)]) { $0.int64(0) }
        }
        #expect(fourthSID == 4, "numbered above every sid stored before")
        #expect(try writer.recordCount() == 3)
        #expect(try writer.pendingDays().contains(try #require(CalendarDay("2024-06-10"))))
        let replay = phones.batchReader(run: run)
        try replay.feed(Array(PulsBatchText.batch(id: oldBatch, samples: [Self.sample(5)]).utf8))
        let replayed = try phones.commit(try replay.finish(), token: 1, run: run, now: 1_718_100_000)
        #expect(replayed.replayed && replayed.replayDiffers && replayed.accepted == 0)

        // Opened again: nothing to migrate or adopt.
        _ = try ReceiverStore(store: writer)
        #expect(try versions("receiver_migration") == [1, 2, 3, 4])
    }

    /// Migration 2 (the writer's 7 before the move) moves phone samples' UUIDs out of a unique
    /// index every batch rewrote into `phone_uuid`. A store at the writer's schema 6 keeps every
    /// sample under its sid, finds each by UUID, and numbers the next above them.
    @Test func aSchemaSixStoreMovesToSevenKeepingEveryPhoneSample() throws {
        let directory = NSTemporaryDirectory() + "efferent-schema-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let old = try SQLiteConnection(path: directory + "/old.sqlite")
        try old.execute("CREATE TABLE migration (version INTEGER PRIMARY KEY, applied REAL NOT NULL)")
        for (version, sql) in WriterSchema.migrations where version <= 6 {
            try old.execute(sql)
            // The writer's migration 6 made the phone tables too, then.
            if version == 6 { try old.execute(ReceiverSchema.migrations[0].sql) }
            try old.execute("INSERT INTO migration (version, applied) VALUES (\(version), 0)")
        }
        var uuids = [PulsUUID]()
        for sid in 1...40 {
            let uuid = PulsUUID(bytes: (0..<16).map { _ in UInt8.random(in: 0...255) })
            uuids.append(uuid)
            // Every tenth a workout only its route has named (present = 0); a gap where one was deleted.
            guard sid != 17 else { continue }
            try old.statement("INSERT INTO phone_sample (sid, uuid, type, kind, start, source, device, present) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
                .run([.integer(Int64(sid)), .blob(uuid.bytes), .text(sid % 10 == 0 ? "HKWorkoutTypeIdentifier" : "HKQuantityTypeIdentifierStepCount"),
                      .text(sid % 10 == 0 ? "workout" : "quantity"), sid % 10 == 0 ? .null : .real(Double(sid) * 1000), .text("Watch"), .null,
                      .integer(sid % 10 == 0 ? 0 : 1)])
        }
        let rows = "SELECT sid, hex(uuid), type, kind, start, source, device, present FROM phone_sample ORDER BY sid"
        func all(_ db: SQLiteConnection) throws -> [[String]] {
            try db.statement(rows).rows { row in (0..<8).map { row.isNull(Int32($0)) ? "-" : row.text(Int32($0)) } }
        }
        let before = try all(old)
        #expect(before.count == 39)

        let migrated = try ReceiverStore(store: SourceStore(path: directory + "/old.sqlite", zone: try #require(ZoneCalendar(identifier: "UTC"))))
        try migrated.serialized { db in
            #expect(try all(db) == before, "every phone sample, under its own sid")
            #expect(try db.statement("SELECT count(*) FROM phone_uuid").first { $0.int64(0) } == 39)
            #expect(try db.statement("SELECT version FROM receiver_migration ORDER BY version").rows { $0.int64(0) } == [1, 2, 3, 4])
            let index = try migrated.phoneSamples()
            for (offset, uuid) in uuids.enumerated() {
                let sid = Int64(offset + 1)
                let found = try index.find(uuid, in: db)
                #expect(sid == 17 ? found == nil : found?.sid == sid && found?.present == (sid % 10 != 0))
            }
            #expect(try index.add(PulsUUID(bytes: Array(repeating: 7, count: 16)), in: db) == 41, "above every sid stored")
            let indexes = try db.statement("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'phone_sample' ORDER BY name")
                .rows { $0.text(0) }
            #expect(indexes == ["phone_sample_type"], "no UUID index left to rewrite")
        }
    }

    /// A new store: the writer's migrations make no receiver table; the receiver's make them all,
    /// as the writer's used to (the same names and columns).
    @Test func aNewStoreHasTheReceiversTablesFromTheReceiver() throws {
        let directory = NSTemporaryDirectory() + "efferent-receiver-schema-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let writer = try SourceStore(path: directory + "/writer.sqlite", zone: try #require(ZoneCalendar(identifier: "UTC")))
        let receiverTables = ["phone_activity_summary", "phone_batch", "phone_device_day", "phone_profile", "phone_route_point", "phone_sample",
                              "phone_series_point", "phone_token", "phone_type", "phone_uuid"]
        func tables() throws -> Set<String> {
            try writer.serialized { Set(try writer.db.statement("SELECT name FROM sqlite_master WHERE type = 'table'").rows { $0.text(0) }) }
        }
        #expect(try tables().isDisjoint(with: receiverTables + ["phone_aggregate", "receiver_meta"]), "the writer alone makes none of the receiver's tables")
        _ = try ReceiverStore(store: writer)
        #expect(try tables().isSuperset(of: receiverTables + ["receiver_migration", "phone_aggregate", "receiver_meta"]))
        #expect(try writer.meta("phone-uuids-merged") == nil, "the receiver keeps nothing in the writer's meta")
        // The same columns a store made before has (digest included).
        let old = try SQLiteConnection(path: directory + "/before.sqlite")
        try old.execute(Self.schemaBeforeTheMove)
        for table in receiverTables {
            let columns = "SELECT name, type, \"notnull\", pk FROM pragma_table_info(?) ORDER BY cid"
            let now = try writer.serialized { try writer.db.statement(columns).rows([.text(table)]) { row in (0..<4).map { row.text(Int32($0)) } } }
            #expect(try old.statement(columns).rows([.text(table)]) { row in (0..<4).map { row.text(Int32($0)) } } == now, "\(table)")
        }
    }
}
