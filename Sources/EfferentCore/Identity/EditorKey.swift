import EfferentCrypto

/// The Ed25519 pair that signs edits (protocol §1.4).
///
/// It signs edits, and grants neither reading nor uploading (protocol §1.4, §8).
///
/// Never prints itself.
public struct EditorKey: Sendable, CustomStringConvertible {
    /// §1.4: the handoff field's first part.
    public static let fieldPrefix = "efferent-editor-v1"

    public let privateKey: Ed25519PrivateKey

    /// A fresh pair from the operating system's CSPRNG.
    public init() { privateKey = Ed25519PrivateKey() }

    public init(privateKey: Ed25519PrivateKey) { self.privateKey = privateKey }

    /// Parses the `efferent-editor-v1` handoff field (protocol §1.4).
    ///
    /// Parses the handoff field: three parts, the prefix, two 32-byte halves that belong together
    /// (the public derived from the seed equals the given one, compared in constant time).
    public init(handoffField field: some StringProtocol) throws(IdentityError) {
        let (privateRaw, publicRaw) = try KeyField.halves(of: field, kind: "editor")
        guard let key = try? Ed25519PrivateKey(rawRepresentation: privateRaw),
              Sodium.constantTimeEqual(key.publicKey.rawRepresentation, publicRaw) else {
            throw .halvesMismatch(kind: "editor")
        }
        privateKey = key
    }

    public var publicKey: Ed25519PublicKey { privateKey.publicKey }

    /// §1.4: `efferent-editor-v1.<base64url private>.<base64url public>`.
    public var handoffField: String {
        KeyField.render(kind: "editor", privateRaw: privateKey.rawRepresentation.revealed(), publicRaw: publicKey.rawRepresentation)
    }

    public var description: String { "EditorKey(…)" }
}
