import EfferentCore

/// What the service keeps for the recovery-kit extension (documents/protocol.md, "Recovery kits"):
/// sealed records it cannot open, each under a locator derived from a secret it never sees, with
/// the bucket whose owner put it, its size and when.
public enum PutKitResult: Sendable, Equatable {
    /// Stored; `replaced` when the locator held this bucket's record already, `dropped` the
    /// number of this bucket's oldest records removed to stay within the ceiling.
    case stored(replaced: Bool, dropped: Int)
    case notClaimed
    case anotherWriter
    /// The locator holds another bucket's record (two secrets never derive one locator; a
    /// client sending this is confused or hostile).
    case otherArchive
    case bucketFull
    case serviceFull
}

public struct StoredKit: Sendable, Equatable {
    public let sealed: [UInt8]
    public let bucket: BucketID
    /// Milliseconds since 1970 when it was put.
    public let at: Int64
}
