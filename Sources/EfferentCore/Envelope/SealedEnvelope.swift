import EfferentCrypto

/// The sealed envelope of a day or an edit (protocol §2).
///
/// Version 2 (every write): `0x02 || enc (32 B) || ChaCha20-Poly1305 ciphertext || tag`, HPKE base
/// mode with info `efferent/v2 hpke`. Version 1 (legacy, read only): `0x01 || ephemeral (32 B) ||
/// nonce (12 B) || AES-256-GCM ciphertext || tag`.
public enum SealedEnvelope {
    /// §2.1: the HPKE info string.
    public static let info: [UInt8] = Array("efferent/v2 hpke".utf8)
    /// §2.2: the legacy HKDF info (tests make version 1 envelopes with it through `@testable`).
    static let legacyInfo: [UInt8] = Array("efferent/v1 sealed box".utf8)

    public static let version2: UInt8 = 0x02
    public static let version1: UInt8 = 0x01
    /// The bytes a version 2 envelope adds to its plaintext: version, enc, tag.
    public static let overhead = 1 + 32 + HPKE.tagBytes

    /// Seals `plaintext` (already deflated) to `recipient` in a version 2 envelope.
    public static func seal(_ plaintext: [UInt8], to recipient: X25519PublicKey, aad: EnvelopeAAD) throws(EnvelopeError) -> [UInt8] {
        do {
            let (enc, ciphertext) = try HPKE.seal(plaintext, to: recipient, info: info, aad: aad.bytes)
            var out = [UInt8]()
            out.reserveCapacity(1 + enc.count + ciphertext.count)
            out.append(version2)
            out.append(contentsOf: enc)
            out.append(contentsOf: ciphertext)
            return out
        } catch {
            throw .cannotSeal
        }
    }

    /// Opens a version 2 or a legacy version 1 envelope, dispatching on its first byte.
    public static func open(_ sealed: [UInt8], with recipient: X25519PrivateKey, aad: EnvelopeAAD) throws(EnvelopeError) -> [UInt8] {
        guard let version = sealed.first else { throw .empty }
        switch version {
        case version2:
            guard sealed.count >= overhead else { throw .tooShort(version: 2, count: sealed.count) }
            do {
                return try HPKE.open(Array(sealed[33...]), enc: Array(sealed[1..<33]), recipient: recipient, info: info, aad: aad.bytes)
            } catch {
                throw .doesNotOpen
            }
        case version1:
            return try openLegacy(sealed, with: recipient, aad: aad)
        default:
            throw .unsupportedVersion(version)
        }
    }

    /// §2.2: key = HKDF-SHA256(X25519(ephemeral, reading), salt = ephemeral || reading public,
    /// info `efferent/v1 sealed box`), AES-256-GCM with the stored nonce.
    static func openLegacy(_ sealed: [UInt8], with recipient: X25519PrivateKey, aad: EnvelopeAAD) throws(EnvelopeError) -> [UInt8] {
        guard sealed.count >= 1 + 32 + 12 + 16 else { throw .tooShort(version: 1, count: sealed.count) }
        let ephemeralRaw = Array(sealed[1..<33])
        guard let ephemeral = try? X25519PublicKey(rawRepresentation: ephemeralRaw),
              let shared = try? recipient.sharedSecret(with: ephemeral) else { throw .doesNotOpen }
        let key = HKDF.deriveKey(ikm: shared, salt: ephemeralRaw + recipient.publicKey.rawRepresentation, info: legacyInfo, length: 32)
        do {
            return try Sodium.aes256GCMOpen(key: key, nonce: Array(sealed[33..<45]), ciphertext: Array(sealed[45...]), aad: aad.bytes)
        } catch .unavailable {
            throw .legacyUnavailable
        } catch {
            throw .doesNotOpen
        }
    }

}

/// What an envelope is bound to (§2.1): a day of a bucket, or the bucket's edit queue.
public enum EnvelopeAAD: Sendable, Equatable {
    case day(bucket: String, day: CalendarDay)
    case edit(bucket: String)

    /// `efferent/v1\n<bucket>\n<YYYY-MM-DD>` or `efferent/v1 edit\n<bucket>`, no trailing newline.
    public var bytes: [UInt8] {
        switch self {
        case let .day(bucket, day): Array("efferent/v1\n\(bucket)\n\(day)".utf8)
        case let .edit(bucket): Array("efferent/v1 edit\n\(bucket)".utf8)
        }
    }
}

public enum EnvelopeError: Error, Equatable, CustomStringConvertible {
    case empty
    case unsupportedVersion(UInt8)
    case tooShort(version: Int, count: Int)
    case doesNotOpen
    case legacyUnavailable
    case cannotSeal

    public var description: String {
        switch self {
        case .empty: "The sealed blob has no version byte: it is empty."
        case let .unsupportedVersion(v): "This is sealed in envelope version \(v), and this reader opens versions 1 and 2."
        case let .tooShort(version, count): "A version \(version) envelope cannot be \(count) bytes long: it was cut short."
        case .doesNotOpen: "It does not open with this reading key: it belongs to another key, day or bucket, or was changed since it was sealed."
        case .legacyUnavailable: "This is a legacy version 1 envelope, and this processor cannot run the AES-256-GCM it needs."
        case .cannotSeal: "Sealing failed: the recipient key is not usable."
        }
    }
}
