internal import CSQLite

/// A value to bind to a statement's parameter or read from a column.
public enum SQLiteValue: Equatable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// A prepared statement (https://sqlite.org/c3ref/stmt.html), finalized in `deinit`.
public final class SQLiteStatement {
    private let handle: OpaquePointer
    private unowned let connection: SQLiteConnection

    init(_ handle: OpaquePointer, connection: SQLiteConnection) {
        self.handle = handle
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    /// How many times its bindings were cleared (by `bind(_:)` and by `SQLiteConnection.statement(_:)`
    /// handing it out again): a caller that leaves unchanged values bound from row to row checks
    /// this to know they still are.
    public private(set) var clearings = 0

    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        clearings &+= 1
    }

    /// Resets the statement and binds `values` to parameters 1…n. The count must be the
    /// statement's: SQLite would run a missing parameter as NULL, so a mismatch is refused (as
    /// GRDB's `validateArguments` does).
    @discardableResult
    public func bind(_ values: [SQLiteValue]) throws(SQLiteError) -> SQLiteStatement {
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard values.count == expected else {
            throw SQLiteError(code: SQLITE_RANGE, message: "the statement takes \(expected) parameters and \(values.count) were given",
                              context: "binding parameters")
        }
        reset()
        for (offset, value) in values.enumerated() { try bind(Int32(offset + 1), value) }
        return self
    }

    /// Binds one parameter without building an array: for loops that insert millions of rows.
    /// Call `reset()` first (the statement keeps earlier bindings until then).
    public func bind(_ index: Int32, _ value: SQLiteValue) throws(SQLiteError) {
        let rc: Int32
        switch value {
        case .null: rc = sqlite3_bind_null(handle, index)
        case let .integer(n): rc = sqlite3_bind_int64(handle, index, n)
        case let .real(d): rc = sqlite3_bind_double(handle, index, d)
        case let .text(s): rc = s.withCString { efferent_sqlite_bind_text(handle, index, $0, -1) }
        case let .blob(bytes):
            // An empty blob, not NULL (a nil pointer would bind NULL).
            rc = bytes.isEmpty ? sqlite3_bind_zeroblob(handle, index, 0)
                : bytes.withUnsafeBytes { efferent_sqlite_bind_blob(handle, index, $0.baseAddress!, Int32($0.count)) }
        }
        guard rc == SQLITE_OK else { throw connection.error(rc, "binding a parameter") }
    }

    /// Binds text, or NULL for nil, without wrapping it in a `SQLiteValue` first: the import's
    /// writer binds a dozen columns for each of millions of rows. The length is passed, so SQLite
    /// need not measure the string again.
    public func bind(_ index: Int32, text: String?) throws(SQLiteError) {
        let rc: Int32
        if var text {
            rc = text.withUTF8 { bytes in
                // An empty buffer may have no address: bind "" (a NULL pointer would bind NULL).
                guard let base = bytes.baseAddress else { return efferent_sqlite_bind_text(handle, index, "", 0) }
                guard bytes.count <= Int(Int32.max) else { return SQLITE_TOOBIG }
                return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    efferent_sqlite_bind_text(handle, index, $0, Int32(bytes.count))
                }
            }
        } else {
            rc = sqlite3_bind_null(handle, index)
        }
        guard rc == SQLITE_OK else { throw connection.error(rc, "binding a parameter") }
    }

    /// Binds an integer, or NULL for nil.
    public func bind(_ index: Int32, integer: Int64?) throws(SQLiteError) {
        let rc = integer.map { sqlite3_bind_int64(handle, index, $0) } ?? sqlite3_bind_null(handle, index)
        guard rc == SQLITE_OK else { throw connection.error(rc, "binding a parameter") }
    }

    /// Binds a double, or NULL for nil.
    public func bind(_ index: Int32, real: Double?) throws(SQLiteError) {
        let rc = real.map { sqlite3_bind_double(handle, index, $0) } ?? sqlite3_bind_null(handle, index)
        guard rc == SQLITE_OK else { throw connection.error(rc, "binding a parameter") }
    }

    /// Resets the statement (keeping it prepared) for a new set of `bind(_:_:)` calls.
    public func rewind() {
        sqlite3_reset(handle)
    }

    /// Advances to the next row: `true` while a row is available, `false` when done.
    public func step() throws(SQLiteError) -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            sqlite3_reset(handle)
            throw connection.error(rc, "running a statement")
        }
    }

    /// Runs the statement to completion, ignoring rows.
    public func run(_ values: [SQLiteValue] = []) throws(SQLiteError) {
        try bind(values)
        while try step() {}
    }

    /// Every row, each turned into a `T` by `row`.
    public func rows<T>(_ values: [SQLiteValue] = [], _ row: (SQLiteStatement) throws -> T) throws -> [T] {
        try bind(values)
        var out = [T]()
        while try step() { out.append(try row(self)) }
        return out
    }

    /// The first row, if any.
    public func first<T>(_ values: [SQLiteValue] = [], _ row: (SQLiteStatement) throws -> T) throws -> T? {
        try bind(values)
        guard try step() else { return nil }
        let value = try row(self)
        sqlite3_reset(handle)
        return value
    }

    /// Whether the statement leaves the database as it is (https://sqlite.org/c3ref/stmt_readonly.html):
    /// true for SELECT and for pragmas that report, false for anything that writes, VACUUM included.
    public var isReadOnly: Bool { sqlite3_stmt_readonly(handle) != 0 }

    /// How many columns each row has.
    public var columnCount: Int32 { sqlite3_column_count(handle) }

    /// A column's name as the statement gives it (its `AS` alias, else SQLite's choice).
    public func columnName(_ column: Int32) -> String {
        sqlite3_column_name(handle, column).map { String(cString: $0) } ?? ""
    }

    /// A column of the current row with the type SQLite stored it as.
    public func value(_ column: Int32) -> SQLiteValue {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(int64(column))
        case SQLITE_FLOAT: return .real(double(column))
        case SQLITE_TEXT: return .text(text(column))
        case SQLITE_BLOB: return .blob(blob(column))
        default: return .null
        }
    }

    public func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    public func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    public func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    public func text(_ column: Int32) -> String {
        guard let raw = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: raw, count: count), as: UTF8.self)
    }

    public func optionalText(_ column: Int32) -> String? { isNull(column) ? nil : text(column) }

    public func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let raw = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: raw, count: count))
    }

    public func optionalBlob(_ column: Int32) -> [UInt8]? { isNull(column) ? nil : blob(column) }

    /// Appends a blob column's bytes to `buffer` straight from SQLite's memory (no intermediate array).
    public func appendBlob(_ column: Int32, to buffer: inout [UInt8]) {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let raw = sqlite3_column_blob(handle, column) else { return }
        buffer.append(contentsOf: UnsafeRawBufferPointer(start: raw, count: count))
    }

    /// Appends a text column's UTF-8 bytes to `buffer` straight from SQLite's memory.
    public func appendText(_ column: Int32, to buffer: inout [UInt8]) {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let raw = sqlite3_column_text(handle, column) else { return }
        buffer.append(contentsOf: UnsafeBufferPointer(start: raw, count: count))
    }

    /// The length in bytes of a text or blob column.
    public func byteCount(_ column: Int32) -> Int { Int(sqlite3_column_bytes(handle, column)) }
}
