internal import CSodium
import Foundation

/// The libsodium calls of the recovery kit: Argon2id to stretch a passphrase, XChaCha20-Poly1305
/// to seal the kit, BLAKE2b to derive its locator and key, and libsodium's KDF for subkeys of a
/// key the owner already holds. Each is a library primitive (https://doc.libsodium.org/); sizes
/// are checked before the call and its return code on the line after it, as in `Sodium.swift`.
extension Sodium {
    // MARK: Argon2id (https://doc.libsodium.org/password_hashing/default_phf)

    /// The cost of one Argon2id derivation: passes over memory, and the memory in bytes.
    public struct PasswordHashLimits: Sendable, Equatable {
        public let operations: UInt64
        public let memoryBytes: Int

        public init(operations: UInt64, memoryBytes: Int) {
            self.operations = operations
            self.memoryBytes = memoryBytes
        }

        /// `crypto_pwhash_OPSLIMIT_MODERATE` and `_MEMLIMIT_MODERATE`: 3 passes over 256 MiB.
        public static var moderate: PasswordHashLimits {
            ready()
            return PasswordHashLimits(operations: UInt64(crypto_pwhash_opslimit_moderate()), memoryBytes: crypto_pwhash_memlimit_moderate())
        }

        /// `crypto_pwhash_OPSLIMIT_SENSITIVE` and `_MEMLIMIT_SENSITIVE`: 4 passes over 1 GiB.
        public static var sensitive: PasswordHashLimits {
            ready()
            return PasswordHashLimits(operations: UInt64(crypto_pwhash_opslimit_sensitive()), memoryBytes: crypto_pwhash_memlimit_sensitive())
        }

        /// `crypto_pwhash_OPSLIMIT_INTERACTIVE` and `_MEMLIMIT_INTERACTIVE`: 2 passes over 64 MiB.
        public static var interactive: PasswordHashLimits {
            ready()
            return PasswordHashLimits(operations: UInt64(crypto_pwhash_opslimit_interactive()), memoryBytes: crypto_pwhash_memlimit_interactive())
        }

        /// Whether these limits are within what libsodium's Argon2id accepts at all.
        public var isAccepted: Bool {
            ready()
            return operations >= UInt64(crypto_pwhash_opslimit_min()) && operations <= UInt64(crypto_pwhash_opslimit_max())
                && memoryBytes >= crypto_pwhash_memlimit_min() && UInt64(memoryBytes) <= UInt64(crypto_pwhash_memlimit_max())
        }
    }

    /// The salt length Argon2id takes (`crypto_pwhash_SALTBYTES`, 16).
    public static var passwordSaltBytes: Int { ready(); return crypto_pwhash_saltbytes() }

    /// A key of `outputBytes` stretched from `password` by Argon2id version 1.3 (`crypto_pwhash`
    /// with `crypto_pwhash_ALG_ARGON2ID13`). Throws `.failed` when the memory cannot be had.
    public static func argon2id(password: SecretBytes, salt: [UInt8], limits: PasswordHashLimits,
                                outputBytes: Int = 32) throws(SodiumError) -> SecretBytes {
        ready()
        guard salt.count == passwordSaltBytes else { throw .wrongLength("an Argon2id salt", salt.count, passwordSaltBytes) }
        guard limits.isAccepted else { throw .failed("crypto_pwhash (limits outside what Argon2id accepts)") }
        guard outputBytes >= 16, outputBytes <= 64 else { throw .wrongLength("an Argon2id key", outputBytes, 32) }
        var rc: Int32 = 0
        let key = SecretBytes(count: outputBytes) { out in
            rc = password.withUnsafeBytes { p in
                salt.withUnsafeBytes { s in
                    crypto_pwhash(out.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(outputBytes),
                                  UnsafeRawPointer(Sodium.bytes(p)).assumingMemoryBound(to: CChar.self), UInt64(p.count),
                                  s.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                  limits.operations, limits.memoryBytes, crypto_pwhash_ALG_ARGON2ID13)
                }
            }
        }
        try check(rc, "crypto_pwhash (Argon2id could not have the memory it asks for)")
        return key
    }

    // MARK: XChaCha20-Poly1305 (https://doc.libsodium.org/secret-key_cryptography/aead/chacha20-poly1305/xchacha20-poly1305_construction)

    /// The nonce of XChaCha20-Poly1305: 24 bytes, long enough to draw at random for every message.
    public static let xchachaNonceBytes = 24

    /// XChaCha20-Poly1305 (IETF) encryption: ciphertext followed by the 16-byte tag.
    public static func xchacha20Poly1305Seal<P: ContiguousBytes, A: ContiguousBytes>(
        key: SecretBytes, nonce: [UInt8], plaintext: P, aad: A
    ) throws(SodiumError) -> [UInt8] {
        ready()
        guard key.count == chachaKeyBytes else { throw .wrongLength("an XChaCha20-Poly1305 key", key.count, chachaKeyBytes) }
        guard nonce.count == xchachaNonceBytes else { throw .wrongLength("an XChaCha20-Poly1305 nonce", nonce.count, xchachaNonceBytes) }
        let (sealed, rc) = plaintext.withUnsafeBytes { p in
            var out = [UInt8](repeating: 0, count: p.count + aeadTagBytes)
            var written: UInt64 = 0
            let rc = aad.withUnsafeBytes { a in
                out.withUnsafeMutableBytes { o in
                    key.withUnsafeBytes { k in
                        nonce.withUnsafeBytes { n in
                            crypto_aead_xchacha20poly1305_ietf_encrypt(o.baseAddress!.assumingMemoryBound(to: UInt8.self), &written,
                                                                       Sodium.bytes(p), UInt64(p.count), Sodium.bytes(a), UInt64(a.count), nil,
                                                                       n.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                                                       k.baseAddress!.assumingMemoryBound(to: UInt8.self))
                        }
                    }
                }
            }
            return (out, rc)
        }
        try check(rc, "crypto_aead_xchacha20poly1305_ietf_encrypt")
        return sealed
    }

    /// XChaCha20-Poly1305 (IETF) decryption into wiped memory; throws `.forged` when the tag
    /// does not verify (a wrong key, other associated data, or changed bytes).
    public static func xchacha20Poly1305Open<C: ContiguousBytes, A: ContiguousBytes>(
        key: SecretBytes, nonce: [UInt8], ciphertext: C, aad: A
    ) throws(SodiumError) -> SecretBytes {
        ready()
        guard key.count == chachaKeyBytes else { throw .wrongLength("an XChaCha20-Poly1305 key", key.count, chachaKeyBytes) }
        guard nonce.count == xchachaNonceBytes else { throw .wrongLength("an XChaCha20-Poly1305 nonce", nonce.count, xchachaNonceBytes) }
        let length = ciphertext.withUnsafeBytes { $0.count } - aeadTagBytes
        guard length >= 0 else { throw .forged }
        var rc: Int32 = -1
        // One byte at least, so even an empty plaintext has an address to be written to.
        let opened = SecretBytes(count: max(length, 1)) { out in
            var written: UInt64 = 0
            rc = ciphertext.withUnsafeBytes { c in
                aad.withUnsafeBytes { a in
                    key.withUnsafeBytes { k in
                        nonce.withUnsafeBytes { n in
                            crypto_aead_xchacha20poly1305_ietf_decrypt(out.baseAddress!.assumingMemoryBound(to: UInt8.self), &written, nil, Sodium.bytes(c), UInt64(c.count),
                                                                       Sodium.bytes(a), UInt64(a.count),
                                                                       n.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                                                       k.baseAddress!.assumingMemoryBound(to: UInt8.self))
                        }
                    }
                }
            }
        }
        guard rc == 0 else { throw .forged }
        return length == opened.count ? opened : opened.prefix(length)
    }

    // MARK: BLAKE2b (https://doc.libsodium.org/hashing/generic_hashing)

    /// BLAKE2b of `message`, `outputBytes` long (16 to 64), keyed with `key` when given
    /// (`crypto_generichash`); the output is a secret when the key is.
    public static func blake2b<M: ContiguousBytes>(_ message: M, key: SecretBytes? = nil, outputBytes: Int = 32) throws(SodiumError) -> SecretBytes {
        ready()
        guard outputBytes >= Int(crypto_generichash_BYTES_MIN), outputBytes <= Int(crypto_generichash_BYTES_MAX) else {
            throw .wrongLength("a BLAKE2b digest", outputBytes, Int(crypto_generichash_BYTES))
        }
        if let key, key.count < Int(crypto_generichash_KEYBYTES_MIN) || key.count > Int(crypto_generichash_KEYBYTES_MAX) {
            throw .wrongLength("a BLAKE2b key", key.count, Int(crypto_generichash_KEYBYTES))
        }
        var rc: Int32 = 0
        let digest = SecretBytes(count: outputBytes) { out in
            rc = message.withUnsafeBytes { m in
                if let key {
                    return key.withUnsafeBytes { k in
                        crypto_generichash(out.baseAddress!.assumingMemoryBound(to: UInt8.self), outputBytes, Sodium.bytes(m), UInt64(m.count),
                                           k.baseAddress!.assumingMemoryBound(to: UInt8.self), k.count)
                    }
                }
                return crypto_generichash(out.baseAddress!.assumingMemoryBound(to: UInt8.self), outputBytes, Sodium.bytes(m), UInt64(m.count), nil, 0)
            }
        }
        try check(rc, "crypto_generichash")
        return digest
    }

    // MARK: Key derivation (https://doc.libsodium.org/key_derivation)

    /// Subkey `id` of a 32-byte `key` in an 8-character `context` (`crypto_kdf_derive_from_key`):
    /// independent keys for separate uses of one key, none of which reveals the key or another.
    public static func deriveSubkey(from key: SecretBytes, id: UInt64, context: String, outputBytes: Int = 32) throws(SodiumError) -> SecretBytes {
        ready()
        guard key.count == Int(crypto_kdf_KEYBYTES) else { throw .wrongLength("a key to derive from", key.count, Int(crypto_kdf_KEYBYTES)) }
        let label = Array(context.utf8)
        guard label.count == Int(crypto_kdf_CONTEXTBYTES) else { throw .wrongLength("a KDF context", label.count, Int(crypto_kdf_CONTEXTBYTES)) }
        guard outputBytes >= Int(crypto_kdf_BYTES_MIN), outputBytes <= Int(crypto_kdf_BYTES_MAX) else {
            throw .wrongLength("a derived key", outputBytes, 32)
        }
        var rc: Int32 = 0
        let subkey = SecretBytes(count: outputBytes) { out in
            rc = key.withUnsafeBytes { k in
                label.withUnsafeBytes { c in
                    crypto_kdf_derive_from_key(out.baseAddress!.assumingMemoryBound(to: UInt8.self), outputBytes, id,
                                               c.baseAddress!.assumingMemoryBound(to: CChar.self),
                                               k.baseAddress!.assumingMemoryBound(to: UInt8.self))
                }
            }
        }
        try check(rc, "crypto_kdf_derive_from_key")
        return subkey
    }
}

extension SecretBytes {
    /// `count` bytes written in place by `fill`, for another binding's C call (a recombined secret).
    public static func written(count: Int, by fill: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows -> SecretBytes {
        try SecretBytes(count: count, fill: fill)
    }
}
