import EfferentCore
import EfferentCrypto
import EfferentSecretSharing

/// The secret a recovery kit is written around: 32 random bytes, printed as 24 BIP-39 words.
///
/// Neither it nor the passphrase opens the kit alone: the kit's key is BLAKE2b keyed with both
/// (this secret and the passphrase stretched by Argon2id), so the service, which keeps a sealed
/// copy of the kit under the secret's locator, learns nothing it could guess at, and a sheet found
/// in a drawer is nothing without the passphrase. A kit split among people splits this secret.
public struct KitSecret: Sendable {
    public static let bytes = 32
    public let value: SecretBytes

    /// A fresh secret from the CSPRNG.
    public init() { value = Sodium.randomSecret(Self.bytes) }

    public init(_ value: SecretBytes) throws(KitError) {
        guard value.count == Self.bytes else { throw .notAKit("its secret is \(value.count) bytes, not \(Self.bytes)") }
        self.value = value
    }

    /// The 24 words of the secret (or of a share of it, `words(of:)`).
    public var words: [String] { BIP39.words(for: value.revealed()) }

    /// Where the service keeps the kit's sealed copy: BLAKE2b-128 keyed with the secret.
    public var locator: KitLocator {
        // A 32-byte key and a 16-byte output are within BLAKE2b's bounds: this cannot throw.
        let digest = try! Sodium.blake2b(Array("efferent-kit/v1 locator".utf8), key: value, outputBytes: 16)
        return KitLocator(derived: digest.revealed())
    }

    /// The kit's sealing key: BLAKE2b-256 keyed with this secret and the passphrase's Argon2id
    /// output together (64 bytes, BLAKE2b's longest key).
    func sealingKey(stretched passphrase: SecretBytes) -> SecretBytes {
        // 64 bytes of key and 32 of output are within BLAKE2b's bounds: this cannot throw.
        try! Sodium.blake2b(Array("efferent-kit/v1 key".utf8), key: SecretBytes.joined([value, passphrase]), outputBytes: 32)
    }

    // MARK: Split (libgfshare)

    /// Shares numbered 1…`count`, any `threshold` of which give the secret back.
    public func split(threshold: Int, count: Int) throws(KitError) -> [SecretSharing.Share] {
        guard threshold >= 2, count >= threshold, count <= 9 else { throw .badSplit(threshold, count) }
        do {
            return try SecretSharing.split(value, threshold: threshold, numbers: (1...count).map { UInt8($0) })
        } catch {
            throw .badSplit(threshold, count)
        }
    }

    /// The secret `shares` give back (at least the split's threshold of them; fewer give other
    /// bytes, which open nothing).
    public static func combine(_ shares: [SecretSharing.Share]) throws(KitError) -> KitSecret {
        do {
            return try KitSecret(try SecretSharing.combine(shares))
        } catch let error as KitError {
            throw error
        } catch {
            throw .sheetsDisagree
        }
    }
}
