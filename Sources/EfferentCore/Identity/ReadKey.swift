import EfferentCrypto

/// The Ed25519 key that signs reads, derived from the reading private key (protocol §1.3).
///
/// The read key: an Ed25519 key derived from the reading private key, used only to sign reads
/// (protocol §1.3, §7). It is never stored and never sent; only its public half is registered.
public enum ReadKey {
    /// §1.3: the HKDF info string.
    public static let info = Array("efferent/v1 read".utf8)

    /// `seed = HKDF-SHA256(IKM = reading private, salt = empty, info = "efferent/v1 read", L = 32)`.
    public static func seed(readingPrivate: X25519PrivateKey) -> SecretBytes {
        HKDF.deriveKey(ikm: readingPrivate.rawRepresentation, salt: [UInt8](), info: info, length: 32)
    }

    /// The Ed25519 private key whose seed is `seed(readingPrivate:)`.
    public static func derive(from readingPrivate: X25519PrivateKey) -> Ed25519PrivateKey {
        // A 32-byte HKDF output always makes a key, and a hash never lands on one of the seven
        // small-order points, so the `try!` cannot fire.
        try! Ed25519PrivateKey(rawRepresentation: seed(readingPrivate: readingPrivate))
    }
}
