import Foundation
import Testing
@testable import EfferentSQLite

/// The SQLite binding refuses what SQLite itself would let slip: a second statement in one SQL
/// string (prepared and silently dropped) and a parameter left unbound (run as NULL).
@Suite struct SQLiteStatementTests {
    func database() throws -> SQLiteConnection {
        try SQLiteConnection(path: NSTemporaryDirectory() + "efferent-sqlite-" + UUID().uuidString + ".sqlite")
    }

    @Test func refusesASecondStatementInOneString() throws {
        let db = try database()
        try db.execute("CREATE TABLE t (a INTEGER)")
        let error = try #require(throws: SQLiteError.self) { try db.statement("INSERT INTO t VALUES (1); DROP TABLE t") }
        #expect(error.description == "SQLite failed while preparing a statement: the SQL holds more than one statement; prepare them one at a time (code 21).")
        #expect(throws: SQLiteError.self) { try db.statement("SELECT 1; SELECT 2") }
        #expect(throws: SQLiteError.self, "a broken statement after the first is refused too") { try db.statement("SELECT 1; NOT SQL") }
        #expect(try db.statement("SELECT count(*) FROM t").first { $0.int64(0) } == 0, "nothing ran and the table is still there")
    }

    @Test func acceptsTrailingSpaceAndComments() throws {
        let db = try database()
        #expect(try db.statement("SELECT 7;  ").first { $0.int64(0) } == 7)
        #expect(try db.statement("SELECT 8; -- why\n /* and a note */ ").first { $0.int64(0) } == 8)
        #expect(throws: SQLiteError.self, "an empty string is no statement") { try db.statement("  -- nothing\n") }
    }

    @Test func checksTheParameterCount() throws {
        let db = try database()
        let sum = try db.statement("SELECT ?1 + ?2")
        let missing = try #require(throws: SQLiteError.self) { try sum.first([.integer(1)]) { $0.int64(0) } }
        #expect(missing.description == "SQLite failed while binding parameters: the statement takes 2 parameters and 1 were given (code 25).")
        #expect(throws: SQLiteError.self) { try sum.first([.integer(1), .integer(2), .integer(3)]) { $0.int64(0) } }
        #expect(throws: SQLiteError.self, "no values for a statement that takes some") { try sum.run() }
        #expect(try sum.first([.integer(1), .integer(2)]) { $0.int64(0) } == 3)
        #expect(throws: SQLiteError.self, "values for a statement that takes none") { try db.statement("SELECT 1").run([.integer(1)]) }
    }

    /// The write-ahead log's file is named by SQLite (what the receiver's group commit flushes); an
    /// in-memory database has none.
    @Test func theWriteAheadLogIsNamedBySQLite() throws {
        let path = NSTemporaryDirectory() + "efferent-sqlite-" + UUID().uuidString + ".sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let db = try SQLiteConnection(path: path)
        try db.execute("PRAGMA journal_mode=WAL; CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1)")
        let log = try #require(db.writeAheadLogPath)
        #expect(log == URL(fileURLWithPath: path).resolvingSymlinksInPath().path + "-wal")
        #expect(FileManager.default.fileExists(atPath: log))
        #expect(try SQLiteConnection(path: ":memory:").writeAheadLogPath == nil)
    }

    /// A nested write that throws takes back its own changes, though the outer one catches the
    /// error and commits (before, they joined the outer transaction and were committed with it).
    @Test func aNestedWriteThatThrowsTakesBackOnlyItsOwnChanges() throws {
        let db = try SQLiteConnection(path: ":memory:")
        try db.execute("CREATE TABLE t (x INTEGER)")
        struct Refused: Error {}
        try db.write {
            try db.statement("INSERT INTO t VALUES (1)").run()
            _ = try? db.write {
                try db.statement("INSERT INTO t VALUES (2)").run()
                throw Refused()
            }
            try db.write { try db.statement("INSERT INTO t VALUES (3)").run() }
        }
        #expect(try db.statement("SELECT group_concat(x) FROM (SELECT x FROM t ORDER BY x)").first { $0.text(0) } == "1,3")
    }

    /// Statements built with values in their text do not pile up: the cache keeps the most
    /// recently used, and a statement a caller still holds works after the cache dropped it.
    @Test func theStatementCacheIsBounded() throws {
        let db = try SQLiteConnection(path: ":memory:")
        let held = try db.statement("SELECT 42")
        for value in 0..<(SQLiteConnection.cachedStatements * 3) {
            #expect(try db.statement("SELECT \(value)").first { $0.int64(0) } == Int64(value))
        }
        #expect(db.cachedStatementCount <= SQLiteConnection.cachedStatements)
        #expect(try held.first { $0.int64(0) } == 42)
    }

}
