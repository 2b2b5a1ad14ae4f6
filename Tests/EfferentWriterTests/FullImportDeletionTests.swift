import EfferentClient
import EfferentCore
import EfferentSQLite
import Foundation
import Testing
@testable import EfferentWriter

/// A whole Apple export removes, within its span and metrics, the imported records it no longer
/// holds. Which stored records it found is noted in memory (`SeenRows`), so re-importing an
/// unchanged export — the usual monthly one — leaves every row as it was.
@Suite struct FullImportDeletionTests {
    static let zone = ZoneCalendar(identifier: "Europe/Paris")!

    /// A fresh store in a directory of its own; `body` runs with it, the directory goes after.
    func withStore(_ body: (SourceStore) throws -> Void) throws {
        let directory = NSTemporaryDirectory() + "efferent-deletion-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try body(try SourceStore(path: directory + "/writer.sqlite", zone: Self.zone))
    }

    func importing(_ records: [SourceRecord], into store: SourceStore, full: Bool = true) throws -> ImportSession {
        let session = try store.beginImport(source: "test", format: "test", full: full)
        for record in records { try session.record(record) }
        try session.finish()
        return session
    }

    /// Every stored row, every column, in rid order.
    func rows(_ store: SourceStore) throws -> [String] {
        try store.serialized {
            try store.db.statement("SELECT rid, id, metric, start, end, value, day, origin, seen FROM record ORDER BY rid")
                .rows { row in (0..<9).map { row.isNull(Int32($0)) ? "-" : row.text(Int32($0)) }.joined(separator: "|") }
        }
    }

    @Test func aReimportLeavesEveryRowAsItWasAndANewerExportStillRemovesWhatHealthDropped() throws {
        try withStore { store in
            let records = PushTests.records
            let first = try importing(records, into: store)
            #expect(first.added == records.count)
            let stored = try rows(store)

            let again = try importing(records, into: store)
            #expect(again.added == 0 && again.removed == 0)
            #expect(try rows(store) == stored, "an unchanged export rewrites no row")

            // The evening's 300 iPhone steps are gone from Health; a record outside every span of
            // the newer export (a reading of another metric) stays.
            var newer = records
            let dropped = newer.remove(at: 2)
            newer.removeAll { $0.type.hasSuffix("HeartRate") }
            let third = try importing(newer, into: store)
            #expect(third.removed == 1 && third.added == 0)
            let left = try rows(store)
            #expect(left.count == stored.count - 1)
            let (droppedRows, heartRates) = try store.serialized {
                (try store.db.statement("SELECT count(*) FROM record WHERE start = ?").first([.integer(Int64(dropped.start))]) { $0.int64(0) },
                 try store.db.statement("SELECT count(*) FROM record WHERE metric = 'heartRate'").first { $0.int64(0) })
            }
            #expect(droppedRows == 0)
            #expect(heartRates == 2)
        }
    }

    /// A record added while a full import runs (a phone batch) comes after the rows the run noted
    /// and is not taken for one Health dropped; a partial import never removes anything.
    @Test func rowsAddedDuringTheRunAndPartialImportsAreKept() throws {
        try withStore { store in
            let records = PushTests.records
            _ = try importing(records, into: store)
            let session = try store.beginImport(source: "test", format: "test", full: true)
            for record in records { try session.record(record) }
            try session.flush()
            // Another writer's row, inside the export's span of steps, after the run began.
            try store.serialized {
                try store.db.execute("""
                    INSERT INTO record (id, metric, total, source, start, end, value, unit, day, origin, seen)
                    SELECT id + 1, metric, total, 'phone', start + 1, end + 1, value, unit, day, 0, 0 FROM record
                    WHERE metric = 'steps' ORDER BY rid LIMIT 1
                    """)
            }
            try session.finish()
            #expect(session.removed == 0)
            #expect(try store.recordCount() == records.count + 1)
            let before = try rows(store)
            let partial = try importing([records[0]], into: store, full: false)
            #expect(partial.removed == 0 && partial.added == 0)
            #expect(try rows(store) == before, "a partial import neither removes nor stamps")
        }
    }

    /// SQLite gives a new row the largest rid plus one: when the top row goes during the run (a
    /// phone's deletion), a record the run then adds takes that rid again, at or below the rows the
    /// run noted. It is the run's own and must stay.
    @Test func aRecordAddedUnderADeletedTopRowsRidStays() throws {
        try withStore { store in
            let records = PushTests.records
            _ = try importing(records, into: store)
            // A row no export of this test holds, on top (a reading of a metric outside its spans).
            let top = try #require(try store.serialized {
                try store.db.execute("""
                    INSERT INTO record (id, metric, total, source, start, end, value, unit, day, origin, seen)
                    VALUES (42, 'bodyMass', 0, 'phone', 1717200000, 1717200000, 70, 'kg', '2024-06-01', 0, 0)
                    """)
                return try store.db.statement("SELECT max(rid) FROM record").first { $0.int64(0) }
            })
            let session = try store.beginImport(source: "test", format: "test", full: true)
            for record in records { try session.record(record) }
            try session.flush()
            try store.serialized { try store.db.execute("DELETE FROM record WHERE rid = \(top)") }
            let later = steps("2024-06-01 20:00:00", "2024-06-01 20:10:00", 55, source: "Alexandre's iPhone", device: "iPhone")
            try session.record(later)
            try session.finish()
            #expect(session.added == 1 && session.removed == 0)
            #expect(try store.serialized { try store.db.statement("SELECT rid FROM record WHERE value = 55").first { $0.int64(0) } } == top,
                    "the rid was given again")
            #expect(try store.recordCount() == records.count + 1)
        }
    }

    /// A record listed twice in one export is one row, found twice; an empty whole export (nothing
    /// in any span) removes nothing.
    @Test func duplicatesInOneExportAndAnEmptyExportRemoveNothing() throws {
        try withStore { store in
            let records = PushTests.records + [PushTests.records[0]]
            let first = try importing(records, into: store)
            #expect(first.added == records.count - 1)
            let stored = try rows(store)
            let again = try importing(records, into: store)
            #expect(again.added == 0 && again.removed == 0)
            let empty = try importing([], into: store)
            #expect(empty.added == 0 && empty.removed == 0)
            #expect(try rows(store) == stored)
        }
    }

    /// A store whose row ids run past what is noted in memory is stamped row by row instead, and
    /// removes the same records.
    @Test func aStoreBeyondTheNotedRangeIsStampedAndRemovesAlike() throws {
        try withStore { store in
            let records = PushTests.records
            _ = try importing(records, into: store)
            let far = SeenRows.largest + 5
            try store.serialized { try store.db.execute("UPDATE record SET rid = rid + \(far) WHERE rid = (SELECT max(rid) FROM record)") }
            var newer = records
            newer.remove(at: 2)
            let session = try importing(newer, into: store)
            #expect(session.removed == 1 && session.added == 0)
            #expect(try store.recordCount() == records.count - 1)
            let stamped = try store.serialized {
                try store.db.statement("SELECT count(*) FROM record WHERE seen = ?").first([.integer(session.run)]) { $0.int64(0) }
            }
            #expect(stamped == Int64(records.count - 1), "every row the run found was stamped")
        }
    }

    @Test func seenRowsNoteIdsUpToTheLastAndTakeLaterOnesAsNew() throws {
        let seen = try #require(SeenRows(last: 130))
        for rid: Int64 in [0, 1, 63, 64, 127, 128, 130] { seen.insert(rid) }
        seen.insert(131)      // after the run began: nothing to note
        seen.insert(-1)
        #expect([0, 1, 63, 64, 127, 128, 130].allSatisfy { seen.contains($0) })
        #expect(![2, 62, 65, 126, 129].contains { seen.contains($0) })
        #expect(seen.contains(131) && seen.contains(1 << 40), "added since the run began")
        #expect(!seen.contains(-1))
        #expect(SeenRows(last: SeenRows.largest + 1) == nil)
        #expect(SeenRows(last: 0) != nil)
    }
}
