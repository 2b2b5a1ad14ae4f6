import EfferentSQLite
import EfferentSystem
import EfferentWriter
import Foundation

/// The receiver's own state (Puls Sync Protocol v1): paired phones and their tokens, every sample
/// by HealthKit UUID and the index that finds them, HealthKit's buckets and ring days as sent,
/// the batches taken and each phone's figures, and the group commit that makes an acknowledged
/// batch durable.
///
/// Its tables (`ReceiverSchema`) are in the writer's file, so that a batch's rows here commit in
/// the very transaction that stores its records and marks their days: the one the writer lends
/// for it (`SourceStore.commit`, whose `RecordTransaction` runs this store's statements too). A
/// batch is stored whole, its dedupe marks and all, or not at all. Everything else — migrations,
/// pairing, the read endpoints, a workout an earlier batch brought — runs on a connection of the
/// receiver's own to the same file, never on the writer's.
///
/// One lock (`Exclusive`) guards that connection and what is kept in memory (the UUID index). A
/// batch's commit takes it inside the writer's store, never the other way round: the store's lock
/// is the one that orders a batch against an import or a push, this one is always the innermost,
/// and nothing under it waits for the store, so the two cannot deadlock. Another `ReceiverStore`
/// on the same file may write too: the index notices and is read again.
public final class ReceiverStore: Sendable {
    /// What only the thread holding the lock touches.
    final class Owned {
        let db: SQLiteConnection
        var sampleIndex: PhoneSampleIndex?
        var mergeEvery = PhoneSampleIndex.mergeEvery

        init(db: SQLiteConnection) { self.db = db }
    }

    /// The writer's store these tables stand beside.
    public let store: SourceStore
    private let owner: Exclusive<Owned>
    /// The store's write-ahead log, which an acknowledged batch is flushed to (`commits`).
    let commits: DurableCommits

    /// Opens the receiver's tables in `store`'s file, making or migrating them first.
    public init(store: SourceStore) throws {
        self.store = store
        let db = try SQLiteConnection(path: store.path)
        try ReceiverSchema.migrate(db, now: Date().timeIntervalSince1970)
        commits = DurableCommits(log: db.writeAheadLogPath)
        owner = Exclusive(Owned(db: db))
    }

    /// Runs `body` with the receiver's own connection and state to itself; never inside a batch's
    /// commit (which has the writer's transaction for its statements).
    func serialized<T>(_ body: (SQLiteConnection) throws -> T) rethrows -> T {
        try owner.withLock { owned in try body(owned.db) }
    }

    /// Phone samples by UUID (`phoneSamples(_:)`); nil until a phone's batch needs it, and again
    /// after a transaction that may have changed it failed. Inside the lock only.
    var sampleIndex: PhoneSampleIndex? {
        get { owner.held.sampleIndex }
        set { owner.held.sampleIndex = newValue }
    }

    /// Rows the index holds in memory before they move into `phone_uuid` (tests make it small).
    var mergeEvery: Int {
        get { owner.held.mergeEvery }
        set { owner.held.mergeEvery = newValue }
    }

    /// Runs `body` under the lock with the writer's transaction as the place statements run (a
    /// batch's commit).
    func inBatch<T>(_ transaction: RecordTransaction, _ body: (PhoneSampleIndex) throws -> T) throws -> T {
        try owner.withLock { owned in
            let index = try phoneSamples(in: transaction, owned)
            return try body(index)
        }
    }

    /// Phone samples by UUID as `statements` see them, read again when another connection (or
    /// another `ReceiverStore` on this file) has written since. In a batch's transaction the
    /// writer's connection tells whether anyone else committed (`PRAGMA data_version`); on the
    /// receiver's own connection, which sees every batch's commit as another's, only rows added
    /// or moved since are looked for (`isBehind`).
    private func phoneSamples(in statements: any ReceiverStatements, _ owned: Owned) throws -> PhoneSampleIndex {
        let inBatch = statements is RecordTransaction
        if let index = owned.sampleIndex, !index.stale, try !index.isBehind(statements) {
            if !inBatch { return index }
            if try PhoneSampleIndex.dataVersion(statements) == index.dataVersion { return index }
        }
        let index = try PhoneSampleIndex(statements, mergeEvery: owned.mergeEvery, previous: owned.sampleIndex,
                                         dataVersion: inBatch ? try PhoneSampleIndex.dataVersion(statements) : nil)
        owned.sampleIndex = index
        return index
    }

    /// Phone samples by UUID on the receiver's own connection (outside any batch).
    func phoneSamples() throws -> PhoneSampleIndex {
        try owner.withLock { owned in try phoneSamples(in: owned.db, owned) }
    }

    /// Returns once everything committed before the call is on the disk (a group commit: one
    /// flush of the log covers every batch committed meanwhile).
    public func flush() throws { try commits.flush() }
}

/// Where the receiver's statements run: its own connection, or the writer's transaction a batch
/// is lent (`RecordTransaction`), whose statements see what the batch has written so far.
protocol ReceiverStatements: AnyObject {
    func statement(_ sql: String) throws -> SQLiteStatement
    var changes: Int { get }
}

extension SQLiteConnection: ReceiverStatements {}
extension RecordTransaction: ReceiverStatements {}
