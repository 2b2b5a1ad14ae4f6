import EfferentCrypto

/// X25519 and Ed25519 keys in the encodings protocol §1 uses: 32 raw bytes, and PKCS#8 DER
/// (RFC 8410) for the files readers keep on disk.
///
/// Private keys never print themselves: `description` names the type, not the bytes, and the bytes
/// live in `SecretBytes`, wiped when the last copy of the key goes.

/// The fixed DER prefixes of RFC 8410 keys (protocol §1.1).
enum DERPrefix {
    static let x25519PKCS8: [UInt8] = [0x30, 0x2E, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x6E, 0x04, 0x22, 0x04, 0x20]
    static let ed25519PKCS8: [UInt8] = [0x30, 0x2E, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20]
    static let x25519SPKI: [UInt8] = [0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x6E, 0x03, 0x21, 0x00]
    static let ed25519SPKI: [UInt8] = [0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x03, 0x21, 0x00]

    static func strip(_ prefix: [UInt8], from der: [UInt8]) -> [UInt8]? {
        guard der.count == prefix.count + 32, der.starts(with: prefix) else { return nil }
        return Array(der.dropFirst(prefix.count))
    }
}

public enum KeyError: Error, Equatable, CustomStringConvertible {
    case wrongLength(what: String, got: Int)
    case notPKCS8(what: String)
    case smallOrder(what: String)

    public var description: String {
        switch self {
        case let .wrongLength(what, got): "\(what) must be 32 bytes, and this one is \(got)."
        case let .notPKCS8(what): "This is not \(what) in PKCS#8 form (48 bytes of RFC 8410 DER)."
        case let .smallOrder(what): "That \(what) is not a key anybody holds: it is one of the seven small-order points."
        }
    }
}

public struct X25519PublicKey: Hashable, Sendable {
    public let rawRepresentation: [UInt8]

    public init(rawRepresentation raw: [UInt8]) throws(KeyError) {
        guard raw.count == 32 else { throw .wrongLength(what: "An X25519 public key", got: raw.count) }
        rawRepresentation = raw
    }

    /// SubjectPublicKeyInfo DER, as the Node client writes it.
    public var spkiDER: [UInt8] { DERPrefix.x25519SPKI + rawRepresentation }
}

public struct X25519PrivateKey: Sendable, CustomStringConvertible {
    public let rawRepresentation: SecretBytes
    public let publicKey: X25519PublicKey

    /// A fresh key from the operating system's CSPRNG.
    public init() {
        // A random scalar always has a public key; the `try!` cannot fire for 32 bytes.
        try! self.init(rawRepresentation: Sodium.randomSecret(32))
    }

    public init(rawRepresentation raw: [UInt8]) throws(KeyError) {
        try self.init(rawRepresentation: SecretBytes(raw))
    }

    public init(rawRepresentation raw: SecretBytes) throws(KeyError) {
        guard raw.count == 32 else { throw .wrongLength(what: "An X25519 private key", got: raw.count) }
        guard let publicRaw = try? Sodium.x25519PublicKey(privateKey: raw) else {
            throw .wrongLength(what: "An X25519 private key", got: raw.count)
        }
        rawRepresentation = raw
        publicKey = try X25519PublicKey(rawRepresentation: publicRaw)
    }

    public init(pkcs8DER der: [UInt8]) throws(KeyError) {
        guard let raw = DERPrefix.strip(DERPrefix.x25519PKCS8, from: der) else { throw .notPKCS8(what: "an X25519 private key") }
        try self.init(rawRepresentation: raw)
    }

    /// The key file's form: the secret leaves as plain bytes here, on its way to an owner-only file.
    public var pkcs8DER: [UInt8] { DERPrefix.x25519PKCS8 + rawRepresentation.revealed() }

    /// X25519 with a peer's public key; throws for a small-order peer (all-zero shared secret).
    public func sharedSecret(with peer: X25519PublicKey) throws(SodiumError) -> SecretBytes {
        try Sodium.x25519(privateKey: rawRepresentation, publicKey: peer.rawRepresentation)
    }

    public var description: String { "X25519PrivateKey(…)" }
}

public struct Ed25519PublicKey: Hashable, Sendable {
    public let rawRepresentation: [UInt8]

    /// The seven small-order Ed25519 points libsodium refuses (protocol §1.2), compared after
    /// clearing the top bit of byte 31.
    static let smallOrder: [[UInt8]] = [
        [UInt8](repeating: 0, count: 32),
        [0x01] + [UInt8](repeating: 0, count: 31),
        Hex.decode("e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800")!,
        Hex.decode("5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224edddd09f157")!,
        [0xEC] + [UInt8](repeating: 0xFF, count: 30) + [0x7F],
        [0xED] + [UInt8](repeating: 0xFF, count: 30) + [0x7F],
        [0xEE] + [UInt8](repeating: 0xFF, count: 30) + [0x7F],
    ]

    /// Whether `raw` is one of the seven small-order points (top bit of byte 31 ignored).
    public static func isSmallOrder(_ raw: [UInt8]) -> Bool {
        guard raw.count == 32 else { return false }
        var cleared = raw
        cleared[31] &= 0x7F
        return smallOrder.contains(cleared)
    }

    /// A 32-byte Ed25519 public key that is not one of the small-order points.
    public init(rawRepresentation raw: [UInt8], role: String = "Ed25519") throws(KeyError) {
        guard raw.count == 32 else { throw .wrongLength(what: "An \(role) public key", got: raw.count) }
        guard !Ed25519PublicKey.isSmallOrder(raw) else { throw .smallOrder(what: "\(role) key") }
        rawRepresentation = raw
    }

    public var spkiDER: [UInt8] { DERPrefix.ed25519SPKI + rawRepresentation }

    /// Whether `signature` signs `message` with this key. Wrong sizes are simply invalid.
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        Sodium.ed25519Verify(publicKey: rawRepresentation, message: message, signature: signature)
    }
}

public struct Ed25519PrivateKey: Sendable, CustomStringConvertible {
    /// The 32-byte seed (what CryptoKit calls the raw representation).
    public let rawRepresentation: SecretBytes
    public let publicKey: Ed25519PublicKey

    public init() {
        // Random seeds cannot land on a small-order point; the `try!` cannot fire.
        try! self.init(rawRepresentation: Sodium.randomSecret(32))
    }

    public init(rawRepresentation seed: [UInt8]) throws(KeyError) {
        try self.init(rawRepresentation: SecretBytes(seed))
    }

    public init(rawRepresentation seed: SecretBytes) throws(KeyError) {
        guard seed.count == 32, let publicRaw = try? Sodium.ed25519PublicKey(seed: seed) else {
            throw .wrongLength(what: "An Ed25519 private key", got: seed.count)
        }
        rawRepresentation = seed
        publicKey = try Ed25519PublicKey(rawRepresentation: publicRaw)
    }

    public init(pkcs8DER der: [UInt8]) throws(KeyError) {
        guard let raw = DERPrefix.strip(DERPrefix.ed25519PKCS8, from: der) else { throw .notPKCS8(what: "an Ed25519 private key") }
        try self.init(rawRepresentation: raw)
    }

    /// The key file's form: the secret leaves as plain bytes here, on its way to an owner-only file.
    public var pkcs8DER: [UInt8] { DERPrefix.ed25519PKCS8 + rawRepresentation.revealed() }

    /// A deterministic Ed25519 signature (RFC 8032) of `message`.
    public func signature(for message: [UInt8]) -> [UInt8] {
        // The seed is 32 bytes by construction, so signing cannot fail.
        try! Sodium.ed25519Sign(seed: rawRepresentation, message: message)
    }

    public var description: String { "Ed25519PrivateKey(…)" }
}
