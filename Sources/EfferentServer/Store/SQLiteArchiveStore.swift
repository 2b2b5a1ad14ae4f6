import EfferentSQLite
import EfferentSystem
import EfferentCore
import Foundation

/// The embedded store: one SQLite file in WAL mode (https://sqlite.org/wal.html).
///
/// One writer connection behind a lock (SQLite has one writer anyway) and a few reader connections,
/// each behind its own lock, so reads run beside a write. `synchronous=NORMAL` in WAL mode keeps
/// every committed transaction across a crash of the process; a power loss may lose the last
/// commits but never corrupts the file (https://sqlite.org/pragma.html#pragma_synchronous).
public final class SQLiteArchiveStore: ArchiveStore {
    public static let fileName = "archive.sqlite"

    private let writer: ConnectionSlot
    private let readers: ConnectionPool<SQLiteConnection>
    private let buckets = BucketCache()
    public let path: String
    /// Files of the store that others could read when it opened, now 0600 (say so in the log).
    public let tightened: [String]
    /// One SQLite archive is served by one process, so its request counts live in memory.
    public let requestCounter: any RequestCounter = MemoryRequestCounter()

    /// Opens (creating if needed) the archive in `directory`, applying pending migrations.
    public init(directory: String, readers readerCount: Int = 16) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        path = (directory as NSString).appendingPathComponent(Self.fileName)
        let writerConnection = try Self.open(path)
        tightened = try FileDurability.restrictToOwner([path, path + "-wal", path + "-shm"])
        try SQLiteSchema.migrate(writerConnection, now: Int64(Date().timeIntervalSince1970 * 1000))
        writer = ConnectionSlot(writerConnection)
        let file = path
        self.readers = ConnectionPool(capacity: max(1, readerCount)) {
            let connection = try Self.open(file)
            try connection.execute("PRAGMA query_only=ON")
            return connection
        }
    }

    private static func open(_ path: String) throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: path)
        // secure_delete: a deleted link file or replaced day is overwritten in the file, not left in
        // a free page (decision A.15: a link's files leave the folder when it ends).
        try connection.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; PRAGMA secure_delete=ON;")
        return connection
    }

    func write<T: Sendable>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try writer.use { db in try db.write { try body(db) } }
    }

    func read<T: Sendable>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try readers.use { db in try db.read { try body(db) } }
    }

    /// The writer connection outside any transaction (a checkpoint cannot run inside one).
    func onWriter<T: Sendable>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try writer.use(body)
    }


    /// Whether `directory` holds an archive store (operator commands other than `serve` and
    /// `invite` refuse to create one where a forgotten `--data` points).
    public static func exists(in directory: String) -> Bool {
        FileManager.default.fileExists(atPath: (directory as NSString).appendingPathComponent(fileName))
    }

    // MARK: Buckets

    public func bucket(_ id: BucketID) throws -> BucketRecord? {
        let (cached, generation) = buckets.lookup(id)
        if let cached { return cached }
        let record = try read { db in try Self.bucket(id, db) }
        buckets.fill(id, record, generation: generation)
        return record
    }

    /// A write transaction that changes bucket `id`: its cached record is dropped once committed
    /// (and also when the write fails, since a failure may follow a partial change in memory).
    func write<T: Sendable>(changing id: BucketID, _ body: (SQLiteConnection) throws -> T) throws -> T {
        defer { buckets.drop(id) }
        return try write(body)
    }

    static func bucket(_ id: BucketID, _ db: SQLiteConnection) throws -> BucketRecord? {
        try db.statement("SELECT writer, reader, editor, taken FROM bucket WHERE id = ?").first([.text(id.rawValue)]) { row in
            BucketRecord(id: id, writer: try Ed25519PublicKey(rawRepresentation: row.blob(0)),
                         reader: try row.optionalBlob(1).map { try Ed25519PublicKey(rawRepresentation: $0) },
                         editor: try row.optionalBlob(2).map { try Ed25519PublicKey(rawRepresentation: $0) },
                         taken: row.int64(3))
        }
    }

    public func claim(_ id: BucketID, writer key: Ed25519PublicKey, invite: InviteCode?, now: Date) throws -> ClaimResult {
        let ms = Self.milliseconds(now)
        return try write(changing: id) { db in
            if let existing = try Self.bucket(id, db) {
                return existing.writer == key ? .alreadyYours : .anotherWriter
            }
            if let invite {
                let found = try db.statement("SELECT expires, used FROM invite WHERE hash = ?").first([.blob(invite.hash)]) {
                    ($0.int64(0), $0.isNull(1) ? nil : $0.int64(1))
                }
                guard let (expires, used) = found else { return .inviteUnknown }
                if used != nil { return .inviteUsed }
                if expires <= ms { return .inviteExpired }
                try db.statement("UPDATE invite SET used = ? WHERE hash = ?").run([.integer(ms), .blob(invite.hash)])
            }
            try db.statement("INSERT INTO bucket (id, writer, created) VALUES (?, ?, ?)")
                .run([.text(id.rawValue), .blob(key.rawRepresentation), .integer(ms)])
            return .created
        }
    }

    public func register(_ role: RegisteredRole, key: Ed25519PublicKey, bucket id: BucketID, writer: Ed25519PublicKey) throws -> RegisterResult {
        try write(changing: id) { db in
            guard let bucket = try Self.bucket(id, db) else { return .notClaimed }
            guard bucket.writer == writer else { return .notOwner }
            let current = role == .reader ? bucket.reader : bucket.editor
            if current == key { return .unchanged }
            let sql = role == .reader ? "UPDATE bucket SET reader = ? WHERE id = ?" : "UPDATE bucket SET editor = ? WHERE id = ?"
            try db.statement(sql).run([.blob(key.rawRepresentation), .text(id.rawValue)])
            return .registered
        }
    }

    /// Checks both tallies and counts `bytes` against them, inside the caller's transaction.
    /// `nil` when counted; otherwise which tally is full.
    static func take(_ bytes: Int, bucket: BucketRecord, quota: Quota, _ db: SQLiteConnection) throws -> TallyFull? {
        let amount = Int64(bytes)
        if bucket.taken + amount > quota.bucketBytes { return .bucket }
        let service = try db.statement("SELECT bytes FROM tally WHERE name = 'service'").first { $0.int64(0) } ?? 0
        if service + amount > quota.serviceBytes { return .service }
        try db.statement("UPDATE bucket SET taken = taken + ? WHERE id = ?").run([.integer(amount), .text(bucket.id.rawValue)])
        try db.statement("UPDATE tally SET bytes = bytes + ? WHERE name = 'service'").run([.integer(amount)])
        return nil
    }

    enum TallyFull { case bucket, service }

    // MARK: Days

    public func storeDays(_ id: BucketID, writer key: Ed25519PublicKey, days: [Frame.Day], requestBytes: Int,
                          quota: Quota, now: Date) throws -> StoreDaysResult {
        let ms = Self.milliseconds(now)
        return try write(changing: id) { db in
            guard let bucket = try Self.bucket(id, db) else { return .notClaimed }
            guard bucket.writer == key else { return .anotherWriter }
            switch try Self.take(requestBytes, bucket: bucket, quota: quota, db) {
            case .bucket: return .bucketFull
            case .service: return .serviceFull
            case nil: break
            }
            let previous = try db.statement("SELECT uploaded FROM day WHERE bucket = ? AND day = ?")
            let upsert = try db.statement("""
                INSERT INTO day (bucket, day, bytes, uploaded, sealed) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (bucket, day) DO UPDATE SET bytes = excluded.bytes, uploaded = excluded.uploaded, sealed = excluded.sealed
                """)
            for day in days {
                // A re-upload always gets a later time, so a mirror comparing times sees the change
                // even within one millisecond.
                let before = try previous.first([.text(id.rawValue), .text(day.day.description)]) { $0.int64(0) }
                let uploaded = max(ms, (before ?? 0) + 1)
                try upsert.run([.text(id.rawValue), .text(day.day.description), .integer(Int64(day.sealed.count)),
                                .integer(uploaded), .blob(Array(day.sealed))])
            }
            return .stored(days.map(\.day))
        }
    }

    public func listDays(_ id: BucketID, after: CalendarDay?, through: CalendarDay?, limit: Int) throws -> [DayListing] {
        try read { db in
            try db.statement("""
                SELECT day, bytes, uploaded FROM day WHERE bucket = ? AND day > ? AND day <= ? ORDER BY day LIMIT ?
                """).rows([.text(id.rawValue), .text(after?.description ?? ""), .text(through?.description ?? "9999-99-99"),
                           .integer(Int64(limit))]) { row in
                DayListing(day: try Self.day(row.text(0)), bytes: Int(row.int64(1)), uploaded: row.int64(2))
            }
        }
    }

    public func day(_ id: BucketID, _ day: CalendarDay) throws -> StoredDay? {
        try read { db in
            try db.statement("SELECT sealed, uploaded FROM day WHERE bucket = ? AND day = ?")
                .first([.text(id.rawValue), .text(day.description)]) { StoredDay(day: day, sealed: $0.blob(0), uploaded: $0.int64(1)) }
        }
    }

    public func range(_ id: BucketID, after: CalendarDay?, through: CalendarDay, maxDays: Int, maxBytes: Int) throws -> RangeResult {
        try read { db in
            // One pass in day order: each row's size is read before its blob, so the cut at
            // `maxBytes` is made without reading a blob that will not be sent.
            let statement = try db.statement("""
                SELECT day, bytes, uploaded, sealed FROM day WHERE bucket = ? AND day > ? AND day <= ? ORDER BY day LIMIT ?
                """)
            try statement.bind([.text(id.rawValue), .text(after?.description ?? ""), .text(through.description),
                                .integer(Int64(maxDays + 1))])
            // The frame is written straight from SQLite's row memory: day, length, blob (§5.1).
            var frame = [UInt8]()
            var count = 0
            var blobBytes = 0
            var lastOffset = 0
            var more = false
            while try statement.step() {
                let bytes = statement.byteCount(3)
                if count == maxDays || (count > 0 && blobBytes + bytes > maxBytes) {
                    more = true
                    break
                }
                guard statement.byteCount(0) == Frame.dayBytes else { throw StoreError.cannotOpen("a stored day is not a date") }
                if count == 0 { frame.reserveCapacity(min(maxBytes, bytes * maxDays) + maxDays * 14) }
                lastOffset = frame.count
                statement.appendText(0, to: &frame)
                let n = UInt32(bytes)
                frame.append(UInt8(n >> 24))
                frame.append(UInt8(n >> 16 & 0xFF))
                frame.append(UInt8(n >> 8 & 0xFF))
                frame.append(UInt8(n & 0xFF))
                statement.appendBlob(3, to: &frame)
                count += 1
                blobBytes += bytes
            }
            let lastDay = count == 0 ? nil : CalendarDay(ascii: frame[lastOffset..<(lastOffset + Frame.dayBytes)])
            return RangeResult(frame: frame, count: count, lastDay: lastDay, more: more)
        }
    }

    public func stats(_ id: BucketID) throws -> BucketStats {
        try read { db in
            let claimed = try Self.bucket(id, db) != nil
            let row = try db.statement("SELECT count(*), coalesce(sum(bytes), 0), min(day), max(day) FROM day WHERE bucket = ?")
                .first([.text(id.rawValue)]) { ($0.int64(0), $0.int64(1), $0.optionalText(2), $0.optionalText(3)) }
            let (count, bytes, first, last) = row ?? (0, 0, nil, nil)
            return BucketStats(exists: claimed || count > 0, days: Int(count), bytes: bytes,
                               firstDay: first.flatMap { CalendarDay($0) }, lastDay: last.flatMap { CalendarDay($0) })
        }
    }

    // MARK: Edits

    public func enqueueEdit(_ id: BucketID, edit: IncomingEdit, quota: Quota, now: Date) throws -> EnqueueResult {
        let ms = Self.milliseconds(now)
        return try write(changing: id) { db in
            guard let bucket = try Self.bucket(id, db), let editor = bucket.editor else { return .noEditor }
            guard editor == edit.editor else { return .notTheEditor }
            let pending = Int(try db.statement("SELECT count(*) FROM edit WHERE bucket = ? AND answered IS NULL")
                .first([.text(id.rawValue)]) { $0.int64(0) } ?? 0)
            guard pending < ProtocolLimits.maxPendingEdits else { return .queueFull(pending: pending) }
            switch try Self.take(edit.sealed.count, bucket: bucket, quota: quota, db) {
            case .bucket: return .bucketFull
            case .service: return .serviceFull
            case nil: break
            }
            // Names order by arrival: never earlier than the newest name already queued.
            let newest = try db.statement("SELECT max(name) FROM edit WHERE bucket = ?").first([.text(id.rawValue)]) { $0.optionalText(0) }
            let floor = newest.flatMap { $0 }.flatMap { try? EditName($0) }.map { $0.milliseconds + 1 } ?? 0
            let name = EditName(milliseconds: max(ms, floor))
            try db.statement("""
                INSERT INTO edit (bucket, name, bytes, at, editor, signature, timestamp, sealed) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """).run([.text(id.rawValue), .text(name.rawValue), .integer(Int64(edit.sealed.count)), .integer(ms),
                          .blob(edit.editor.rawRepresentation), .blob(edit.signature), .integer(edit.timestamp), .blob(edit.sealed)])
            return .queued(name: name, at: ms)
        }
    }

    public func listEdits(_ id: BucketID, after: EditName?, limit: Int, includeAnswered: Bool) throws -> [EditListing] {
        try read { db in
            let sql = includeAnswered
                ? "SELECT name, bytes, at, applied, failed FROM edit WHERE bucket = ? AND name > ? ORDER BY name LIMIT ?"
                : "SELECT name, bytes, at, applied, failed FROM edit WHERE bucket = ? AND name > ? AND answered IS NULL ORDER BY name LIMIT ?"
            return try db.statement(sql).rows([.text(id.rawValue), .text(after?.rawValue ?? ""), .integer(Int64(limit))]) { row in
                EditListing(name: try EditName(row.text(0)), bytes: Int(row.int64(1)), at: row.int64(2),
                            applied: row.isNull(3) ? nil : Int(row.int64(3)), failed: row.isNull(4) ? nil : Int(row.int64(4)))
            }
        }
    }

    public func edit(_ id: BucketID, name: EditName) throws -> EditLookup {
        try read { db in
            let found = try db.statement("SELECT sealed, editor, signature, timestamp, at, answered FROM edit WHERE bucket = ? AND name = ?")
                .first([.text(id.rawValue), .text(name.rawValue)]) { row -> EditLookup in
                    guard row.isNull(5), let sealed = row.optionalBlob(0) else { return .answered }
                    return .pending(sealed: sealed, editor: try Ed25519PublicKey(rawRepresentation: row.blob(1)),
                                    signature: row.blob(2), timestamp: row.int64(3), at: row.int64(4))
                }
            return found ?? .unknown
        }
    }

    public func answerEdit(_ id: BucketID, name: EditName, outcome: EditOutcome, outcomeBytes: [UInt8], now: Date) throws -> AnswerResult {
        let ms = Self.milliseconds(now)
        return try write { db in
            try db.statement("""
                UPDATE edit SET answered = ?, applied = ?, failed = ?, outcome = ?, sealed = NULL WHERE bucket = ? AND name = ?
                """).run([.integer(ms), .integer(Int64(outcome.applied)), .integer(Int64(outcome.failed.count)),
                          .blob(outcomeBytes), .text(id.rawValue), .text(name.rawValue)])
            return db.changes == 1 ? .recorded : .unknown
        }
    }

    public func outcome(_ id: BucketID, name: EditName) throws -> StoredOutcome? {
        try read { db in
            try db.statement("SELECT outcome, bytes, answered FROM edit WHERE bucket = ? AND name = ? AND answered IS NOT NULL")
                .first([.text(id.rawValue), .text(name.rawValue)]) { row in
                    StoredOutcome(outcome: try EditOutcome(decoding: row.blob(0)), bytes: Int(row.int64(1)), at: row.int64(2))
                }
        }
    }

    // MARK: Operator

    public func addInvite(hash: [UInt8], expires: Date, now: Date) throws {
        try write { db in
            try db.statement("INSERT INTO invite (hash, created, expires) VALUES (?, ?, ?)")
                .run([.blob(hash), .integer(Self.milliseconds(now)), .integer(Self.milliseconds(expires))])
        }
    }

    public func serviceStats() throws -> ServiceStats {
        try read { db in try Self.serviceStats(db) }
    }

    static func serviceStats(_ db: SQLiteConnection) throws -> ServiceStats {
        let buckets = try db.statement("SELECT count(*) FROM bucket").first { $0.int64(0) } ?? 0
        let (days, bytes) = try db.statement("SELECT count(*), coalesce(sum(bytes), 0) FROM day").first { ($0.int64(0), $0.int64(1)) } ?? (0, 0)
        let pending = try db.statement("SELECT count(*) FROM edit WHERE answered IS NULL").first { $0.int64(0) } ?? 0
        let taken = try db.statement("SELECT bytes FROM tally WHERE name = 'service'").first { $0.int64(0) } ?? 0
        return ServiceStats(buckets: Int(buckets), days: Int(days), storedBytes: bytes, pendingEdits: Int(pending), taken: taken)
    }

    public func archives() throws -> [ArchiveSummary] {
        try read { db in
            try db.statement("""
                SELECT b.id, count(d.day), coalesce(sum(d.bytes), 0), min(d.day), max(d.day), max(d.uploaded),
                       (SELECT count(*) FROM edit e WHERE e.bucket = b.id AND e.answered IS NULL)
                FROM bucket b LEFT JOIN day d ON d.bucket = b.id GROUP BY b.id ORDER BY b.id
                """).rows { row in
                ArchiveSummary(id: try BucketID(row.text(0)), days: Int(row.int64(1)), bytes: row.int64(2),
                               firstDay: try row.optionalText(3).map(Self.day), lastDay: try row.optionalText(4).map(Self.day),
                               lastUpload: row.isNull(5) ? nil : row.int64(5), pendingEdits: Int(row.int64(6)))
            }
        }
    }

    public func removeBucket(_ id: BucketID) throws -> Bool {
        try write(changing: id) { db in
            try db.statement("DELETE FROM day WHERE bucket = ?").run([.text(id.rawValue)])
            try db.statement("DELETE FROM edit WHERE bucket = ?").run([.text(id.rawValue)])
            for table in ["link_file", "link_access", "link_ticket"] {
                try db.statement("DELETE FROM \(table) WHERE link IN (SELECT id FROM link WHERE bucket = ?)").run([.text(id.rawValue)])
            }
            try db.statement("DELETE FROM link WHERE bucket = ?").run([.text(id.rawValue)])
            try db.statement("DELETE FROM kit WHERE bucket = ?").run([.text(id.rawValue)])
            try db.statement("DELETE FROM bucket WHERE id = ?").run([.text(id.rawValue)])
            return db.changes == 1
        }
    }
}

/// One SQLite connection and the lock that gives it one owner at a time.
final class ConnectionSlot: Sendable {
    private let connection: Mutex<SQLiteConnection>

    init(_ connection: sending SQLiteConnection) { self.connection = Mutex(connection) }

    func use<T: Sendable>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try connection.withLock { db in try body(db) }
    }
}
