internal import CSodium
import Foundation

/// AES-256-GCM with the tag kept apart from the ciphertext, as JSON Web Encryption carries it
/// (RFC 7516 §5.1: ciphertext and authentication tag are two fields of the compact form), on
/// libsodium's `crypto_aead_aes256gcm_*_detached` (https://doc.libsodium.org/secret-key_cryptography/aead/aes-256-gcm).
/// libsodium runs it only on processors with AES-NI and CLMUL; elsewhere these throw `.unavailable`.
extension Sodium {
    /// A sealed message: the ciphertext (as long as the plaintext) and the 16-byte tag.
    public struct DetachedSeal: Sendable, Equatable {
        public let ciphertext: [UInt8]
        public let tag: [UInt8]

        public init(ciphertext: [UInt8], tag: [UInt8]) {
            self.ciphertext = ciphertext
            self.tag = tag
        }
    }

    /// Encrypts `plaintext` under `key` (32 bytes) and `nonce` (12 bytes), authenticating `aad` too.
    /// The nonce must never repeat under one key; callers draw it from `randomBytes`.
    public static func aes256GCMSealDetached<P: ContiguousBytes, A: ContiguousBytes>(
        key: SecretBytes, nonce: [UInt8], plaintext: P, aad: A
    ) throws(SodiumError) -> DetachedSeal {
        guard aes256GCMAvailable else { throw .unavailable("AES-256-GCM") }
        guard key.count == aesGCMKeyBytes else { throw .wrongLength("an AES-256-GCM key", key.count, aesGCMKeyBytes) }
        guard nonce.count == aesGCMNonceBytes else { throw .wrongLength("an AES-256-GCM nonce", nonce.count, aesGCMNonceBytes) }
        var tag = [UInt8](repeating: 0, count: aeadTagBytes)
        let (ciphertext, rc) = plaintext.withUnsafeBytes { p in
            // One spare byte so an empty plaintext still has an address to write to.
            var out = [UInt8](repeating: 0, count: p.count + 1)
            var tagLength: UInt64 = 0
            let rc = aad.withUnsafeBytes { a in
                out.withUnsafeMutableBytes { o in
                    tag.withUnsafeMutableBytes { t in
                        key.withUnsafeBytes { k in
                            nonce.withUnsafeBytes { n in
                                crypto_aead_aes256gcm_encrypt_detached(
                                    o.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                    t.baseAddress!.assumingMemoryBound(to: UInt8.self), &tagLength,
                                    Sodium.bytes(p), UInt64(p.count), Sodium.bytes(a), UInt64(a.count), nil,
                                    n.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                    k.baseAddress!.assumingMemoryBound(to: UInt8.self))
                            }
                        }
                    }
                }
            }
            return (Array(out.prefix(p.count)), rc)
        }
        try check(rc, "crypto_aead_aes256gcm_encrypt_detached")
        return DetachedSeal(ciphertext: ciphertext, tag: tag)
    }

    /// Decrypts and verifies; throws `.forged` when the tag does not match the key, nonce,
    /// ciphertext and `aad` together.
    public static func aes256GCMOpenDetached<C: ContiguousBytes, A: ContiguousBytes>(
        key: SecretBytes, nonce: [UInt8], ciphertext: C, tag: [UInt8], aad: A
    ) throws(SodiumError) -> [UInt8] {
        guard aes256GCMAvailable else { throw .unavailable("AES-256-GCM") }
        guard key.count == aesGCMKeyBytes else { throw .wrongLength("an AES-256-GCM key", key.count, aesGCMKeyBytes) }
        guard nonce.count == aesGCMNonceBytes else { throw .wrongLength("an AES-256-GCM nonce", nonce.count, aesGCMNonceBytes) }
        guard tag.count == aeadTagBytes else { throw .forged }
        let opened: [UInt8]? = ciphertext.withUnsafeBytes { c in
            var out = [UInt8](repeating: 0, count: c.count + 1)
            let rc = aad.withUnsafeBytes { a in
                out.withUnsafeMutableBytes { o in
                    tag.withUnsafeBytes { t in
                        key.withUnsafeBytes { k in
                            nonce.withUnsafeBytes { n in
                                crypto_aead_aes256gcm_decrypt_detached(
                                    o.baseAddress!.assumingMemoryBound(to: UInt8.self), nil,
                                    Sodium.bytes(c), UInt64(c.count),
                                    t.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                    Sodium.bytes(a), UInt64(a.count),
                                    n.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                    k.baseAddress!.assumingMemoryBound(to: UInt8.self))
                            }
                        }
                    }
                }
            }
            return rc == 0 ? Array(out.prefix(c.count)) : nil
        }
        guard let opened else { throw .forged }
        return opened
    }
}
