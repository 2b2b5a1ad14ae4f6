import EfferentCrypto

/// HKDF-SHA256 (RFC 5869) on libsodium's HMAC-SHA256. libsodium 1.0.18 has no
/// `crypto_kdf_hkdf_*` (added in 1.0.19), so the two steps are written out here.
public enum HKDF {
    public static let hashBytes = 32

    /// RFC 5869 §2.2. An empty salt is HashLen zero bytes.
    public static func extract(salt: [UInt8], ikm: [UInt8]) -> [UInt8] {
        Sodium.hmacSHA256(key: salt.isEmpty ? [UInt8](repeating: 0, count: hashBytes) : salt, message: ikm)
    }

    /// RFC 5869 §2.3. `length` must be at most 255 × 32 bytes.
    public static func expand(prk: [UInt8], info: [UInt8], length: Int) -> [UInt8] {
        precondition(length >= 0 && length <= 255 * hashBytes, "HKDF-Expand cannot produce \(length) bytes")
        var output = [UInt8]()
        output.reserveCapacity(length)
        var previous = [UInt8]()
        var counter: UInt8 = 1
        while output.count < length {
            previous = Sodium.hmacSHA256(key: prk, message: previous + info + [counter])
            output.append(contentsOf: previous.prefix(length - output.count))
            counter &+= 1
        }
        return output
    }

    public static func deriveKey(ikm: [UInt8], salt: [UInt8] = [], info: [UInt8], length: Int) -> [UInt8] {
        expand(prk: extract(salt: salt, ikm: ikm), info: info, length: length)
    }
}
