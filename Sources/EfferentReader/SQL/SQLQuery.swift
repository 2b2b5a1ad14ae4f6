import EfferentCore
import EfferentSQLite

/// One read-only statement over an SQL export (`efferent sql`): the rows as JSON values under
/// their column names, read one at a time so a result of millions of rows is never held whole.
///
/// Three locks keep it reading: the file is opened read-only, `PRAGMA query_only` is set, and an
/// authorizer refuses at prepare time anything but reading (writes, schema changes, ATTACH,
/// transactions, pragmas that set something); a statement SQLite itself does not call read-only
/// (VACUUM INTO) is refused too.
public final class SQLQuery {
    private let connection: SQLiteConnection
    private let statement: SQLiteStatement
    public let columns: [String]
    /// Set once the last row was read: stepping a finished statement would run it again.
    private var finished = false

    /// Prepares `sql` over the database at `path`; throws `SQLQueryError` for a statement it will
    /// not run, with the sentence to show.
    public init(path: String, sql: String) throws {
        connection = try SQLiteConnection(path: path, readOnly: true, create: false)
        try connection.execute("PRAGMA query_only = 1")
        try connection.allowOnlyReading()
        let prepared: SQLiteStatement
        do {
            prepared = try connection.statement(sql)
        } catch {
            // SQLite reports a refusal as SQLITE_AUTH, or as SQLITE_ERROR when the parser went on
            // past it (CREATE TABLE); its message is the same fixed text either way.
            if error.isNotAuthorized || error.message == "not authorized" { throw SQLQueryError.notARead(Self.opening(sql)) }
            if error.message.hasPrefix("the SQL holds more than one statement") { throw SQLQueryError.severalStatements }
            if error.message.hasPrefix("the SQL holds no statement") { throw SQLQueryError.noStatement }
            throw SQLQueryError.doesNotPrepare(error.message)
        }
        guard prepared.isReadOnly else { throw SQLQueryError.notARead(Self.opening(sql)) }
        // `?` parameters have nothing to take their values from on a command line.
        do { try prepared.bind([]) } catch { throw SQLQueryError.doesNotPrepare("it has parameters (?), and efferent sql takes none; write the values into it") }
        statement = prepared
        columns = (0..<prepared.columnCount).map { prepared.columnName($0) }
    }

    /// The first words of a statement, to name it in a refusal without repeating a whole query.
    static func opening(_ sql: String) -> String {
        let words = sql.split(whereSeparator: \.isWhitespace).prefix(4).joined(separator: " ")
        return words.count > 60 ? String(words.prefix(60)) + "…" : words
    }

    /// The next row, or nil after the last. Integers and reals are numbers, text is a string, a
    /// blob is its hex digits (`x'…'` as SQLite writes it), NULL is `null`; a real SQLite cannot
    /// write as JSON (±infinity) is a string.
    public func next() throws -> [JSONValue]? {
        guard !finished else { return nil }
        do {
            guard try statement.step() else {
                finished = true
                return nil
            }
        } catch {
            throw SQLQueryError.failed(error.message)
        }
        return (0..<Int32(columns.count)).map { column in
            switch statement.value(column) {
            case .null: return .null
            case let .integer(value): return .number(Double(value))
            case let .real(value): return value.isFinite ? .number(value) : .string(value > 0 ? "Infinity" : "-Infinity")
            case let .text(text): return .string(text)
            case let .blob(bytes):
                let digits = Array("0123456789abcdef")
                return .string("x'" + String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }) + "'")
            }
        }
    }
}
