import EfferentCrypto

/// The address of one archive: 26 characters of lower-case base32 (protocol §1.6).
///
/// `bucket = base32_lower_nopad(SHA-256(raw reading public key))[:26]`; valid ids match `[a-z2-7]{26}`.
public struct BucketID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// §1.6: the id keeps the first 26 characters (130 bits) of the digest's base32.
    public static let length = 26

    /// The 26 characters.
    public let rawValue: String

    /// Parses a bucket id from outside (a URL path, a handoff); refuses anything but `[a-z2-7]{26}`.
    @inlinable
    public init(_ text: some StringProtocol) throws(IdentityError) {
        guard text.utf8.count == BucketID.length, Base32.isLowerAlphabet(text) else { throw .malformedBucketID }
        rawValue = String(text)
    }

    /// The bucket a reading public key seals into (§1.6).
    public init(readingPublicKey: X25519PublicKey) {
        let digest = Sodium.sha256(readingPublicKey.rawRepresentation)
        rawValue = String(Base32.encodeLower(digest).prefix(BucketID.length))
    }

    public var description: String { rawValue }

    public static func < (a: BucketID, b: BucketID) -> Bool { a.rawValue < b.rawValue }
}
