import EfferentCrypto

/// The JSON key files readers and the stand-in writer keep on disk, as bytes in and out
/// (protocol §1.1 `reading-key.json`, §1.2 `writer-key.json`, §1.4 `editor-key.json`).
///
/// Each is `{"<role>Private": base64url(PKCS#8 DER), "<role>Public": base64url(raw public)}`.
/// Writing and reading the file itself (owner-only permissions) is the caller's job.
public enum KeyFile {
    public static let readingName = "reading-key.json"
    public static let writerName = "writer-key.json"
    public static let editorName = "editor-key.json"

    /// §1.1: `{"readingPrivate": …, "readingPublic": …}`.
    public static func encode(_ key: ReadingKey) -> [UInt8] {
        encode(role: "reading", pkcs8: key.privateKey.pkcs8DER, publicRaw: key.publicKey.rawRepresentation)
    }

    public static func decodeReadingKey(_ bytes: [UInt8]) throws(IdentityError) -> ReadingKey {
        let (der, publicRaw) = try fields(bytes, role: "reading", name: readingName)
        guard let key = try? X25519PrivateKey(pkcs8DER: der) else { throw .keyFile(name: readingName) }
        guard Sodium.constantTimeEqual(key.publicKey.rawRepresentation, publicRaw) else { throw .keyFileMismatch(name: readingName) }
        return ReadingKey(privateKey: key)
    }

    /// §1.2: `{"writerPrivate": …, "writerPublic": …}`.
    public static func encodeWriterKey(_ key: Ed25519PrivateKey) -> [UInt8] {
        encode(role: "writer", pkcs8: key.pkcs8DER, publicRaw: key.publicKey.rawRepresentation)
    }

    public static func decodeWriterKey(_ bytes: [UInt8]) throws(IdentityError) -> Ed25519PrivateKey {
        try decodeEd25519(bytes, role: "writer", name: writerName)
    }

    /// §1.4: `{"editorPrivate": …, "editorPublic": …}`.
    public static func encode(_ key: EditorKey) -> [UInt8] {
        encode(role: "editor", pkcs8: key.privateKey.pkcs8DER, publicRaw: key.publicKey.rawRepresentation)
    }

    public static func decodeEditorKey(_ bytes: [UInt8]) throws(IdentityError) -> EditorKey {
        EditorKey(privateKey: try decodeEd25519(bytes, role: "editor", name: editorName))
    }

    private static func encode(role: String, pkcs8: [UInt8], publicRaw: [UInt8]) -> [UInt8] {
        let object = JSONValue.object([
            "\(role)Private": .string(Base64URL.encode(pkcs8)),
            "\(role)Public": .string(Base64URL.encode(publicRaw)),
        ])
        // Two strings cannot hold a non-finite number, so canonical encoding cannot fail.
        return ((try? object.canonicalBytes()) ?? []) + [0x0A]
    }

    private static func decodeEd25519(_ bytes: [UInt8], role: String, name: String) throws(IdentityError) -> Ed25519PrivateKey {
        let (der, publicRaw) = try fields(bytes, role: role, name: name)
        guard let key = try? Ed25519PrivateKey(pkcs8DER: der) else { throw .keyFile(name: name) }
        guard Sodium.constantTimeEqual(key.publicKey.rawRepresentation, publicRaw) else { throw .keyFileMismatch(name: name) }
        return key
    }

    /// The decoded PKCS#8 and raw public of a key file; other members are ignored.
    private static func fields(_ bytes: [UInt8], role: String, name: String) throws(IdentityError) -> ([UInt8], [UInt8]) {
        guard let json = try? JSONParser.parse(bytes),
              let privateText = json["\(role)Private"]?.stringValue,
              let publicText = json["\(role)Public"]?.stringValue,
              let der = Base64URL.decode(privateText),
              let publicRaw = Base64URL.decode(publicText), publicRaw.count == 32 else {
            throw .keyFile(name: name)
        }
        return (der, publicRaw)
    }
}
