import EfferentCore
import EfferentSQLite
@testable import EfferentReader
import Foundation
import Testing

/// `efferent sql` reads and never writes: every kind of statement that would change the file, attach
/// another, open a transaction or set a pragma is refused with the sentence to show, and the file
/// is as it was; reading statements give their rows under their column names.
@Suite struct SQLQueryTests {
    /// A small database with the export's `daily` table.
    func database() throws -> String {
        let path = NSTemporaryDirectory() + "efferent-sqlquery-" + UUID().uuidString + ".db"
        let db = try SQLiteConnection(path: path)
        try db.execute("""
            CREATE TABLE daily (day TEXT, metric TEXT, value REAL, note TEXT, raw BLOB);
            CREATE INDEX daily_day ON daily (day);
            INSERT INTO daily VALUES ('2025-01-01', 'steps', 8000, NULL, x'00ff'), ('2025-01-02', 'steps', 9000.5, 'a "quoted", note', NULL);
            """)
        return path
    }

    func all(_ query: SQLQuery) throws -> [[JSONValue]] {
        var rows = [[JSONValue]]()
        while let row = try query.next() { rows.append(row) }
        return rows
    }

    @Test func readingStatementsGiveTheirRows() throws {
        let path = try database()
        let query = try SQLQuery(path: path, sql: "SELECT day, value AS steps, note, raw, 1e999 AS big FROM daily ORDER BY day")
        #expect(query.columns == ["day", "steps", "note", "raw", "big"])
        #expect(try all(query) == [[.string("2025-01-01"), .number(8000), .null, .string("x'00ff'"), .string("Infinity")],
                                   [.string("2025-01-02"), .number(9000.5), .string("a \"quoted\", note"), .null, .string("Infinity")]])
        #expect(try query.next() == nil, "a finished statement is not run again")
        #expect(try all(SQLQuery(path: path, sql: "WITH t AS (SELECT 2 AS n) SELECT n * 21 FROM t")) == [[.number(42)]])
        #expect(try all(SQLQuery(path: path, sql: "PRAGMA table_info(daily)")).count == 5)
        #expect(try all(SQLQuery(path: path, sql: "SELECT name FROM pragma_table_info('daily') LIMIT 1")) == [[.string("day")]])
        #expect(try all(SQLQuery(path: path, sql: "EXPLAIN QUERY PLAN SELECT * FROM daily")).count >= 1)
        #expect(try all(SQLQuery(path: path, sql: "VALUES (1), (2) -- a comment\n")).count == 2)
        // Integers past 2^53 keep every digit (as text: a JSON number here is a Double).
        #expect(try all(SQLQuery(path: path, sql: "SELECT 9007199254740993, -9007199254740993, 9007199254740992, -9223372036854775807 - 1")) ==
                [[.string("9007199254740993"), .string("-9007199254740993"), .number(9_007_199_254_740_992), .string("-9223372036854775808")]])
    }

    @Test(arguments: [
        "INSERT INTO daily (day) VALUES ('2026-01-01')", "UPDATE daily SET value = 0", "DELETE FROM daily", "DROP TABLE daily",
        "CREATE TABLE t (a)", "CREATE TEMP TABLE t (a)", "CREATE VIEW v AS SELECT 1", "ALTER TABLE daily ADD COLUMN b",
        "ATTACH DATABASE '/tmp/efferent-attach.db' AS other", "DETACH DATABASE main", "BEGIN", "COMMIT", "SAVEPOINT s",
        "VACUUM", "VACUUM INTO '/tmp/efferent-vacuum-copy.db'", "PRAGMA query_only = 0", "PRAGMA user_version = 3",
        "PRAGMA journal_mode = DELETE", "REINDEX", "ANALYZE", "REPLACE INTO daily (day) VALUES ('x')",
        "WITH t AS (SELECT 1) DELETE FROM daily",
    ])
    func statementsThatChangeAnythingAreRefused(sql: String) throws {
        let path = try database()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let error = try #require(throws: SQLQueryError.self) { try SQLQuery(path: path, sql: sql) }
        #expect(error.isRefusal)
        if case .notARead = error {} else { Issue.record("\(sql): \(error)") }
        #expect(error.description.hasPrefix("efferent sql only reads, and '") && error.description.contains("efferent export sqlite FILE"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(!FileManager.default.fileExists(atPath: "/tmp/efferent-vacuum-copy.db"))
        #expect(!FileManager.default.fileExists(atPath: "/tmp/efferent-attach.db"))
    }

    @Test func otherStatementsAreRefusedWithWhatToDo() throws {
        let path = try database()
        #expect(throws: SQLQueryError.severalStatements) { try SQLQuery(path: path, sql: "SELECT 1; DELETE FROM daily") }
        #expect(throws: SQLQueryError.noStatement) { try SQLQuery(path: path, sql: "  -- nothing\n") }
        let typo = try #require(throws: SQLQueryError.self) { try SQLQuery(path: path, sql: "SELECT vaule FROM daily") }
        #expect(typo == .doesNotPrepare("no such column: vaule"))
        #expect(typo.description == "the statement does not run: no such column: vaule; documents/sql.md lists the tables and their columns.")
        let parameter = try #require(throws: SQLQueryError.self) { try SQLQuery(path: path, sql: "SELECT * FROM daily WHERE day = ?") }
        #expect(parameter.isRefusal && parameter.description.contains("takes none"))
        let failing = try SQLQuery(path: path, sql: "SELECT json_extract(note, '$.a') FROM daily ORDER BY day DESC")
        let error = try #require(throws: SQLQueryError.self) { try failing.next() }
        #expect(!error.isRefusal && error.description.hasPrefix("the statement failed while running: malformed JSON"))
        #expect(SQLQuery.opening("SELECT   a,\n b FROM t WHERE x") == "SELECT a, b FROM")
    }
}

/// SQL's sharp edges (issue 33): functions that expose memory or load code are refused, a value
/// cannot grow past its ceiling, and a statement that runs too long is stopped, each with its
/// sentence; the process's memory is not what a query decides.
@Suite struct SQLQueryLimitTests {
    func database() throws -> String {
        let path = NSTemporaryDirectory() + "efferent-sqllimits-" + UUID().uuidString + ".db"
        let db = try SQLiteConnection(path: path)
        try db.execute("CREATE TABLE daily (day TEXT, value REAL); INSERT INTO daily VALUES ('2025-01-01', 1);")
        return path
    }

    @Test(arguments: ["SELECT fts3_tokenizer('simple')", "SELECT hex(FTS3_TOKENIZER('simple', x'0000000000000000'))",
                      "SELECT load_extension('/tmp/x.so')"])
    func functionsThatExposeMemoryOrLoadCodeAreRefused(sql: String) throws {
        let error = try #require(throws: SQLQueryError.self) { try SQLQuery(path: try database(), sql: sql) }
        guard case let .refusedFunction(name) = error else { Issue.record("\(sql): \(error)"); return }
        #expect(sql.lowercased().contains(name) && error.isRefusal)
        #expect(error.description == "efferent sql does not run \(name)(), which loads code or exposes this program's memory; leave it out of the statement.")
    }

    @Test func aValuePastTheCeilingStopsTheStatement() throws {
        let query = try SQLQuery(path: try database(), sql: "SELECT length(randomblob(1000000000))")
        let error = try #require(throws: SQLQueryError.self) { _ = try query.next() }
        #expect(error == .tooBig(bytes: Int(SQLQuery.maxValueBytes)) && !error.isRefusal)
        #expect(error.description.hasPrefix("the statement made a value over 64 MiB and was stopped"))
        // Values under the ceiling are answered.
        let small = try SQLQuery(path: try database(), sql: "SELECT length(randomblob(1000000))")
        #expect(try small.next() == [.number(1_000_000)])
    }

    /// Issue 45: the value ceiling is per value, so a row of many values under it is bounded as a
    /// whole before any of it is copied out.
    @Test func aRowPastTheCeilingStopsTheStatement() throws {
        let columns = (0..<3).map { _ in "randomblob(30000000)" }.joined(separator: ", ")
        let query = try SQLQuery(path: try database(), sql: "SELECT \(columns)")
        let error = try #require(throws: SQLQueryError.self) { _ = try query.next() }
        #expect(error == .rowTooBig(bytes: SQLQuery.maxRowBytes) && !error.isRefusal)
        #expect(error.description.hasPrefix("the statement made a row over 64 MiB and was stopped"))
        #expect(try query.next() == nil, "a stopped statement is not run again")
        let under = try SQLQuery(path: try database(), sql: "SELECT length(randomblob(20000000)), randomblob(20000000), randomblob(20000000)")
        #expect(try under.next()?.first == .number(20_000_000))
    }

    /// Issue 45: SQLite's printf answers NULL past the length limit; here it is an error, and
    /// printf and format otherwise answer exactly as SQLite's own (NULL format included).
    @Test func printfPastTheCeilingIsAnErrorNotNull() throws {
        for sql in ["SELECT printf('%.*c', 1000000000, 'x')", "SELECT format('%.*c', 100000000, 'y')", "SELECT printf('%2000000000d', 1)"] {
            let query = try SQLQuery(path: try database(), sql: sql)
            let error = try #require(throws: SQLQueryError.self, "\(sql)") { _ = try query.next() }
            #expect(error == .tooBig(bytes: Int(SQLQuery.maxValueBytes)), "\(sql): \(error)")
        }
        let cases: [(String, [JSONValue])] = [
            ("SELECT printf('%d-%05.1f|%s|%q', 42, 3.14159, NULL, 'it''s')", [.string("42-003.1||it''s")]),
            ("SELECT format('%s %s', 'a'), printf(NULL), printf('%c', 'xyz'), length(printf('%.*c', 1000, 'z'))",
             [.string("a "), .null, .string("x"), .number(1000)]),
            ("SELECT printf('%d', value) FROM (SELECT 1 AS value UNION ALL SELECT 22 UNION ALL SELECT 333) ORDER BY 1", [.string("1")]),
        ]
        for (sql, expected) in cases {
            let query = try SQLQuery(path: try database(), sql: sql)
            #expect(try query.next() == expected, "\(sql)")
        }
    }

    /// Issue 45: a recursive CTE without an end under count(DISTINCT …) grew temporary files by
    /// 1.6 GB in 30 s; their bytes are capped together (here at 8 MiB), and freed when it stops.
    @Test func temporaryFilesPastTheCeilingStopTheStatement() throws {
        let sql = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(DISTINCT randomblob(200)) FROM c"
        let query = try SQLQuery(path: try database(), sql: sql, seconds: 60, temporaryBytes: 8 << 20)
        let error = try #require(throws: SQLQueryError.self) { _ = try query.next() }
        #expect(error == .temporaryFilesTooBig(bytes: 8 << 20) && !error.isRefusal, "\(error)")
        #expect(error.description.hasPrefix("the statement's sorts and temporary tables passed 8 MiB on disk and it was stopped"))
        // A sort that spills within the ceiling is answered.
        let sorted = try SQLQuery(path: try database(), sql: "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 200000) "
                                  + "SELECT count(DISTINCT x), max(x) FROM c", temporaryBytes: 64 << 20)
        #expect(try sorted.next() == [.number(200_000), .number(200_000)])
    }

    @Test func aStatementWithoutEndIsStoppedAtItsTimeLimit() throws {
        let sql = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
        let query = try SQLQuery(path: try database(), sql: sql, seconds: 0.2)
        let error = try #require(throws: SQLQueryError.self) { _ = try query.next() }
        #expect(error == .tookTooLong(seconds: 0.2))
        #expect(error.description.hasPrefix("the statement was stopped after 0.2 s; narrow it"))
        #expect(try query.next() == nil, "a stopped statement is finished")
    }
}
