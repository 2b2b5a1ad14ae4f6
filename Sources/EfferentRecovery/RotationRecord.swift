import EfferentCore
import EfferentCrypto

/// The keys a rotation makes, sealed to the writer key and kept by the service beside the kits
/// (documents/protocol.md, "Key rotation"). It is written before the service is told of the new
/// keys, so a kit written before a rotation — which holds the writer key — still finds the keys
/// every day is sealed to, even if the machine that rotated is lost half-way.
///
/// Its locator and key are subkeys of the writer key (libsodium's KDF, context `effrotat`): only
/// a holder of the writer key can find or open it, and one writer key has one such record, which
/// each rotation replaces. Layout: `efr1` · nonce (24) · XChaCha20-Poly1305 ciphertext and tag of
/// `{"editor", "previousReading", "reading", "v": 1, "written"}`; associated data
/// `efferent-rotation/v1\n<locator>`.
public struct RotationRecord: Sendable {
    public let reading: ReadingKey
    public let editor: EditorKey
    /// The reading key this rotation replaces: days not re-sealed yet are sealed to it.
    public let previousReading: ReadingKey
    public let written: Int64

    public init(reading: ReadingKey, editor: EditorKey, previousReading: ReadingKey, written: Int64) {
        self.reading = reading
        self.editor = editor
        self.previousReading = previousReading
        self.written = written
    }

    static let magic = Array("efr1".utf8)
    static let context = "effrotat"

    /// Where the service keeps the rotation record of `writer`.
    public static func locator(for writer: Ed25519PrivateKey) -> KitLocator {
        // A 32-byte seed, an 8-character context and 16 bytes out are libsodium's bounds: cannot throw.
        KitLocator(derived: (try! Sodium.deriveSubkey(from: writer.rawRepresentation, id: 1, context: context, outputBytes: 16)).revealed())
    }

    static func key(for writer: Ed25519PrivateKey) -> SecretBytes {
        try! Sodium.deriveSubkey(from: writer.rawRepresentation, id: 2, context: context)
    }

    /// The record sealed for `writer`.
    public func sealed(for writer: Ed25519PrivateKey) throws -> [UInt8] {
        let members: [String: JSONValue] = [
            "editor": .string(Base64URL.encode(editor.privateKey.rawRepresentation.revealed())),
            "previousReading": .string(Base64URL.encode(previousReading.privateKey.rawRepresentation.revealed())),
            "reading": .string(Base64URL.encode(reading.privateKey.rawRepresentation.revealed())),
            "v": .number(1),
            "written": .number(Double(written)),
        ]
        let nonce = Sodium.randomBytes(Sodium.xchachaNonceBytes)
        let plaintext = try JSONValue.object(members).canonicalBytes()
        return Self.magic + nonce + (try Sodium.xchacha20Poly1305Seal(key: Self.key(for: writer), nonce: nonce, plaintext: plaintext,
                                                                      aad: Self.associatedData(Self.locator(for: writer))))
    }

    /// Opens a record the service kept for `writer`.
    public init(opening record: [UInt8], for writer: Ed25519PrivateKey) throws(KitError) {
        guard record.count > 4 + Sodium.xchachaNonceBytes + Sodium.aeadTagBytes, record.count <= KitRecord.maxBytes,
              Array(record.prefix(4)) == Self.magic else { throw .unreadableRotation }
        let nonce = Array(record[4..<(4 + Sodium.xchachaNonceBytes)])
        guard let plaintext = try? Sodium.xchacha20Poly1305Open(key: Self.key(for: writer), nonce: nonce,
                                                              ciphertext: record[(4 + Sodium.xchachaNonceBytes)...],
                                                              aad: Self.associatedData(Self.locator(for: writer))),
              let json = try? JSONParser.parse(plaintext.revealed()), json["v"]?.integerValue == 1,
              let written = json["written"]?.integerValue else { throw .unreadableRotation }
        func key(_ name: String) throws(KitError) -> SecretBytes {
            guard let text = json[name]?.stringValue, let raw = Base64URL.decode(text), raw.count == 32 else { throw .unreadableRotation }
            return SecretBytes(raw)
        }
        do {
            reading = ReadingKey(privateKey: try X25519PrivateKey(rawRepresentation: try key("reading")))
            editor = EditorKey(privateKey: try Ed25519PrivateKey(rawRepresentation: try key("editor")))
            previousReading = ReadingKey(privateKey: try X25519PrivateKey(rawRepresentation: try key("previousReading")))
        } catch {
            throw .unreadableRotation
        }
        self.written = written
    }

    static func associatedData(_ locator: KitLocator) -> [UInt8] { Array("efferent-rotation/v1\n\(locator.rawValue)".utf8) }
}
