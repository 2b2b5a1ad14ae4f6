import EfferentCore
import Foundation

/// Where the service keeps archives. Every method is one transaction and either commits whole or
/// changes nothing; a method's return value names exactly what committed.
///
/// The SQLite store is the default; the PostgreSQL store passes the same tests, and keeps every
/// promise here when several service processes share one database. Each also keeps the
/// archives' shared links (`LinkStore`, decision A.15) in the same database.
public protocol ArchiveStore: LinkStore {
    /// Where the rate limits count requests: shared by every process that serves this store.
    var requestCounter: any RequestCounter { get }

    /// The keys and tally of a bucket, or `nil` when nobody has claimed it.
    func bucket(_ id: BucketID) throws -> BucketRecord?

    /// Claims `id` for `writer` ("the first writer keeps the bucket"). With an invite, the code is
    /// used up in the same transaction that creates the bucket.
    func claim(_ id: BucketID, writer: Ed25519PublicKey, invite: InviteCode?, now: Date) throws -> ClaimResult

    /// Stores whole sealed days, counting `requestBytes` against both tallies first.
    func storeDays(_ id: BucketID, writer: Ed25519PublicKey, days: [Frame.Day], requestBytes: Int,
                   quota: Quota, now: Date) throws -> StoreDaysResult

    /// Days after `after` (exclusive) up to `through` (inclusive), ascending, at most `limit`.
    func listDays(_ id: BucketID, after: CalendarDay?, through: CalendarDay?, limit: Int) throws -> [DayListing]

    func day(_ id: BucketID, _ day: CalendarDay) throws -> StoredDay?

    /// Days after `after` up to `through`, whole, packed as a frame (§5.1), cut before `maxDays`
    /// or `maxBytes` would be passed.
    func range(_ id: BucketID, after: CalendarDay?, through: CalendarDay, maxDays: Int, maxBytes: Int) throws -> RangeResult

    func stats(_ id: BucketID) throws -> BucketStats

    /// Registers the bucket's read key or editor key; `true` when it is new or replaces another.
    func register(_ role: RegisteredRole, key: Ed25519PublicKey, bucket: BucketID, writer: Ed25519PublicKey) throws -> RegisterResult

    /// Queues a sealed edit under a fresh name, counting its bytes against both tallies.
    func enqueueEdit(_ id: BucketID, edit: IncomingEdit, quota: Quota, now: Date) throws -> EnqueueResult

    /// Edits after `after`, by name: only those waiting, or waiting and answered.
    func listEdits(_ id: BucketID, after: EditName?, limit: Int, includeAnswered: Bool) throws -> [EditListing]

    func edit(_ id: BucketID, name: EditName) throws -> EditLookup

    /// Records the outcome and drops the sealed edit in one transaction.
    func answerEdit(_ id: BucketID, name: EditName, outcome: EditOutcome, outcomeBytes: [UInt8], now: Date) throws -> AnswerResult

    func outcome(_ id: BucketID, name: EditName) throws -> StoredOutcome?

    /// Stores the hash of a new invite code.
    func addInvite(hash: [UInt8], expires: Date, now: Date) throws

    func serviceStats() throws -> ServiceStats

    /// Every archive with what it holds, by id: for the operator's `list`.
    func archives() throws -> [ArchiveSummary]

    /// The operator's delete: removes a bucket and everything in it. `false` when there was none.
    func removeBucket(_ id: BucketID) throws -> Bool

    /// Keeps a recovery kit's sealed record (or a rotation's) under `locator` for the bucket's
    /// owner, counting its bytes against both tallies; a locator already holding this bucket's
    /// record is replaced. A bucket keeps at most `maxKits` records: the oldest goes first.
    func putKit(_ locator: KitLocator, bucket: BucketID, writer: Ed25519PublicKey, sealed: [UInt8], quota: Quota, maxKits: Int,
                now: Date) throws -> PutKitResult

    /// The sealed record kept under `locator`, or nil.
    func kit(_ locator: KitLocator) throws -> StoredKit?
}

/// What every store writes and reads the same way.
extension ArchiveStore {
    /// Milliseconds since 1970, floored: the unit of every stored time.
    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }

    /// A stored `YYYY-MM-DD`, or a refusal naming the damage.
    static func day(_ text: String) throws -> CalendarDay {
        guard let day = CalendarDay(text) else { throw StoreError.cannotOpen("a stored day is not a date") }
        return day
    }
}

public struct BucketRecord: Sendable, Equatable {
    public let id: BucketID
    public let writer: Ed25519PublicKey
    public let reader: Ed25519PublicKey?
    public let editor: Ed25519PublicKey?
    /// Bytes ever handed to this bucket (never decreases).
    public let taken: Int64
}

/// A presented invite code, already reduced to the hash the store keeps.
public struct InviteCode: Sendable {
    public let hash: [UInt8]
    public init(hash: [UInt8]) { self.hash = hash }
}

public enum ClaimResult: Sendable, Equatable {
    case created
    case alreadyYours
    case anotherWriter
    case inviteMissing
    case inviteUnknown
    case inviteUsed
    case inviteExpired
}

/// The two tallies' ceilings (protocol §6), settable per deployment.
public struct Quota: Sendable, Equatable {
    public var bucketBytes: Int64
    public var serviceBytes: Int64
    public init(bucketBytes: Int64 = ProtocolLimits.maxBucketBytes, serviceBytes: Int64 = ProtocolLimits.maxServiceBytes) {
        self.bucketBytes = bucketBytes
        self.serviceBytes = serviceBytes
    }
}

public enum StoreDaysResult: Sendable, Equatable {
    case stored([CalendarDay])
    case notClaimed
    case anotherWriter
    case bucketFull
    case serviceFull
}

public struct DayListing: Sendable, Equatable {
    public let day: CalendarDay
    public let bytes: Int
    /// Milliseconds since 1970 of the last upload; strictly increases with each upload of the day.
    public let uploaded: Int64
}

public struct StoredDay: Sendable, Equatable {
    public let day: CalendarDay
    public let sealed: [UInt8]
    public let uploaded: Int64
}

public struct RangeResult: Sendable, Equatable {
    /// The frame of the days returned (empty when there are none), ready to send.
    public let frame: [UInt8]
    /// How many days the frame holds, and the last of them.
    public let count: Int
    public let lastDay: CalendarDay?
    /// Whether days remain in the range after the last one returned.
    public let more: Bool

    public init(frame: [UInt8], count: Int, lastDay: CalendarDay?, more: Bool) {
        self.frame = frame
        self.count = count
        self.lastDay = lastDay
        self.more = more
    }
}

public struct BucketStats: Sendable, Equatable {
    public let exists: Bool
    public let days: Int
    public let bytes: Int64
    public let firstDay: CalendarDay?
    public let lastDay: CalendarDay?
}

public enum RegisteredRole: String, Sendable {
    case reader, editor
}

public enum RegisterResult: Sendable, Equatable {
    case registered
    case unchanged
    case notClaimed
    case notOwner
}

public struct IncomingEdit: Sendable {
    public let sealed: [UInt8]
    public let editor: Ed25519PublicKey
    public let signature: [UInt8]
    public let timestamp: Int64
}

public enum EnqueueResult: Sendable, Equatable {
    case queued(name: EditName, at: Int64)
    case noEditor
    case notTheEditor
    case queueFull(pending: Int)
    case bucketFull
    case serviceFull
}

public struct EditListing: Sendable, Equatable {
    public let name: EditName
    public let bytes: Int
    public let at: Int64
    /// `nil` while waiting; the counts once answered.
    public let applied: Int?
    public let failed: Int?
}

public enum EditLookup: Sendable, Equatable {
    case pending(sealed: [UInt8], editor: Ed25519PublicKey, signature: [UInt8], timestamp: Int64, at: Int64)
    case answered
    case unknown
}

public enum AnswerResult: Sendable, Equatable {
    case recorded
    case unknown
}

public struct StoredOutcome: Sendable, Equatable {
    public let outcome: EditOutcome
    public let bytes: Int
    public let at: Int64
}

public struct ServiceStats: Sendable, Equatable {
    public let buckets: Int
    public let days: Int
    public let storedBytes: Int64
    public let pendingEdits: Int
    /// Bytes ever handed to the service (never decreases).
    public let taken: Int64
}

/// One archive as the operator's `list` shows it: what the service could tell anyone anyway.
public struct ArchiveSummary: Sendable, Equatable {
    public let id: BucketID
    public let days: Int
    public let bytes: Int64
    public let firstDay: CalendarDay?
    public let lastDay: CalendarDay?
    /// Milliseconds since 1970 of the newest upload, or nil before the first.
    public let lastUpload: Int64?
    public let pendingEdits: Int
}
