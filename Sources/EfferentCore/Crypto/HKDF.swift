import EfferentCrypto

/// HKDF-SHA256 (RFC 5869) on libsodium's HMAC-SHA256. libsodium 1.0.18 has no
/// `crypto_kdf_hkdf_*` (added in 1.0.19), so the two steps are written out here. Every output is a
/// secret (a key, a seed, a pseudorandom key), so it comes back as `SecretBytes`.
enum HKDF {
    static let hashBytes = 32

    /// RFC 5869 §2.2 over the input keying material given in parts (HPKE's labeled extract joins
    /// a label to a secret: the parts are fed to the MAC one by one, never joined in an array).
    /// An empty salt is HashLen zero bytes.
    static func extract<Salt: SodiumBytes>(salt: Salt, ikm parts: [any SodiumBytes]) -> SecretBytes {
        let empty = salt.byteCount == 0
        return empty ? Sodium.hmacSHA256(key: [UInt8](repeating: 0, count: hashBytes), parts: parts)
                     : Sodium.hmacSHA256(key: salt, parts: parts)
    }

    /// RFC 5869 §2.3. `length` must be at most 255 × 32 bytes.
    static func expand(prk: SecretBytes, info: [UInt8], length: Int) -> SecretBytes {
        precondition(length >= 0 && length <= 255 * hashBytes, "HKDF-Expand cannot produce \(length) bytes")
        var blocks = [SecretBytes]()
        var produced = 0
        var counter: UInt8 = 1
        while produced < length {
            let previous: [any SodiumBytes] = blocks.last.map { [$0] } ?? []
            let block = Sodium.hmacSHA256(key: prk, parts: previous + [info, [counter]])
            blocks.append(block)
            produced += block.count
            counter &+= 1
        }
        return SecretBytes.joined(blocks).prefix(length)
    }

    static func deriveKey<Salt: SodiumBytes>(ikm: SecretBytes, salt: Salt, info: [UInt8], length: Int) -> SecretBytes {
        expand(prk: extract(salt: salt, ikm: [ikm]), info: info, length: length)
    }
}
