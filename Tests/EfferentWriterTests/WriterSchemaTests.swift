import EfferentSQLite
import EfferentClient
import EfferentCore
import EfferentExportGenerator
import Foundation
import Testing
@testable import EfferentWriter

/// The source store's migrations carry a store written by an older version forward unchanged.
@Suite struct WriterSchemaTests {
    /// Migration 3 re-keys record identity by (start, id). A store at schema 2, holding a real
    /// import and an agent's record, keeps every row under its rid; re-importing the same export
    /// then finds every record already here, and the agent's record is still found by its id.
    @Test func aSchemaTwoStoreMovesToThreeKeepingEveryRecord() throws {
        let directory = NSTemporaryDirectory() + "efferent-schema-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let zone = try #require(ZoneCalendar(identifier: "Europe/Paris"))
        let export = URL(fileURLWithPath: directory + "/export.zip")
        _ = try ExportGenerator(options: ExportOptions(years: 1, seed: 5, days: 40)).writeZip(to: export)

        // Today's import, copied row for row into a store built with migrations 1 and 2 only.
        let current = try SourceStore(path: directory + "/current.sqlite", zone: zone)
        let session = try current.beginImport(source: "export.zip", format: "apple-zip", full: true)
        _ = try ExportImporter.read(export, into: session)
        try session.finish()
        let rows = "SELECT rid, id, metric, total, source, device, start, end, value, unit, stage, activity, duration, day, origin, seen FROM record"
        let old = try SQLiteConnection(path: directory + "/old.sqlite")
        try old.execute("CREATE TABLE migration (version INTEGER PRIMARY KEY, applied REAL NOT NULL)")
        for (version, sql) in WriterSchema.migrations where version <= 2 {
            try old.execute(sql)
            try old.execute("INSERT INTO migration (version, applied) VALUES (\(version), 0)")
        }
        try old.execute("ATTACH DATABASE '\(directory)/current.sqlite' AS current")
        try old.execute("INSERT INTO record \(rows.replacingOccurrences(of: "FROM record", with: "FROM current.record"))")
        try old.execute("INSERT INTO import_run SELECT * FROM current.import_run")
        // An agent's record, as an applied edit left it.
        let agentID = SourceStore.recordID(agentID: "agent:meal:lunch")
        try old.execute("""
            INSERT INTO record (id, metric, total, source, start, end, value, unit, day, origin, seen)
            VALUES (\(agentID), 'dietaryEnergy', 1, 'Efferent', 1700000000, 1700000000, 650, 'kcal', '2023-11-14', 1, 0)
            """)
        try old.execute("INSERT INTO written (agent_id, version) VALUES ('agent:meal:lunch', 1)")
        try old.execute("DETACH DATABASE current")
        let before = try old.statement(rows + " ORDER BY rid").rows { row in (0..<16).map { row.isNull(Int32($0)) ? "-" : row.text(Int32($0)) } }
        #expect(before.count > 1000)

        let migrated = try SourceStore(path: directory + "/old.sqlite", zone: zone)
        let after = try migrated.query { try $0.statement(rows + " ORDER BY rid").rows { row in (0..<16).map { row.isNull(Int32($0)) ? "-" : row.text(Int32($0)) } } }
        #expect(after == before, "every record, under its own rid")
        let indexes = try migrated.query { try $0.statement("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'record' ORDER BY name")
            .rows { $0.text(0) } }
        // Migration 6 adds the phone samples' index (a receiver's records name their sample);
        // migration 8 drops the index on day.
        #expect(indexes == ["record_agent", "record_identity", "record_sample"])
        // A day's records read by the span of starts its bounds enclose are the rows filed under
        // that day, in the same order, for every day the store holds.
        let days = try migrated.query { try $0.statement("SELECT DISTINCT day FROM record ORDER BY day").rows { $0.text(0) } }
        #expect(days.count > 30)
        for name in days {
            let day = try #require(CalendarDay(name))
            let filed = try migrated.query { try $0.statement("SELECT metric, start, end, value FROM record WHERE day = ? ORDER BY rid")
                .rows([.text(name)]) { "\($0.text(0)) \($0.int64(1)) \($0.int64(2)) \($0.isNull(3) ? "-" : "\($0.double(3))")" } }
            let read = try migrated.records(on: day).map { "\($0.metric) \($0.start) \($0.end) \($0.value.map { "\($0)" } ?? "-")" }
            #expect(read.count == filed.count && read == filed, "day \(name)")
        }
        #expect(try migrated.query { try $0.statement("SELECT max(version) FROM migration").first { $0.int64(0) } } == Int64(WriterSchema.migrations.last!.version))

        let again = try migrated.beginImport(source: "export.zip", format: "apple-zip", full: true)
        _ = try ExportImporter.read(export, into: again)
        try again.finish()
        #expect(again.added == 0 && again.removed == 0 && again.seen == before.count - 1, "every imported record already here")
        #expect(try migrated.query { try $0.statement("SELECT count(*) FROM record").first { $0.int64(0) } } == Int64(before.count))

        // The agent's record is found by its id: a put replaces it, an undo brings it back, and a
        // delete removes it (applied, not notFound).
        func agentValue() throws -> Double? {
            try migrated.query { try $0.statement("SELECT value FROM record WHERE origin = 1").first { $0.double(0) } }
        }
        let put = EditItem.put(EditItem.Put(id: "agent:meal:lunch", metric: "dietaryEnergy", start: 1_700_000_000, end: 1_700_000_000,
                                            value: 700, unit: "kcal", stage: nil))
        let putName = EditName(milliseconds: 1_000)
        let replaced = try migrated.apply([put], edit: putName, digest: [UInt8](repeating: 1, count: 32), now: Date())
        #expect(replaced.applied == 1 && replaced.failed.isEmpty)
        #expect(try agentValue() == 700)
        _ = try migrated.undo(edit: putName, now: Date())
        #expect(try agentValue() == 650, "the record from before the migration is back")
        let outcome = try migrated.apply([.delete(id: "agent:meal:lunch")], edit: EditName(milliseconds: 2_000),
                                         digest: [UInt8](repeating: 2, count: 32), now: Date())
        #expect(outcome.applied == 1 && outcome.failed.isEmpty)
        #expect(try migrated.query { try $0.statement("SELECT count(*) FROM record WHERE origin = 1").first { $0.int64(0) } } == 0)
    }
}

/// A new store is made with 16 KiB pages; a store made with SQLite's 4 KiB keeps them. Either
/// checkpoints an import's log every ~40 MB.
@Suite struct StorePageSizeTests {
    func pageSize(_ path: String) throws -> Int64? {
        try SQLiteConnection(path: path).statement("PRAGMA page_size").first { $0.int64(0) }
    }

    @Test func aNewStoreHasLargePagesAndAnOldOneKeepsItsOwn() throws {
        let directory = NSTemporaryDirectory() + "efferent-pages-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let zone = try #require(ZoneCalendar(identifier: "Europe/Paris"))
        let new = try SourceStore(path: directory + "/new.sqlite", zone: zone)
        #expect(try pageSize(directory + "/new.sqlite") == Int64(SourceStore.pageSize))
        // An import checkpoints every ~40 MB of log, whatever the page size.
        _ = try new.beginImport(source: "test", format: "test", full: false)
        #expect(try new.query { try $0.statement("PRAGMA wal_autocheckpoint").first { $0.int64(0) } } == 40_000_000 / 16_384)

        let old = try SQLiteConnection(path: directory + "/old.sqlite")
        try old.execute("PRAGMA page_size=4096; PRAGMA journal_mode=WAL; CREATE TABLE kept (a INTEGER); INSERT INTO kept VALUES (7)")
        let store = try SourceStore(path: directory + "/old.sqlite", zone: zone)
        #expect(try pageSize(directory + "/old.sqlite") == 4096)
        _ = try store.beginImport(source: "test", format: "test", full: false)
        #expect(try store.serialized { try store.db.statement("PRAGMA wal_autocheckpoint").first { $0.int64(0) } } == 40_000_000 / 4096)
        #expect(try store.recordCount() == 0)
        #expect(try old.statement("SELECT a FROM kept").first { $0.int64(0) } == 7)
    }
}

extension SourceStore {
    /// `body` with the store's connection, through its lock (a test reading the store directly).
    func query<T>(_ body: (SQLiteConnection) throws -> T) rethrows -> T { try serialized { try body(db) } }
}
