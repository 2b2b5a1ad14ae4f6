import EfferentCore
import EfferentSQLite

/// One read-only statement over an SQL export (`efferent sql`): the rows as JSON values under
/// their column names, read one at a time so a result of millions of rows is never held whole.
///
/// Three locks keep it reading: the file is opened read-only, `PRAGMA query_only` is set, and an
/// authorizer refuses at prepare time anything but reading (writes, schema changes, ATTACH,
/// transactions, pragmas that set something); a statement SQLite itself does not call read-only
/// (VACUUM INTO) is refused too. Bounds keep it small: a value, a row, the running time, its
/// temporary files, and in a process that called `boundProcessMemory` all of SQLite's memory;
/// past each the statement stops with a sentence, and `printf` past the value bound is an error
/// rather than SQLite's NULL.
public final class SQLQuery {
    private let connection: SQLiteConnection
    private let statement: SQLiteStatement
    public let columns: [String]
    /// Set once the last row was read: stepping a finished statement would run it again.
    private var finished = false

    /// The longest string or blob a statement may make (`randomblob(1000000000)` is refused).
    public static let maxValueBytes: Int32 = 64 << 20
    /// The most one row may hold, all its values together (20 values of 60 MB are refused).
    public static let maxRowBytes = 64 << 20
    /// What SQLite may hold in memory in a process that runs untrusted statements
    /// (`boundProcessMemory`): page caches, the parts of sorts that stay in memory, values.
    public static let maxMemoryBytes: Int64 = 512 << 20
    /// What a statement's temporary files (sorts that spill, DISTINCT's and GROUP BY's transient
    /// tables) may hold together: room for sorting every event of the largest history, and a stop
    /// for a recursive CTE without an end, which grew them by 1.6 GB in 30 s.
    public static let maxTemporaryBytes: Int64 = 2 << 30

    /// Bounds SQLite's memory in this process to `maxMemoryBytes`; call it before the process opens
    /// any database (`efferent sql` does, first). Returns false when it is too late to.
    @discardableResult
    public static func boundProcessMemory() -> Bool { SQLiteConnection.limitProcessMemory(bytes: maxMemoryBytes) }
    /// How long a statement may run by default (a recursive CTE without an end is stopped).
    public static let defaultSeconds: Double = 300
    private let seconds: Double

    private let temporaryBytes: Int64

    /// Prepares `sql` over the database at `path`; throws `SQLQueryError` for a statement it will
    /// not run, with the sentence to show. The statement may run `seconds` from now, and its
    /// temporary files may hold `temporaryBytes`.
    public init(path: String, sql: String, seconds: Double = SQLQuery.defaultSeconds,
                temporaryBytes: Int64 = SQLQuery.maxTemporaryBytes) throws {
        self.seconds = seconds
        self.temporaryBytes = temporaryBytes
        connection = try SQLiteConnection(path: path, readOnly: true, create: false, temporaryFileLimit: temporaryBytes)
        try connection.execute("PRAGMA query_only = 1")
        // Bounded before the authorizer goes on (it refuses pragmas that set something): values,
        // the page cache (sorts spill to files past it) and the running time.
        try connection.limitUntrusted(maxLength: Self.maxValueBytes, seconds: seconds)
        try connection.failOversizedPrintf()
        try connection.allowOnlyReading()
        let prepared: SQLiteStatement
        do {
            prepared = try connection.statement(sql)
        } catch {
            // SQLite reports a refusal as SQLITE_AUTH, or as SQLITE_ERROR when the parser went on
            // past it (CREATE TABLE); its message is the same fixed text either way.
            if error.isNotAuthorized || error.message.hasPrefix("not authorized") {
                if let name = Self.refusedFunction(in: sql) { throw SQLQueryError.refusedFunction(name) }
                throw SQLQueryError.notARead(Self.opening(sql))
            }
            if error.isTooBig { throw SQLQueryError.doesNotPrepare("the statement is longer than 1 MiB") }
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

    /// Functions the authorizer refuses although they read: one loads code, one hands out (or
    /// re-points) a pointer into this process's memory.
    static let refusedFunctions = ["fts3_tokenizer", "load_extension"]

    static func refusedFunction(in sql: String) -> String? {
        let lower = sql.lowercased()
        return refusedFunctions.first { lower.contains($0) }
    }

    /// The first words of a statement, to name it in a refusal without repeating a whole query.
    static func opening(_ sql: String) -> String {
        let words = sql.split(whereSeparator: \.isWhitespace).prefix(4).joined(separator: " ")
        return words.count > 60 ? String(words.prefix(60)) + "…" : words
    }

    /// The next row, or nil after the last. Integers (up to 2^53; past it their exact text) and reals are numbers, text is a string, a
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
            finished = true
            if error.isInterrupted || connection.deadlineExpired { throw SQLQueryError.tookTooLong(seconds: seconds) }
            if error.isTooBig { throw SQLQueryError.tooBig(bytes: Int(Self.maxValueBytes)) }
            if error.isOutOfMemory { throw SQLQueryError.tooMuchMemory(bytes: Self.maxMemoryBytes) }
            if error.isFull { throw SQLQueryError.temporaryFilesTooBig(bytes: temporaryBytes) }
            throw SQLQueryError.failed(error.message)
        }
        // Read before any value is copied out: a row of many large values is refused whole.
        let rowBytes = (0..<Int32(columns.count)).reduce(0) { $0 + statement.byteCount($1) }
        guard rowBytes <= Self.maxRowBytes else {
            finished = true
            throw SQLQueryError.rowTooBig(bytes: Self.maxRowBytes)
        }
        return (0..<Int32(columns.count)).map { column in
            switch statement.value(column) {
            case .null: return .null
            // A JSON number is a Double here: an integer past 2^53 would lose digits as one, so it
            // goes out as its exact decimal text instead.
            case let .integer(value): return (-(1 << 53)...(1 << 53)).contains(value) ? .number(Double(value)) : .string(String(value))
            case let .real(value): return value.isFinite ? .number(value) : .string(value > 0 ? "Infinity" : "-Infinity")
            case let .text(text): return .string(text)
            case let .blob(bytes):
                let digits = Array("0123456789abcdef")
                return .string("x'" + String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }) + "'")
            }
        }
    }
}
