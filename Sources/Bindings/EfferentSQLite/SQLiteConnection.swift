internal import CSQLite
import Foundation

/// One SQLite connection (https://sqlite.org/c3ref/sqlite3.html), owning its handle and its
/// prepared statements; `deinit` finalizes them and closes the handle.
///
/// A connection is not thread-safe: give it one owner at a time (a `Mutex`, a pool slot).
public final class SQLiteConnection {
    private let handle: OpaquePointer
    /// Prepared statements by their SQL, each with when it was last handed out: at most
    /// `cachedStatements` are kept, the least recently used dropped first (SQL built with values
    /// in its text, such as a user's `efferent sql`, would otherwise be kept for the connection's
    /// life). A dropped statement a caller still holds lives on until it lets go.
    private var statements: [String: CachedStatement] = [:]
    private var handedOut: UInt64 = 0
    public static let cachedStatements = 256
    private var transactionDepth = 0
    /// The progress handler's deadline (`limitUntrusted`), freed after the handle closes.
    private var deadline: UnsafeMutablePointer<efferent_sqlite_deadline>?
    /// The VFS that caps this connection's temporary files (`temporaryFileLimit`), freed after
    /// the handle closes.
    private var cappedVFS: UnsafeMutablePointer<efferent_capped_vfs>?

    /// SQLite's process-wide settings, made once before the first connection opens (SQLite takes
    /// them only before it initializes; a process that opened a database some other way keeps
    /// SQLite's defaults, which are slower, not wrong).
    private static let configured: Bool = efferent_sqlite_configure() == SQLITE_OK

    /// Opens (or creates) the database at `path`. A failed open still closes the half-open handle.
    /// With `temporaryFileLimit`, the temporary files its statements make (sorts that spill,
    /// transient tables, the temp database) may hold that many bytes together; a write past it
    /// fails the statement with `isFull`.
    public init(path: String, readOnly: Bool = false, create: Bool = true, temporaryFileLimit: Int64? = nil) throws(SQLiteError) {
        _ = Self.configured
        var capped: UnsafeMutablePointer<efferent_capped_vfs>?
        if let temporaryFileLimit {
            capped = efferent_sqlite_capped_vfs_new(temporaryFileLimit)
            guard capped != nil else {
                throw SQLiteError(code: SQLITE_NOMEM, message: "SQLite has no default file system to cap, or no memory", context: "opening the database")
            }
        }
        var raw: OpaquePointer?
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        flags |= readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        if create && !readOnly { flags |= SQLITE_OPEN_CREATE }
        let rc = sqlite3_open_v2(path, &raw, flags, capped.map { efferent_sqlite_capped_vfs_name($0) })
        guard rc == SQLITE_OK, let raw else {
            let message = raw.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(raw)
            capped.map { efferent_sqlite_capped_vfs_free($0) }
            throw SQLiteError(code: rc, message: message, context: "opening the database")
        }
        handle = raw
        cappedVFS = capped
        sqlite3_busy_timeout(handle, 10_000)
    }

    deinit {
        statements.removeAll()
        sqlite3_close_v2(handle)
        deadline?.deallocate()
        // After the handle: its temporary files are closed, so the VFS is no longer in use.
        cappedVFS.map { efferent_sqlite_capped_vfs_free($0) }
    }

    /// How long a statement waits for another connection's lock before it fails busy
    /// (https://sqlite.org/c3ref/busy_timeout.html); 10 s from `init`.
    public func setBusyTimeout(milliseconds: Int32) {
        sqlite3_busy_timeout(handle, milliseconds)
    }

    /// Runs one or more statements that return no rows (schema, pragmas).
    public func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        if rc != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw SQLiteError(code: rc, message: text, context: "running a statement")
        }
    }

    /// A prepared statement for `sql`, cached for the connection's life and reset before reuse.
    ///
    /// `sql` must hold exactly one statement: SQLite would prepare the first and silently ignore
    /// the rest (https://sqlite.org/c3ref/prepare.html, `pzTail`), so anything but whitespace and
    /// comments after it is refused, as GRDB's `makeStatement` does. `execute(_:)` runs several.
    public func statement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        handedOut &+= 1
        if let cached = statements[sql] {
            cached.used = handedOut
            cached.statement.reset()
            return cached.statement
        }
        var raw: OpaquePointer?
        var rc: Int32 = SQLITE_OK
        var trailing = false
        sql.withCString { text in
            var tail: UnsafePointer<CChar>?
            rc = sqlite3_prepare_v3(handle, text, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, &tail)
            guard rc == SQLITE_OK, let tail, tail.pointee != 0 else { return }
            // What follows the first statement: whitespace and comments prepare to no statement.
            var next: OpaquePointer?
            let nextRC = sqlite3_prepare_v2(handle, tail, -1, &next, nil)
            trailing = nextRC != SQLITE_OK || next != nil
            sqlite3_finalize(next)
        }
        if trailing {
            sqlite3_finalize(raw)
            throw SQLiteError(code: SQLITE_MISUSE, message: "the SQL holds more than one statement; prepare them one at a time",
                              context: "preparing a statement")
        }
        guard rc == SQLITE_OK, let raw else {
            if rc == SQLITE_OK { throw SQLiteError(code: SQLITE_MISUSE, message: "the SQL holds no statement", context: "preparing a statement") }
            throw error(rc, "preparing a statement")
        }
        let statement = SQLiteStatement(raw, connection: self)
        if statements.count >= Self.cachedStatements {
            // A quarter goes at once, so the sort is paid once per 64 new statements.
            let oldest = statements.sorted { $0.value.used < $1.value.used }.prefix(Self.cachedStatements / 4)
            for (text, _) in oldest { statements[text] = nil }
        }
        statements[sql] = CachedStatement(statement, used: handedOut)
        return statement
    }

    /// Statements kept prepared now (at most `cachedStatements`).
    public var cachedStatementCount: Int { statements.count }

    /// Runs `body` in a transaction: commits when it returns, rolls back when it throws and
    /// rethrows its error. `BEGIN IMMEDIATE` takes the write lock up front, so two writers never
    /// deadlock on an upgrade. A nested call is a savepoint within the outer transaction: its
    /// changes are taken back when its body throws, whatever the outer body then does.
    public func write<T>(_ body: () throws -> T) throws -> T {
        try transaction("BEGIN IMMEDIATE", body)
    }

    /// Runs `body` in a read transaction: one consistent snapshot for every statement in it.
    public func read<T>(_ body: () throws -> T) throws -> T {
        try transaction("BEGIN DEFERRED", body)
    }

    private func transaction<T>(_ begin: String, _ body: () throws -> T) throws -> T {
        if transactionDepth > 0 {
            // A nested transaction is a savepoint: when its body throws, what it did is taken
            // back, and the outer transaction (which may catch the error and go on) keeps only
            // its own changes.
            let savepoint = "s\(transactionDepth)"
            try statement("SAVEPOINT \(savepoint)").run()
            transactionDepth += 1
            defer { transactionDepth -= 1 }
            do {
                let result = try body()
                try statement("RELEASE \(savepoint)").run()
                return result
            } catch {
                try? statement("ROLLBACK TO \(savepoint)").run()
                try? statement("RELEASE \(savepoint)").run()
                throw error
            }
        }
        // BEGIN, COMMIT and ROLLBACK are prepared once and kept, like any statement: every read
        // and write runs them, and `sqlite3_exec` would parse them again each time.
        try statement(begin).run()
        transactionDepth = 1
        defer { transactionDepth = 0 }
        do {
            let result = try body()
            try statement("COMMIT").run()
            return result
        } catch {
            try? statement("ROLLBACK").run()
            throw error
        }
    }

    /// From now on, statements that do anything but read are refused when prepared (an authorizer,
    /// https://sqlite.org/c3ref/set_authorizer.html): writes, schema changes, transactions, ATTACH,
    /// DETACH and pragmas that set something fail with `SQLITE_AUTH` (`isNotAuthorized`). Open the
    /// connection read-only as well; this is the second lock on the same door.
    public func allowOnlyReading() throws(SQLiteError) {
        let rc = efferent_sqlite_allow_only_reading(handle)
        guard rc == SQLITE_OK else { throw error(rc, "restricting the connection to reading") }
    }

    /// Bounds what an untrusted statement may take (`efferent sql`): strings and blobs of at most
    /// `maxLength` bytes (https://sqlite.org/c3ref/limit.html), SQL text of at most 1 MiB, and
    /// `seconds` of running from now (a progress handler); past either the statement fails
    /// (`isTooBig`, `isInterrupted`). Sorts and temporary tables spill to files past the page
    /// cache, which this also caps (`cacheMebibytes`): open the connection with a
    /// `temporaryFileLimit` to bound those files too.
    public func limitUntrusted(maxLength: Int32, seconds: Double, cacheMebibytes: Int = 64) throws(SQLiteError) {
        try execute("PRAGMA cache_size = -\(cacheMebibytes * 1024)")
        try execute("PRAGMA temp_store = FILE")
        if deadline == nil {
            deadline = UnsafeMutablePointer<efferent_sqlite_deadline>.allocate(capacity: 1)
        }
        efferent_sqlite_limit_untrusted(handle, maxLength, seconds, deadline!)
    }

    /// Makes `printf` and `format` fail with `isTooBig` where SQLite's own would answer NULL: when
    /// their text would pass the connection's length limit (`printf('%.*c', 1e9, 'x')`). Call it
    /// after `limitUntrusted`, whose length limit the check takes.
    public func failOversizedPrintf() throws(SQLiteError) {
        let rc = efferent_sqlite_strict_printf_install(handle, sqlite3_limit(handle, SQLITE_LIMIT_LENGTH, -1))
        guard rc == SQLITE_OK else { throw error(rc, "installing a printf that fails past the length limit") }
    }

    /// Bounds the memory SQLite may hold in this whole process to `bytes`
    /// (https://sqlite.org/c3ref/hard_heap_limit64.html): past it an allocation fails and the
    /// statement with it (`isOutOfMemory`). SQLite checks the limit only while it counts its memory,
    /// which this process turns off for speed, so it must run before the process opens its first
    /// connection; returns false, bounding nothing, when that moment has passed.
    @discardableResult
    public static func limitProcessMemory(bytes: Int64) -> Bool {
        _ = configured
        guard efferent_sqlite_count_memory() == SQLITE_OK else { return false }
        sqlite3_hard_heap_limit64(bytes)
        return true
    }

    /// Bytes this connection's temporary files hold now (`temporaryFileLimit`); 0 without a cap.
    public var temporaryBytes: Int64 { cappedVFS.map { efferent_sqlite_capped_vfs_bytes($0) } ?? 0 }

    /// Whether SQLite counts its memory in this process, so that `limitProcessMemory` holds.
    public static var memoryIsCounted: Bool { sqlite3_memory_used() > 0 }

    /// Whether the deadline `limitUntrusted` set has passed and stopped a statement.
    public var deadlineExpired: Bool { deadline.map { $0.pointee.expired != 0 } ?? false }

    /// Rows changed by the last statement.
    public var changes: Int { Int(sqlite3_changes(handle)) }
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// The file of the main database's write-ahead log, as SQLite names it
    /// (https://sqlite.org/c3ref/filename_database.html): what to flush to make commits durable
    /// without knowing SQLite's naming. Nil for an in-memory or temporary database.
    public var writeAheadLogPath: String? {
        guard let database = sqlite3_db_filename(handle, "main"), database.pointee != 0,
              let log = sqlite3_filename_wal(database) else { return nil }
        return String(cString: log)
    }

    func error(_ code: Int32, _ context: String) -> SQLiteError {
        SQLiteError(code: code, message: String(cString: sqlite3_errmsg(handle)), context: context)
    }

    var rawHandle: OpaquePointer { handle }
}

/// A failed SQLite call: the result code and SQLite's own message, which names tables and
/// constraints but never a bound value.
public struct SQLiteError: Error, CustomStringConvertible, Equatable {
    public let code: Int32
    public let message: String
    public let context: String

    public init(code: Int32, message: String, context: String) {
        self.code = code
        self.message = message
        self.context = context
    }

    /// The primary result code (the low byte of an extended code).
    public var primaryCode: Int32 { code & 0xFF }
    public var isBusy: Bool { primaryCode == SQLITE_BUSY || primaryCode == SQLITE_LOCKED }
    public var isConstraint: Bool { primaryCode == SQLITE_CONSTRAINT }
    public var isFull: Bool { primaryCode == SQLITE_FULL }
    /// A statement `allowOnlyReading()` refused.
    public var isNotAuthorized: Bool { primaryCode == SQLITE_AUTH }
    /// A statement stopped by its deadline (`limitUntrusted`) or by `sqlite3_interrupt`.
    public var isInterrupted: Bool { primaryCode == SQLITE_INTERRUPT }
    /// A string, blob or row over the connection's length limit.
    public var isTooBig: Bool { primaryCode == SQLITE_TOOBIG }
    /// An allocation refused, as past `limitProcessMemory`'s bound.
    public var isOutOfMemory: Bool { primaryCode == SQLITE_NOMEM }

    public var description: String { "SQLite failed while \(context): \(message) (code \(code))." }
}

/// A statement in a connection's cache, and when it was last handed out.
private final class CachedStatement {
    let statement: SQLiteStatement
    var used: UInt64
    init(_ statement: SQLiteStatement, used: UInt64) {
        self.statement = statement
        self.used = used
    }
}
