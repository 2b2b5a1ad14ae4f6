import EfferentSQLite
import EfferentPostgres
import EfferentSystem
import EfferentCore
import Foundation

/// The store for operators who run several service processes, on several machines, against one
/// PostgreSQL database (https://www.postgresql.org/docs/current/).
///
/// SQLite's single writer gave the store's promises for free; here each one is kept across
/// processes by the database itself:
/// - a write that changes a bucket first locks the bucket's row (`SELECT … FOR UPDATE`), so its
///   tally check, its edit names and its uploads' times follow one order;
/// - the service tally is raised by one conditional `UPDATE`, last in its transaction, so no
///   upload is counted twice or lost and the row is locked only for the commit;
/// - a claim inserts with `ON CONFLICT DO NOTHING`, so of two claims exactly one creates the
///   bucket, and an invite is locked before it is used;
/// - an outcome and the removal of its sealed edit are one statement;
/// - rate-limit counts live in a table, one upsert per request.
///
/// Transactions run at READ COMMITTED with those row locks; one that meets a deadlock or a
/// serialization failure is run again. No bucket is cached: another process may change it.
public final class PostgresArchiveStore: ArchiveStore {
    private let pool: ConnectionPool<PostgresConnection>
    /// The database the store talks to, as `host:port/database` (never a user or password).
    public let destination: String
    public let requestCounter: any RequestCounter

    /// Connects to `url`, applies pending migrations, and keeps up to `connections` connections.
    public init(url: String, connections: Int = 10) throws {
        let first = try Self.connect(url)
        try Self.translating { try PostgresSchema.migrate(first, now: Self.milliseconds(Date())) }
        destination = first.destination
        pool = ConnectionPool(capacity: max(1, connections), open: { try Self.connect(url) },
                              isReusable: { $0.isHealthy }, isAlive: { $0.isAlive })
        requestCounter = PostgresRequestCounter(pool: pool)
    }

    private static func connect(_ url: String) throws -> PostgresConnection {
        do {
            return try PostgresConnection(url: url)
        } catch {
            throw StoreError.unavailable(error.message)
        }
    }

    /// One connection for `body`; a lost connection becomes `StoreError.unavailable`.
    func use<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try Self.use(pool, body)
    }

    static func use<T>(_ pool: ConnectionPool<PostgresConnection>, _ body: (PostgresConnection) throws -> T) throws -> T {
        try translating { try pool.use(body) }
    }

    /// `body` in one transaction, run again (up to 5 times) after a deadlock or serialization
    /// failure, which roll the whole transaction back.
    func write<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        var attempt = 0
        while true {
            do {
                return try use { db in try db.transaction { try body(db) } }
            } catch let error as PostgresError where error.isRetryable && attempt < 4 {
                attempt += 1
                Thread.sleep(forTimeInterval: Double.random(in: 0.001...(0.005 * Double(1 << attempt))))
            }
        }
    }

    static func translating<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PostgresError where error.connectionLost {
            throw StoreError.unavailable(error.message)
        }
    }

    // MARK: Buckets

    public func bucket(_ id: BucketID) throws -> BucketRecord? {
        try use { db in try Self.bucket(id, db, lock: false) }
    }

    /// The bucket's record; with `lock`, its row stays locked until the transaction ends.
    static func bucket(_ id: BucketID, _ db: PostgresConnection, lock: Bool) throws -> BucketRecord? {
        let rows = try db.query(lock ? "SELECT writer, reader, editor, taken FROM bucket WHERE id = $1::text FOR UPDATE"
                                     : "SELECT writer, reader, editor, taken FROM bucket WHERE id = $1::text", [.text(id.rawValue)])
        guard rows.count == 1 else { return nil }
        return BucketRecord(id: id, writer: try Ed25519PublicKey(rawRepresentation: rows.bytes(0, 0)),
                            reader: try rows.optionalBytes(0, 1).map { try Ed25519PublicKey(rawRepresentation: $0) },
                            editor: try rows.optionalBytes(0, 2).map { try Ed25519PublicKey(rawRepresentation: $0) },
                            taken: rows.int64(0, 3))
    }

    /// Thrown inside a transaction to roll it back and answer `result`.
    struct Refusal<Result: Sendable>: Error { let result: Result }

    func refusing<Result: Sendable>(_ body: (PostgresConnection) throws -> Result) throws -> Result {
        do {
            return try write(body)
        } catch let refusal as Refusal<Result> {
            return refusal.result
        }
    }

    public func claim(_ id: BucketID, writer key: Ed25519PublicKey, invite: InviteCode?, now: Date) throws -> ClaimResult {
        let ms = Self.milliseconds(now)
        let result: ClaimResult? = try refusing { db -> ClaimResult? in
            if let existing = try Self.bucket(id, db, lock: false) {
                return existing.writer == key ? .alreadyYours : .anotherWriter
            }
            if let invite {
                // Locked, so two claims with one code take turns and the second sees it used.
                let rows = try db.query("SELECT expires, used FROM invite WHERE hash = $1::bytea FOR UPDATE", [.bytes(invite.hash)])
                guard rows.count == 1 else { return .inviteUnknown }
                if !rows.isNull(0, 1) { return .inviteUsed }
                if rows.int64(0, 0) <= ms { return .inviteExpired }
                try db.query("UPDATE invite SET used = $1::int8 WHERE hash = $2::bytea", [.integer(ms), .bytes(invite.hash)])
            }
            let inserted = try db.query("""
                INSERT INTO bucket (id, writer, created) VALUES ($1::text, $2::bytea, $3::int8) ON CONFLICT (id) DO NOTHING
                """, [.text(id.rawValue), .bytes(key.rawRepresentation), .integer(ms)])
            // Another claim won meanwhile: roll back (the invite stays unused) and answer as the
            // bucket now stands.
            guard inserted.affected == 1 else { throw Refusal<ClaimResult?>(result: nil) }
            return .created
        }
        if let result { return result }
        guard let winner = try bucket(id) else { throw StoreError.cannotOpen("a claimed bucket vanished") }
        return winner.writer == key ? .alreadyYours : .anotherWriter
    }

    public func register(_ role: RegisteredRole, key: Ed25519PublicKey, bucket id: BucketID, writer: Ed25519PublicKey) throws -> RegisterResult {
        try write { db in
            guard let bucket = try Self.bucket(id, db, lock: true) else { return .notClaimed }
            guard bucket.writer == writer else { return .notOwner }
            let current = role == .reader ? bucket.reader : bucket.editor
            if current == key { return .unchanged }
            let sql = role == .reader ? "UPDATE bucket SET reader = $1::bytea WHERE id = $2::text"
                                      : "UPDATE bucket SET editor = $1::bytea WHERE id = $2::text"
            try db.query(sql, [.bytes(key.rawRepresentation), .text(id.rawValue)])
            return .registered
        }
    }

    /// Counts `bytes` against both tallies inside the caller's transaction, whose bucket row is
    /// locked. The service tally is raised last and only if it stays within its ceiling, so its
    /// row is locked only from here to the commit.
    static func take(_ bytes: Int, bucket: BucketRecord, quota: Quota, _ db: PostgresConnection,
                     before raise: () throws -> Void) throws -> TallyFull? {
        let amount = Int64(bytes)
        if bucket.taken + amount > quota.bucketBytes { return .bucket }
        try raise()
        try db.query("UPDATE bucket SET taken = taken + $1::int8 WHERE id = $2::text", [.integer(amount), .text(bucket.id.rawValue)])
        let raised = try db.query("UPDATE tally SET bytes = bytes + $1::int8 WHERE name = 'service' AND bytes + $1::int8 <= $2::int8",
                                  [.integer(amount), .integer(quota.serviceBytes)])
        return raised.affected == 1 ? nil : .service
    }

    enum TallyFull { case bucket, service }

    // MARK: Days

    public func storeDays(_ id: BucketID, writer key: Ed25519PublicKey, days: [Frame.Day], requestBytes: Int,
                          quota: Quota, now: Date) throws -> StoreDaysResult {
        let ms = Self.milliseconds(now)
        return try refusing { db in
            guard let bucket = try Self.bucket(id, db, lock: true) else { return .notClaimed }
            guard bucket.writer == key else { return .anotherWriter }
            let full = try Self.take(requestBytes, bucket: bucket, quota: quota, db) {
                // Every day in one statement. A re-upload always gets a later time than the one
                // it replaces, so a mirror comparing times sees the change even within one
                // millisecond or across processes whose clocks differ a little.
                try db.query("""
                    INSERT INTO day (bucket, day, bytes, uploaded, sealed)
                    SELECT $1::text, d, octet_length(s), $2::int8, s FROM unnest($3::text[], $4::bytea[]) AS u(d, s)
                    ON CONFLICT (bucket, day) DO UPDATE
                    SET bytes = excluded.bytes, uploaded = greatest(excluded.uploaded, day.uploaded + 1), sealed = excluded.sealed
                    """, [.text(id.rawValue), .integer(ms), .textArray(days.map(\.day.description)), .bytesArray(days.map(\.sealed))])
            }
            switch full {
            case .bucket: return .bucketFull
            case .service: throw Refusal<StoreDaysResult>(result: .serviceFull)
            case nil: return .stored(days.map(\.day))
            }
        }
    }

    public func listDays(_ id: BucketID, after: CalendarDay?, through: CalendarDay?, limit: Int) throws -> [DayListing] {
        try use { db in
            let rows = try db.query("""
                SELECT day, bytes, uploaded FROM day WHERE bucket = $1::text AND day > $2::text AND day <= $3::text ORDER BY day LIMIT $4::int8
                """, [.text(id.rawValue), .text(after?.description ?? ""), .text(through?.description ?? "9999-99-99"), .integer(Int64(limit))])
            return try (0..<rows.count).map { DayListing(day: try Self.day(rows.text($0, 0)), bytes: Int(rows.int64($0, 1)), uploaded: rows.int64($0, 2)) }
        }
    }

    public func day(_ id: BucketID, _ day: CalendarDay) throws -> StoredDay? {
        try use { db in
            let rows = try db.query("SELECT sealed, uploaded FROM day WHERE bucket = $1::text AND day = $2::text",
                                    [.text(id.rawValue), .text(day.description)])
            return rows.count == 1 ? StoredDay(day: day, sealed: rows.bytes(0, 0), uploaded: rows.int64(0, 1)) : nil
        }
    }

    public func range(_ id: BucketID, after: CalendarDay?, through: CalendarDay, maxDays: Int, maxBytes: Int) throws -> RangeResult {
        try use { db in
            // One statement: running counts and sizes in day order decide the cut inside the
            // database, so only the days that go out are read whole. The row after the cut, if
            // any, comes back without its blob and says that more remain (the second row always
            // comes back, so a first day larger than the cut still says so).
            let rows = try db.query("""
                SELECT day, CASE WHEN n <= $4::int8 AND (n = 1 OR total <= $5::int8) THEN sealed END FROM (
                    SELECT day, bytes, sealed, row_number() OVER w AS n, sum(bytes) OVER w AS total
                    FROM day WHERE bucket = $1::text AND day > $2::text AND day <= $3::text
                    WINDOW w AS (ORDER BY day) ORDER BY day LIMIT $4::int8 + 1
                ) AS running WHERE n <= 2 OR total - bytes <= $5::int8 ORDER BY day
                """, [.text(id.rawValue), .text(after?.description ?? ""), .text(through.description),
                      .integer(Int64(maxDays)), .integer(Int64(maxBytes))])
            var frame = [UInt8]()
            var count = 0
            var lastOffset = 0
            var more = false
            for row in 0..<rows.count {
                guard !rows.isNull(row, 1) else {
                    more = true
                    break
                }
                guard rows.byteCount(row, 0) == Frame.dayBytes else { throw StoreError.cannotOpen("a stored day is not a date") }
                if count == 0 { frame.reserveCapacity(min(maxBytes, rows.byteCount(row, 1) * maxDays) + maxDays * 14) }
                lastOffset = frame.count
                rows.append(row, 0, to: &frame)
                let n = UInt32(rows.byteCount(row, 1))
                frame.append(UInt8(n >> 24))
                frame.append(UInt8(n >> 16 & 0xFF))
                frame.append(UInt8(n >> 8 & 0xFF))
                frame.append(UInt8(n & 0xFF))
                rows.append(row, 1, to: &frame)
                count += 1
            }
            let lastDay = count == 0 ? nil : CalendarDay(ascii: frame[lastOffset..<(lastOffset + Frame.dayBytes)])
            return RangeResult(frame: frame, count: count, lastDay: lastDay, more: more)
        }
    }

    public func stats(_ id: BucketID) throws -> BucketStats {
        try use { db in
            let rows = try db.query("""
                SELECT EXISTS (SELECT 1 FROM bucket WHERE id = $1::text), count(*), coalesce(sum(bytes), 0)::int8, min(day), max(day)
                FROM day WHERE bucket = $1::text
                """, [.text(id.rawValue)])
            let count = rows.int64(0, 1)
            return BucketStats(exists: rows.int64(0, 0) == 1 || count > 0, days: Int(count), bytes: rows.int64(0, 2),
                               firstDay: rows.optionalText(0, 3).flatMap { CalendarDay($0) },
                               lastDay: rows.optionalText(0, 4).flatMap { CalendarDay($0) })
        }
    }

    // MARK: Edits

    public func enqueueEdit(_ id: BucketID, edit: IncomingEdit, quota: Quota, now: Date) throws -> EnqueueResult {
        let ms = Self.milliseconds(now)
        return try refusing { db in
            guard let bucket = try Self.bucket(id, db, lock: true), let editor = bucket.editor else { return .noEditor }
            guard editor == edit.editor else { return .notTheEditor }
            let pending = Int(try db.query("SELECT count(*) FROM edit WHERE bucket = $1::text AND answered IS NULL",
                                           [.text(id.rawValue)]).int64(0, 0))
            guard pending < ProtocolLimits.maxPendingEdits else { return .queueFull(pending: pending) }
            var name = EditName(milliseconds: ms)
            let full = try Self.take(edit.sealed.count, bucket: bucket, quota: quota, db) {
                // Names order by arrival: never earlier than the newest already queued, which the
                // bucket's lock keeps still until this transaction ends.
                let newest = try db.query("SELECT max(name) FROM edit WHERE bucket = $1::text", [.text(id.rawValue)]).optionalText(0, 0)
                let floor = newest.flatMap { try? EditName($0) }.map { $0.milliseconds + 1 } ?? 0
                name = EditName(milliseconds: max(ms, floor))
                try db.query("""
                    INSERT INTO edit (bucket, name, bytes, at, editor, signature, "timestamp", sealed)
                    VALUES ($1::text, $2::text, $3::int8, $4::int8, $5::bytea, $6::bytea, $7::int8, $8::bytea)
                    """, [.text(id.rawValue), .text(name.rawValue), .integer(Int64(edit.sealed.count)), .integer(ms),
                          .bytes(edit.editor.rawRepresentation), .bytes(edit.signature), .integer(edit.timestamp), .bytes(edit.sealed)])
            }
            switch full {
            case .bucket: return .bucketFull
            case .service: throw Refusal<EnqueueResult>(result: .serviceFull)
            case nil: return .queued(name: name, at: ms)
            }
        }
    }

    public func listEdits(_ id: BucketID, after: EditName?, limit: Int, includeAnswered: Bool) throws -> [EditListing] {
        try use { db in
            let sql = includeAnswered
                ? "SELECT name, bytes, at, applied, failed FROM edit WHERE bucket = $1::text AND name > $2::text ORDER BY name LIMIT $3::int8"
                : "SELECT name, bytes, at, applied, failed FROM edit WHERE bucket = $1::text AND name > $2::text AND answered IS NULL ORDER BY name LIMIT $3::int8"
            let rows = try db.query(sql, [.text(id.rawValue), .text(after?.rawValue ?? ""), .integer(Int64(limit))])
            return try (0..<rows.count).map { row in
                EditListing(name: try EditName(rows.text(row, 0)), bytes: Int(rows.int64(row, 1)), at: rows.int64(row, 2),
                            applied: rows.optionalInt64(row, 3).map(Int.init), failed: rows.optionalInt64(row, 4).map(Int.init))
            }
        }
    }

    public func edit(_ id: BucketID, name: EditName) throws -> EditLookup {
        try use { db in
            let rows = try db.query("""
                SELECT sealed, editor, signature, "timestamp", at, answered FROM edit WHERE bucket = $1::text AND name = $2::text
                """, [.text(id.rawValue), .text(name.rawValue)])
            guard rows.count == 1 else { return .unknown }
            guard rows.isNull(0, 5), let sealed = rows.optionalBytes(0, 0) else { return .answered }
            return .pending(sealed: sealed, editor: try Ed25519PublicKey(rawRepresentation: rows.bytes(0, 1)),
                            signature: rows.bytes(0, 2), timestamp: rows.int64(0, 3), at: rows.int64(0, 4))
        }
    }

    public func answerEdit(_ id: BucketID, name: EditName, outcome: EditOutcome, outcomeBytes: [UInt8], now: Date) throws -> AnswerResult {
        try use { db in
            // The outcome and the removal of the sealed edit are one statement: one commits only
            // with the other.
            let updated = try db.query("""
                UPDATE edit SET answered = $1::int8, applied = $2::int8, failed = $3::int8, outcome = $4::bytea, sealed = NULL
                WHERE bucket = $5::text AND name = $6::text
                """, [.integer(Self.milliseconds(now)), .integer(Int64(outcome.applied)), .integer(Int64(outcome.failed.count)),
                      .bytes(outcomeBytes), .text(id.rawValue), .text(name.rawValue)])
            return updated.affected == 1 ? .recorded : .unknown
        }
    }

    public func outcome(_ id: BucketID, name: EditName) throws -> StoredOutcome? {
        try use { db in
            let rows = try db.query("SELECT outcome, bytes, answered FROM edit WHERE bucket = $1::text AND name = $2::text AND answered IS NOT NULL",
                                    [.text(id.rawValue), .text(name.rawValue)])
            guard rows.count == 1 else { return nil }
            return StoredOutcome(outcome: try EditOutcome(decoding: rows.bytes(0, 0)), bytes: Int(rows.int64(0, 1)), at: rows.int64(0, 2))
        }
    }

    // MARK: Operator

    public func addInvite(hash: [UInt8], expires: Date, now: Date) throws {
        try use { db in
            _ = try db.query("INSERT INTO invite (hash, created, expires) VALUES ($1::bytea, $2::int8, $3::int8)",
                         [.bytes(hash), .integer(Self.milliseconds(now)), .integer(Self.milliseconds(expires))])
        }
    }

    public func serviceStats() throws -> ServiceStats {
        try use { db in try Self.serviceStats(db) }
    }

    static func serviceStats(_ db: PostgresConnection) throws -> ServiceStats {
        // One statement, so one snapshot.
        let rows = try db.query("""
            SELECT (SELECT count(*) FROM bucket), (SELECT count(*) FROM day), (SELECT coalesce(sum(bytes), 0)::int8 FROM day),
                   (SELECT count(*) FROM edit WHERE answered IS NULL), (SELECT bytes FROM tally WHERE name = 'service')
            """)
        return ServiceStats(buckets: Int(rows.int64(0, 0)), days: Int(rows.int64(0, 1)), storedBytes: rows.int64(0, 2),
                            pendingEdits: Int(rows.int64(0, 3)), taken: rows.int64(0, 4))
    }

    public func archives() throws -> [ArchiveSummary] {
        try use { db in
            let rows = try db.query("""
                SELECT b.id, count(d.day), coalesce(sum(d.bytes), 0)::int8, min(d.day), max(d.day), max(d.uploaded),
                       (SELECT count(*) FROM edit e WHERE e.bucket = b.id AND e.answered IS NULL)
                FROM bucket b LEFT JOIN day d ON d.bucket = b.id GROUP BY b.id ORDER BY b.id COLLATE "C"
                """)
            return try (0..<rows.count).map { row in
                ArchiveSummary(id: try BucketID(rows.text(row, 0)), days: Int(rows.int64(row, 1)), bytes: rows.int64(row, 2),
                               firstDay: try rows.optionalText(row, 3).map(Self.day), lastDay: try rows.optionalText(row, 4).map(Self.day),
                               lastUpload: rows.optionalInt64(row, 5), pendingEdits: Int(rows.int64(row, 6)))
            }
        }
    }

    public func removeBucket(_ id: BucketID) throws -> Bool {
        try write { db in
            // The bucket's row first, as every other write takes it, so no upload interleaves.
            _ = try Self.bucket(id, db, lock: true)
            try db.query("DELETE FROM day WHERE bucket = $1::text", [.text(id.rawValue)])
            try db.query("DELETE FROM edit WHERE bucket = $1::text", [.text(id.rawValue)])
            for table in ["link_file", "link_access", "link_ticket"] {
                try db.query("DELETE FROM \(table) WHERE link IN (SELECT id FROM link WHERE bucket = $1::text)", [.text(id.rawValue)])
            }
            try db.query("DELETE FROM link WHERE bucket = $1::text", [.text(id.rawValue)])
            try db.query("DELETE FROM kit WHERE bucket = $1::text", [.text(id.rawValue)])
            return try db.query("DELETE FROM bucket WHERE id = $1::text", [.text(id.rawValue)]).affected == 1
        }
    }
}

/// Rate-limit counts in the database, shared by every process serving it: one upsert per request,
/// and a sweep of earlier minutes at most once a minute per process.
final class PostgresRequestCounter: RequestCounter {
    private let pool: ConnectionPool<PostgresConnection>
    private let sweeps = MinuteGate()

    init(pool: ConnectionPool<PostgresConnection>) { self.pool = pool }

    func count(_ key: String, minute: Int64) throws -> Int {
        let count = try PostgresArchiveStore.use(pool) { db in
            // A process whose clock lags counts into the newest window rather than resetting it.
            Int(try db.query("""
                INSERT INTO request_count AS c (key, minute, count) VALUES ($1::text, $2::int8, 1)
                ON CONFLICT (key) DO UPDATE SET
                    count = CASE WHEN excluded.minute <= c.minute THEN c.count + 1 ELSE 1 END,
                    minute = greatest(c.minute, excluded.minute)
                RETURNING count
                """, [.text(key), .integer(minute)]).int64(0, 0))
        }
        if sweeps.opens(for: minute) {
            _ = try? PostgresArchiveStore.use(pool) { db in try db.query("DELETE FROM request_count WHERE minute < $1::int8", [.integer(minute - 60)]) }
        }
        return count
    }
}
