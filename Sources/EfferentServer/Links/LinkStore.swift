import EfferentCore
import Foundation

/// Where the service keeps the archive's shared links (decision A.15, documents/protocol.md): each
/// link's dates and settings, its encrypted files, who opened it and when. Like `ArchiveStore`,
/// every method is one transaction and names exactly what committed; both stores implement it in
/// the same database as the archives (`SQLiteArchiveStore+Links`, `PostgresArchiveStore+Links`).
///
/// The service never holds a link's key: files are compact JWE it cannot open, the passcode an
/// Argon2id string it can only check.
public protocol LinkStore: Sendable {
    /// Makes link `id` for `bucket`, or finds it again (a retry after a lost answer changes nothing).
    func createLink(_ id: LinkID, bucket: BucketID, link: NewLink, now: Date) throws -> CreateLinkResult

    /// Stores one encrypted file of a version not yet published, counting its bytes against both tallies.
    func storeLinkFile(_ id: LinkID, bucket: BucketID, file: UploadedLinkFile, quota: Quota, now: Date) throws -> StoreLinkFileResult

    /// Makes `version` (files `0..<files`, all uploaded) the one the manifest lists, and deletes
    /// every other version's files.
    func publishLink(_ id: LinkID, bucket: BucketID, version: Int, files: Int, now: Date) throws -> PublishLinkResult

    /// Ends a link now and deletes its files; its record stays for the owner's list.
    func revokeLink(_ id: LinkID, bucket: BucketID, now: Date) throws -> RevokeLinkResult

    /// Every link of `bucket`, newest first, with who opened it.
    func links(of bucket: BucketID) throws -> [LinkSummary]

    /// What a manifest request needs to know first; nil for an id nobody made.
    func linkState(_ id: LinkID) throws -> LinkState?

    /// Takes one of the link's passcode tries before the passcode is checked, so parallel requests
    /// never get past the lifetime count the IG asks for: at most ten checks are ever under way or
    /// done wrong. A try that finds the count spent locks the link and deletes its files.
    func takePasscodeTry(_ id: LinkID, now: Date) throws -> PasscodeTry

    /// After the check: a right passcode gives its try back; a wrong one that leaves the count
    /// spent locks the link and deletes its files.
    func settlePasscodeTry(_ id: LinkID, right: Bool, now: Date) throws

    /// The manifest of a published, live link: records the opening (`recipient`), embeds the
    /// files up to `embedUpTo` bytes, and issues a `location` ticket for each other file, valid
    /// until `now` plus `LinkLimits.locationSeconds`, from `ticket` (its text and the hash kept).
    func manifest(_ id: LinkID, recipient: String, embedUpTo: Int, now: Date,
                  ticket: () -> (text: String, hash: [UInt8])) throws -> ManifestResult

    /// The file a `location` ticket (by its hash) names, while the ticket and its link live.
    func linkFile(ticket hash: [UInt8], now: Date) throws -> [UInt8]?

    /// Deletes the files of links that have expired and the tickets that have; says when the next
    /// live link expires, so a sweeper can be awake then.
    func sweepLinks(now: Date) throws -> LinkSweep
}

/// A link as its owner asks for it.
public struct NewLink: Sendable, Equatable {
    /// Milliseconds since 1970.
    public let expires: Int64
    /// Flag `L`: the files may be replaced while the link lives.
    public let longTerm: Bool
    /// Flag `P`: the Argon2id string of the passcode.
    public let passcodeHash: String?

    public init(expires: Int64, longTerm: Bool, passcodeHash: String?) {
        self.expires = expires
        self.longTerm = longTerm
        self.passcodeHash = passcodeHash
    }
}

public enum CreateLinkResult: Sendable, Equatable {
    case created
    case exists
    /// The bucket has no read key to sign links with, or is not claimed.
    case noReader
    /// Another archive's link has this id (a client that did not draw it at random).
    case takenByAnother
    case tooMany(Int)
}

/// One file of one version, as uploaded.
public struct UploadedLinkFile: Sendable {
    public let version: Int
    public let index: Int
    public let jwe: [UInt8]

    public init(version: Int, index: Int, jwe: [UInt8]) {
        self.version = version
        self.index = index
        self.jwe = jwe
    }
}

/// Why a link no longer answers. Expiry is a date the link carries, so a link past it has
/// ended whether or not the sweeper has come by.
public enum LinkEnd: Sendable, Equatable {
    case revoked(at: Int64)
    case locked(at: Int64)
    case expired(at: Int64)
}

public enum StoreLinkFileResult: Sendable, Equatable {
    case stored
    case noSuchLink
    case ended(LinkEnd)
    /// That version is the one published: a new one is uploaded under a new number.
    case published
    case bucketFull
    case serviceFull
}

public enum PublishLinkResult: Sendable, Equatable {
    case published(files: Int, bytes: Int64)
    case noSuchLink
    case ended(LinkEnd)
    case missing(index: Int)
    /// A long-term link's files may change; any other is published once.
    case final
}

public enum RevokeLinkResult: Sendable, Equatable {
    case revoked
    case alreadyEnded(LinkEnd)
    case noSuchLink
}

/// A link as the manifest route first reads it.
public struct LinkState: Sendable, Equatable {
    public let bucket: BucketID
    public let expires: Int64
    public let longTerm: Bool
    public let passcodeHash: String?
    public let failures: Int
    /// Nil until the first publish.
    public let version: Int?
    /// Revoked or locked; expiry is judged against the clock by `end(now:)`.
    public let ended: LinkEnd?

    public init(bucket: BucketID, expires: Int64, longTerm: Bool, passcodeHash: String?, failures: Int, version: Int?, ended: LinkEnd?) {
        self.bucket = bucket
        self.expires = expires
        self.longTerm = longTerm
        self.passcodeHash = passcodeHash
        self.failures = failures
        self.version = version
        self.ended = ended
    }

    public func end(now ms: Int64) -> LinkEnd? { ended ?? (expires <= ms ? .expired(at: expires) : nil) }
}

/// What taking a passcode try found.
public enum PasscodeTry: Sendable, Equatable {
    /// The link has no passcode.
    case open
    /// A try is taken: check the passcode against `hash`; `count` is the tries counted with this one.
    case taken(hash: String, count: Int)
    case locked
    case inactive(LinkEnd?)
}

public enum PasscodeAttempt: Sendable, Equatable {
    case accepted
    case wrong(remaining: Int)
    /// Locked now or before: the count is spent.
    case locked
    case inactive(LinkEnd?)
}

/// One file of a manifest: embedded, or at a ticket's address.
public struct ManifestFile: Sendable, Equatable {
    public let index: Int
    public let bytes: Int
    public let uploaded: Int64
    public let embedded: [UInt8]?
    public let ticket: String?
}

public enum ManifestResult: Sendable, Equatable {
    case files([ManifestFile], longTerm: Bool)
    case notPublished
    case inactive(LinkEnd?)
    case unknown
}

/// One opening of a link: when, and the `recipient` the viewer named.
public struct LinkAccess: Sendable, Equatable {
    public let at: Int64
    public let recipient: String
}

/// A link as its owner's list shows it: what the service knows, which is never its key or content.
public struct LinkSummary: Sendable, Equatable {
    public let id: LinkID
    public let created: Int64
    public let expires: Int64
    public let longTerm: Bool
    public let passcode: Bool
    public let failures: Int
    public let version: Int?
    public let files: Int
    public let bytes: Int64
    public let published: Int64?
    /// Manifest answers given, all of them; `accesses` keeps the latest `LinkLimits.accessesKept`.
    public let opened: Int
    public let accesses: [LinkAccess]
    public let ended: LinkEnd?
}

public struct LinkSweep: Sendable, Equatable {
    /// Links whose files were deleted because they expired.
    public let expired: Int
    /// Files deleted.
    public let files: Int
    /// When the next live link expires, in milliseconds since 1970.
    public let nextExpiry: Int64?
}

extension LinkStore {
    /// One try of a passcode: the try is counted first and `verify` — the Argon2id check of the
    /// stored string, the slow part — runs holding no lock and no connection; a right passcode
    /// gives its try back. The price of counting first: a right passcode checked while a burst of
    /// wrong ones spends the count finds the link locked, as it would a moment later anyway.
    public func attemptPasscode(_ id: LinkID, now: Date, verify: (String) -> Bool) throws -> PasscodeAttempt {
        switch try takePasscodeTry(id, now: now) {
        case .open: return .accepted
        case .locked: return .locked
        case let .inactive(end): return .inactive(end)
        case let .taken(hash, count):
            let right = verify(hash)
            try settlePasscodeTry(id, right: right, now: now)
            return right ? .accepted : .wrong(remaining: max(0, LinkLimits.passcodeAttempts - count))
        }
    }
}

extension LinkEnd {
    /// How the stores keep an end: a kind and a time.
    static func stored(revoked: Int64?, locked: Int64?) -> LinkEnd? {
        if let revoked { return .revoked(at: revoked) }
        if let locked { return .locked(at: locked) }
        return nil
    }
}
