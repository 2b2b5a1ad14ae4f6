import EfferentCrypto

/// The X25519 pair that opens an archive (protocol §1.1).
///
/// Its public half seals days, its private half opens them and derives the read key (protocol §1.1,
/// §1.3, §1.6).
///
/// Never prints itself: `description` names the bucket, not the key.
public struct ReadingKey: Sendable, CustomStringConvertible {
    /// §1.1: the handoff field's first part.
    public static let fieldPrefix = "efferent-reading-v1"

    public let privateKey: X25519PrivateKey

    /// A fresh pair from the operating system's CSPRNG.
    public init() { privateKey = X25519PrivateKey() }

    public init(privateKey: X25519PrivateKey) { self.privateKey = privateKey }

    /// Parses the `efferent-reading-v1` handoff field (protocol §1.1).
    ///
    /// Parses the handoff field with every check of §1.1: three parts, the prefix, two 32-byte
    /// halves, and X25519(private) equal to the given public (compared in constant time).
    public init(handoffField field: some StringProtocol) throws(IdentityError) {
        let (privateRaw, publicRaw) = try KeyField.halves(of: field, kind: "reading")
        guard let key = try? X25519PrivateKey(rawRepresentation: privateRaw),
              Sodium.constantTimeEqual(key.publicKey.rawRepresentation, publicRaw) else {
            throw .halvesMismatch(kind: "reading")
        }
        privateKey = key
    }

    public var publicKey: X25519PublicKey { privateKey.publicKey }

    /// §1.6: the bucket this key's days are sealed into.
    public var bucket: BucketID { BucketID(readingPublicKey: publicKey) }

    /// §1.3: the derived Ed25519 key that signs reads.
    public var readKey: Ed25519PrivateKey { ReadKey.derive(from: privateKey) }

    /// §1.1: `efferent-reading-v1.<base64url private>.<base64url public>`.
    public var handoffField: String {
        KeyField.render(kind: "reading", privateRaw: privateKey.rawRepresentation.revealed(), publicRaw: publicKey.rawRepresentation)
    }

    public var description: String { "ReadingKey(bucket: \(bucket))" }
}
