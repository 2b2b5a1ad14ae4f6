import EfferentSQLite
import EfferentSystem
import EfferentWriter
import Foundation

/// The receiver's own state (Puls Sync Protocol v1): paired phones and their tokens, every sample
/// by HealthKit UUID and the index that finds them, the batches taken and each phone's figures,
/// and the group commit that makes an acknowledged batch durable.
///
/// Its tables (`ReceiverSchema`) are in the writer's file, on the writer's connection, so a
/// batch's rows here and its records and day marks in the writer (`PhoneBatchRecords`) commit in
/// one transaction: a batch is stored whole, its dedupe marks and all, or not at all.
///
/// Every method holds the writer's store first and then its own lock (`Exclusive`), never the
/// other way round: the store's lock is the one that orders a batch against an import or a push,
/// and this one is always the innermost, so the two cannot deadlock. What is kept in memory (the
/// UUID index) is reachable only through that lock. Another `ReceiverStore` on the same
/// `SourceStore` (or another connection to the file) may write too: the index notices and is
/// read again.
public final class ReceiverStore: Sendable {
    /// What only the thread holding the store touches.
    final class Owned {
        var sampleIndex: PhoneSampleIndex?
        var mergeEvery = PhoneSampleIndex.mergeEvery
    }

    /// The writer's store these tables stand beside.
    public let store: SourceStore
    private let owner = Exclusive(Owned())
    /// The store's write-ahead log, which an acknowledged batch is flushed to (`commits`).
    let commits: DurableCommits

    /// Opens the receiver's tables in `store`'s file, making or migrating them first.
    public init(store: SourceStore) throws {
        self.store = store
        let log = try store.withConnection { db in
            try ReceiverSchema.migrate(db, now: Date().timeIntervalSince1970)
            return db.writeAheadLogPath
        }
        commits = DurableCommits(log: log)
    }

    /// Runs `body` with the store held and this store's state to itself (see the type's note on order).
    func serialized<T>(_ body: (SQLiteConnection) throws -> T) rethrows -> T {
        try store.withConnection { db in try owner.withLock { _ in try body(db) } }
    }

    /// Phone samples by UUID (`phoneSamples()`); nil until a phone's batch needs it, and again
    /// after a transaction that may have changed it failed. Inside `serialized` only.
    var sampleIndex: PhoneSampleIndex? {
        get { owner.held.sampleIndex }
        set { owner.held.sampleIndex = newValue }
    }

    /// Rows the index holds in memory before they move into `phone_uuid` (tests make it small).
    var mergeEvery: Int {
        get { owner.held.mergeEvery }
        set { owner.held.mergeEvery = newValue }
    }

    /// Phone samples by UUID, read again when another connection (or another `ReceiverStore` on
    /// this one) has written since.
    func phoneSamples() throws -> PhoneSampleIndex {
        try serialized { db in
            if let index = sampleIndex, !index.stale, try PhoneSampleIndex.dataVersion(db) == index.dataVersion, try !index.isBehind(db) {
                return index
            }
            let index = try PhoneSampleIndex(db: db, mergeEvery: mergeEvery, previous: sampleIndex)
            sampleIndex = index
            return index
        }
    }

    /// Returns once everything committed before the call is on the disk (a group commit: one
    /// flush of the log covers every batch committed meanwhile).
    public func flush() throws { try commits.flush() }
}
