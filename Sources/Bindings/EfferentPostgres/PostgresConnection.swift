internal import CLibPQ
import Foundation

/// A parameter sent to PostgreSQL in binary form. The SQL names each parameter's type with a cast
/// (`$1::text`, `$2::bytea`, `$3::int8`), so the server never has to guess it.
public enum PostgresValue {
    case text(String)
    case bytes([UInt8])
    case integer(Int64)
    /// A one-dimensional `text[]` or `bytea[]`, for statements that take many rows at once
    /// (`unnest($2::text[], $3::bytea[])`).
    case textArray([String])
    case bytesArray([ArraySlice<UInt8>])
    case integerArray([Int64])
    case null
}

/// One libpq connection (https://www.postgresql.org/docs/current/libpq.html) with its prepared
/// statements. Statements are prepared on first use under a name of their own and reused for the
/// connection's life; parameters and results travel in binary.
///
/// A connection is not thread-safe: give it one owner at a time (a pool slot).
public final class PostgresConnection {
    private let handle: OpaquePointer
    private var prepared: [String: String] = [:]

    /// What libpq is given before the URL, which overrides any of them: a connection attempt gives
    /// up after 10 s, and a peer that vanishes without closing (a network cut) is noticed within
    /// about a minute rather than the kernel's two hours.
    private static let defaults: [(String, String)] = [
        ("connect_timeout", "10"), ("keepalives", "1"), ("keepalives_idle", "30"), ("keepalives_interval", "10"),
        ("keepalives_count", "3"), ("tcp_user_timeout", "60000"),
    ]

    /// Connects with a `postgresql://` URL or a `key=value` string. Errors never quote the URL or
    /// its password: a URL libpq cannot parse gets a sentence of our own, and any other message
    /// has the password cut out before it is shown.
    public init(url: String) throws(PostgresError) {
        var parseError: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(url, &parseError) else {
            // libpq's parse errors quote the text they could not read, password included.
            PQfreemem(parseError)
            throw PostgresError(sqlState: nil, message: "the PostgreSQL URL cannot be read; it takes the form postgresql://user@host:port/database?option=value",
                                context: "connecting")
        }
        var password: String?
        var option = options
        while let keyword = option.pointee.keyword {
            if String(cString: keyword) == "password", let value = option.pointee.val { password = String(cString: value) }
            option += 1
        }
        PQconninfoFree(options)

        let keywords = Self.defaults.map(\.0) + ["dbname"]
        let values = Self.defaults.map(\.1) + [url]
        let raw: OpaquePointer? = Self.withCStrings(keywords) { keywordPointers in
            Self.withCStrings(values) { valuePointers in PQconnectdbParams(keywordPointers, valuePointers, 1) }
        }
        guard let raw else { throw PostgresError(sqlState: nil, message: "out of memory", context: "connecting") }
        guard PQstatus(raw) == CONNECTION_OK else {
            var message = Self.firstLine(String(cString: PQerrorMessage(raw)))
            // libpq's connection errors do not quote the password; should one ever, it is cut out
            // (a very short one would cut up the sentence instead, and says little on its own).
            if let password, password.count >= 4 { message = message.replacingOccurrences(of: password, with: "…") }
            PQfinish(raw)
            throw PostgresError(sqlState: nil, message: message, context: "connecting", connectionLost: true)
        }
        // Notices ("relation already exists, skipping") are not for the operator's terminal;
        // warnings are, one line each on stderr.
        PQsetNoticeReceiver(raw, { _, result in
            guard let result, let severity = PQresultErrorField(result, Int32(UInt8(ascii: "V"))),
                  String(cString: severity) == "WARNING", let primary = PQresultErrorField(result, Int32(UInt8(ascii: "M"))) else { return }
            FileHandle.standardError.write(Data(PostgresConnection.warningLine(String(cString: primary)).utf8))
        }, nil)
        handle = raw
    }

    /// A server warning as one JSON log line, `{"level":"warning","postgres":"…"}`: quotes,
    /// backslashes and control characters escaped, so a message with a newline in it is still one
    /// line a log reader can parse.
    static func warningLine(_ message: String) -> String {
        var text = "{\"level\":\"warning\",\"postgres\":\""
        for scalar in message.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                text += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            default: text.unicodeScalars.append(scalar)
            }
        }
        return text + "\"}\n"
    }

    /// A null-terminated array of C strings alive for `body`.
    private static func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let pointers: [UnsafePointer<CChar>?] = copies.map { UnsafePointer($0) } + [nil]
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    deinit { PQfinish(handle) }

    /// Whether the connection is still usable (a broken one is dropped from its pool).
    public var isHealthy: Bool { PQstatus(handle) == CONNECTION_OK && PQtransactionStatus(handle) == PQTRANS_IDLE }

    /// Whether an idle connection is still there: reads whatever the server sent meanwhile without
    /// waiting, so one the server closed (a restart, an idle timeout, a terminated backend) is
    /// found out before a request is given it.
    public var isAlive: Bool {
        guard PQstatus(handle) == CONNECTION_OK else { return false }
        _ = PQconsumeInput(handle)
        return PQstatus(handle) == CONNECTION_OK && PQtransactionStatus(handle) == PQTRANS_IDLE
    }

    /// Where the connection goes, without user or password: `host:port/database`.
    public var destination: String {
        let host = PQhost(handle).map { String(cString: $0) } ?? "?"
        let port = PQport(handle).map { String(cString: $0) } ?? "?"
        let database = PQdb(handle).map { String(cString: $0) } ?? "?"
        return "\(host):\(port)/\(database)"
    }

    /// Runs one or more statements that take no parameters (schema, BEGIN, COMMIT).
    public func execute(_ sql: String) throws(PostgresError) {
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        try check(result, "running a statement")
    }

    /// Runs `sql` with `parameters`, preparing it on this connection the first time.
    @discardableResult
    public func query(_ sql: String, _ parameters: [PostgresValue] = []) throws(PostgresError) -> PostgresResult {
        let name = try statementName(sql, count: parameters.count)
        // Every parameter's bytes go into one buffer; libpq is pointed at the pieces. Plain
        // arrays of integers, not tuples, keep this loop free of runtime generic metadata.
        var buffer = [UInt8]()
        var offsets = [Int](repeating: 0, count: parameters.count)
        var lengths = [Int32](repeating: 0, count: parameters.count)
        var present = [Bool](repeating: true, count: parameters.count)
        for index in 0..<parameters.count {
            offsets[index] = buffer.count
            switch parameters[index] {
            case .null: present[index] = false
            case let .text(text): buffer.append(contentsOf: text.utf8)
            case let .bytes(bytes): buffer.append(contentsOf: bytes)
            case let .integer(value): Self.append(value, to: &buffer)
            case let .textArray(texts): Self.appendArray(texts.map { Array($0.utf8)[...] }, elementType: Self.textOID, to: &buffer)
            case let .bytesArray(values): Self.appendArray(values, elementType: Self.byteaOID, to: &buffer)
            case let .integerArray(values):
                Self.appendArray(values.map { value in withUnsafeBytes(of: value.bigEndian) { Array($0)[...] } }, elementType: Self.int8OID, to: &buffer)
            }
            lengths[index] = Int32(buffer.count - offsets[index])
        }
        // One spare byte, so an empty value still has a non-null pointer (libpq reads a null
        // pointer as SQL NULL).
        buffer.append(0)
        let formats = [Int32](repeating: 1, count: parameters.count)
        let result: OpaquePointer? = buffer.withUnsafeBufferPointer { base in
            let start = UnsafeRawPointer(base.baseAddress!).assumingMemoryBound(to: CChar.self)
            var values = [UnsafePointer<CChar>?](repeating: nil, count: parameters.count)
            for index in 0..<parameters.count where present[index] { values[index] = start + offsets[index] }
            return PQexecPrepared(handle, name, Int32(parameters.count), values, lengths, formats, 1)
        }
        do {
            try check(result, "running a statement")
        } catch {
            PQclear(result)
            throw error
        }
        return PostgresResult(result!)
    }

    private static let textOID: Int32 = 25
    private static let byteaOID: Int32 = 17
    private static let int8OID: Int32 = 20

    private static func append<T: FixedWidthInteger>(_ value: T, to buffer: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { buffer.append(contentsOf: $0) }
    }

    /// PostgreSQL's binary array: dimensions, a has-null flag, the element type, each dimension's
    /// size and lower bound, then every element as a length and its bytes (array_send in the
    /// server's arrayfuncs.c).
    private static func appendArray(_ elements: [ArraySlice<UInt8>], elementType: Int32, to buffer: inout [UInt8]) {
        append(Int32(elements.isEmpty ? 0 : 1), to: &buffer)
        append(Int32(0), to: &buffer)
        append(elementType, to: &buffer)
        guard !elements.isEmpty else { return }
        append(Int32(elements.count), to: &buffer)
        append(Int32(1), to: &buffer)
        for element in elements {
            append(Int32(element.count), to: &buffer)
            buffer.append(contentsOf: element)
        }
    }

    /// Runs `body` in a transaction: commits when it returns, rolls back when it throws.
    /// READ COMMITTED is named, not left to the database's default: the store's row locks are
    /// written for it, and a stricter default would turn their waits into serialization failures.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN ISOLATION LEVEL READ COMMITTED")
        do {
            let value = try body()
            // A statement that failed inside `body` and was then ignored leaves the transaction
            // aborted, and COMMIT would quietly roll it back: refuse rather than report success.
            guard PQtransactionStatus(handle) == PQTRANS_INTRANS else {
                throw PostgresError(sqlState: nil, message: "the transaction was aborted by an earlier statement", context: "committing")
            }
            try execute("COMMIT")
            return value
        } catch {
            if PQstatus(handle) == CONNECTION_OK { try? execute("ROLLBACK") }
            throw error
        }
    }

    private func statementName(_ sql: String, count: Int) throws(PostgresError) -> String {
        if let name = prepared[sql] { return name }
        let name = "efferent_\(prepared.count)"
        let result = PQprepare(handle, name, sql, Int32(count), nil)
        defer { PQclear(result) }
        try check(result, "preparing a statement")
        prepared[sql] = name
        return name
    }

    private func check(_ result: OpaquePointer?, _ context: String) throws(PostgresError) {
        guard let result else {
            throw PostgresError(sqlState: nil, message: Self.firstLine(String(cString: PQerrorMessage(handle))), context: context,
                                connectionLost: PQstatus(handle) != CONNECTION_OK)
        }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK: return
        default:
            // The primary message names tables and constraints; the DETAIL field, which can quote
            // values, is never read.
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            let primary = PQresultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) }
            let message = primary ?? Self.firstLine(String(cString: PQerrorMessage(handle)))
            throw PostgresError(sqlState: state, message: message, context: context, connectionLost: PQstatus(handle) != CONNECTION_OK)
        }
    }

    private static func firstLine(_ text: String) -> String {
        text.split(separator: "\n").first.map { String($0).trimmingCharacters(in: .whitespaces) } ?? "no reason given"
    }
}

/// The rows of one statement, in binary. Freed with the value.
public final class PostgresResult {
    private let result: OpaquePointer

    init(_ result: OpaquePointer) { self.result = result }
    deinit { PQclear(result) }

    public var count: Int { Int(PQntuples(result)) }

    /// Rows inserted, updated or deleted by the statement.
    public var affected: Int { Int(String(cString: PQcmdTuples(result))) ?? 0 }

    public func isNull(_ row: Int, _ column: Int) -> Bool { PQgetisnull(result, Int32(row), Int32(column)) == 1 }

    public func byteCount(_ row: Int, _ column: Int) -> Int { Int(PQgetlength(result, Int32(row), Int32(column))) }

    /// An `int2`, `int4` or `int8` (and `bool` as 0 or 1).
    public func int64(_ row: Int, _ column: Int) -> Int64 {
        let length = byteCount(row, column)
        guard let base = PQgetvalue(result, Int32(row), Int32(column)) else { return 0 }
        var value: Int64 = 0
        for index in 0..<length { value = value << 8 | Int64(UInt8(bitPattern: base[index])) }
        // Sign-extend the narrower integer types.
        if length > 0 && length < 8 && UInt8(bitPattern: base[0]) >= 0x80 { value -= Int64(1) << (8 * length) }
        return value
    }

    public func bytes(_ row: Int, _ column: Int) -> [UInt8] {
        var out = [UInt8]()
        append(row, column, to: &out)
        return out
    }

    public func text(_ row: Int, _ column: Int) -> String { String(decoding: bytes(row, column), as: UTF8.self) }

    public func optionalBytes(_ row: Int, _ column: Int) -> [UInt8]? { isNull(row, column) ? nil : bytes(row, column) }
    public func optionalText(_ row: Int, _ column: Int) -> String? { isNull(row, column) ? nil : text(row, column) }
    public func optionalInt64(_ row: Int, _ column: Int) -> Int64? { isNull(row, column) ? nil : int64(row, column) }

    /// Appends the value's bytes straight from libpq's memory.
    public func append(_ row: Int, _ column: Int, to out: inout [UInt8]) {
        let length = byteCount(row, column)
        guard length > 0, let base = PQgetvalue(result, Int32(row), Int32(column)) else { return }
        UnsafeRawPointer(base).withMemoryRebound(to: UInt8.self, capacity: length) { out.append(contentsOf: UnsafeBufferPointer(start: $0, count: length)) }
    }
}

/// A failed libpq call: the SQLSTATE and the server's primary message, which names tables and
/// constraints but never a bound value.
public struct PostgresError: Error, CustomStringConvertible, Equatable {
    public let sqlState: String?
    public let message: String
    public let context: String
    /// The connection is gone (server restarted, network cut): the pool drops it.
    public var connectionLost = false

    public init(sqlState: String?, message: String, context: String, connectionLost: Bool = false) {
        self.sqlState = sqlState
        self.message = message
        self.context = context
        self.connectionLost = connectionLost
    }

    /// A serialization failure or deadlock: the transaction may simply be run again.
    public var isRetryable: Bool { sqlState == "40001" || sqlState == "40P01" }
    public var isUniqueViolation: Bool { sqlState == "23505" }

    public var description: String {
        "PostgreSQL failed while \(context): \(message)" + (sqlState.map { " (SQLSTATE \($0))." } ?? ".")
    }
}
