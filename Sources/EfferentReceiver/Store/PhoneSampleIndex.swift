import EfferentSQLite

/// Finds a phone sample by its HealthKit UUID (Puls Sync Protocol v1 §6.2–6.3) without a UUID
/// index that every batch rewrites.
///
/// UUIDs are random, so a B-tree keyed by them takes each batch's 1,000 new keys on as many
/// different pages, and a commit writes every page it changed: a 184,464-sample backfill wrote
/// 532 MB, where an import of the same records writes 60 MB. So the UUIDs live in two places:
/// `phone_uuid` (UUID order), filled in bulk, and the rows added since (`sid` above the mark
/// stored in `receiver_meta`), which this index holds in memory and moves into `phone_uuid`
/// `mergeEvery` at a time, sorted, in the transaction of the batch that reaches the mark.
/// New rows take their `sid` from here, always above the mark (SQLite's own choice reuses the
/// highest `sid` once its row is deleted, which could fall below it), so the rows above the
/// mark are exactly the ones `phone_uuid` lacks.
///
/// A new UUID (every one of a backfill) is known new from a Bloom filter over all of them
/// (`UUIDFilter`), without a lookup in `phone_uuid`.
///
/// The memory is a copy of the store, right only while the store's transactions commit: it is
/// read again from the rows above the mark when one fails or when another connection has written
/// (`PRAGMA data_version` of the writer's connection, which a batch's statements run on), or when
/// rows were added or moved by another `ReceiverStore` (`data_version` moves only for other
/// connections' commits, so the highest `sid` and the mark are compared too: `isBehind`). Its
/// statements run where the caller says (`ReceiverStatements`): in a batch's transaction, or on
/// the receiver's own connection. Kept by `ReceiverStore`, used only under its lock.
final class PhoneSampleIndex {
    static let markKey = "phone-uuids-merged"
    /// Rows held in memory before they move into `phone_uuid`: about 3 MB, and a move of this
    /// many sorted keys rewrites each page of `phone_uuid` at most once.
    static let mergeEvery = 50_000

    private let mergeEvery: Int
    /// Every row with a `sid` above this is in `recent`, none of them in `phone_uuid`.
    private var mark: Int64
    /// The highest `sid` handed out or stored, at least the mark.
    private var top: Int64
    private var recent: [PulsUUID: Int64] = [:]
    /// Every UUID in `phone_uuid` or `recent`, perhaps more (a deleted one, a rolled-back one):
    /// only another connection's move into `phone_uuid` adds UUIDs it has not seen.
    private(set) var filter: UUIDFilter
    /// A transaction that may have changed what this holds failed: to be read again.
    private(set) var stale = false
    /// The writer's connection's `data_version` when this copy was read there (another
    /// connection's commit changes it); nil when it was read on the receiver's own connection.
    let dataVersion: Int64?

    /// `previous` lends its filter when the stored mark is still the one it knew (a move into
    /// `phone_uuid` by another connection changes it), so reading the rows above the mark again
    /// stays cheap.
    init(_ db: any ReceiverStatements, mergeEvery: Int = PhoneSampleIndex.mergeEvery, previous: PhoneSampleIndex? = nil,
         dataVersion: Int64? = nil) throws {
        self.mergeEvery = mergeEvery
        self.dataVersion = dataVersion
        mark = try Self.storedMark(db)
        top = max(mark, try db.statement("SELECT max(sid) FROM phone_sample").first { $0.int64(0) } ?? 0)
        if let previous, previous.mark == mark {
            filter = previous.filter
        } else {
            filter = try Self.filled(db, extra: 0)
        }
        let rows = try db.statement("SELECT uuid, sid FROM phone_sample WHERE sid > ?")
        _ = try rows.bind([.integer(mark)])
        while try rows.step() {
            let uuid = PulsUUID(bytes: rows.blob(0))
            recent[uuid] = rows.int64(1)
            filter.add(uuid)
        }
    }

    static func dataVersion(_ db: any ReceiverStatements) throws -> Int64 {
        try db.statement("PRAGMA data_version").first { $0.int64(0) } ?? 0
    }

    /// The mark as stored: every `sid` above it is not in `phone_uuid` yet.
    private static func storedMark(_ db: any ReceiverStatements) throws -> Int64 {
        try db.statement("SELECT value FROM receiver_meta WHERE key = ?").first([.text(markKey)]) { Int64($0.text(0)) ?? 0 } ?? 0
    }

    /// Whether rows were added above what this copy numbered, or moved into `phone_uuid`, by
    /// someone else (another `ReceiverStore`, whose commits this connection may not tell apart
    /// from its own). Two seeks: the highest rowid and one `receiver_meta` key. Rows someone else
    /// deleted need no check: a lookup that finds no row answers "new".
    func isBehind(_ db: any ReceiverStatements) throws -> Bool {
        let highest = try db.statement("SELECT max(sid) FROM phone_sample").first { $0.int64(0) } ?? 0
        return try highest > top || Self.storedMark(db) != mark
    }

    /// A filter holding every UUID of `phone_uuid`, with room for `extra` more and a quarter to grow.
    private static func filled(_ db: any ReceiverStatements, extra: Int) throws -> UUIDFilter {
        let count = Int(try db.statement("SELECT count(*) FROM phone_uuid").first { $0.int64(0) } ?? 0)
        var filter = UUIDFilter(capacity: (count + extra) * 5 / 4)
        let rows = try db.statement("SELECT uuid FROM phone_uuid")
        _ = try rows.bind([])
        while try rows.step() { filter.add(PulsUUID(bytes: rows.blob(0))) }
        return filter
    }

    /// The sample's row and whether it is present (0: a workout only its points have named), as
    /// `db` sees the rows.
    func find(_ uuid: PulsUUID, in db: any ReceiverStatements) throws -> (sid: Int64, present: Bool)? {
        guard filter.mayContain(uuid) else { return nil }
        if let sid = recent[uuid] {
            return try db.statement("SELECT present FROM phone_sample WHERE sid = ?").first([.integer(sid)]) { (sid, $0.int64(0) == 1) }
        }
        return try db.statement("SELECT s.sid, s.present FROM phone_uuid u JOIN phone_sample s ON s.sid = u.sid WHERE u.uuid = ?")
            .first([.blob(uuid.bytes)]) { ($0.int64(0), $0.int64(1) == 1) }
    }

    /// The `sid` for a new row of `uuid`; the caller inserts the row with it in the transaction `db` runs in.
    func add(_ uuid: PulsUUID, in db: any ReceiverStatements) throws -> Int64 {
        if filter.count >= filter.capacity {
            // Full: about 1 % false hits would climb. Refilled larger, from the rows as they stand.
            filter = try Self.filled(db, extra: recent.count)
            for key in recent.keys { filter.add(key) }
        }
        top += 1
        recent[uuid] = top
        filter.add(uuid)
        return top
    }

    func invalidate() { stale = true }

    /// A row the caller has just deleted in the transaction `db` runs in.
    func removed(_ uuid: PulsUUID, in db: any ReceiverStatements) throws {
        if recent.removeValue(forKey: uuid) == nil {
            try db.statement("DELETE FROM phone_uuid WHERE uuid = ?").run([.blob(uuid.bytes)])
        }
    }

    /// Moves the rows above the mark into `phone_uuid` once there are `mergeEvery` of them, inside
    /// the caller's transaction.
    func mergeIfDue(in db: any ReceiverStatements) throws {
        guard recent.count >= mergeEvery else { return }
        // Sorted, so each page of phone_uuid is written once however many keys land on it.
        // OR REPLACE: a UUID can only be here twice if a row escaped this index, and then the
        // newer row is the one it names rather than a store that refuses every batch from now on.
        try db.statement("INSERT OR REPLACE INTO phone_uuid (uuid, sid) SELECT uuid, sid FROM phone_sample WHERE sid > ? ORDER BY uuid")
            .run([.integer(mark)])
        try db.statement("INSERT INTO receiver_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value")
            .run([.text(Self.markKey), .text(String(top))])
        mark = top
        recent.removeAll(keepingCapacity: true)
    }
}
