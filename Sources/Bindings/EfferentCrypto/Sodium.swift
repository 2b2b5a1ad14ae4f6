internal import CSodium
import Foundation

/// The libsodium primitives Efferent uses, and nothing else: every call into libsodium is here.
///
/// Functions take and return `[UInt8]`, and `SecretBytes` for private keys, shared secrets and
/// AEAD keys, so that no pointer leaves this file and no secret sits in a plain array. Sizes are
/// checked before each call and each return code on the line after it (https://doc.libsodium.org/).
public enum Sodium {
    /// libsodium must be initialised once per process before any other call; `sodium_init` is
    /// idempotent and thread-safe, so every entry point calls `ready()`.
    private static let initialised: Bool = sodium_init() >= 0

    /// A valid address for zero-length inputs: libsodium marks its pointers nonnull even when the
    /// length is zero, and an empty Swift buffer may have no address.
    nonisolated(unsafe) private static let emptyInput = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)

    @inline(__always)
    static func bytes(_ buffer: UnsafeRawBufferPointer) -> UnsafePointer<UInt8> {
        buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? UnsafePointer(emptyInput)
    }

    @inline(__always)
    static func ready() {
        precondition(initialised, "libsodium could not be initialised")
    }

    /// A libsodium return code (0 success, -1 failure) as a thrown error naming the call.
    @inline(__always)
    static func check(_ rc: Int32, _ call: String) throws(SodiumError) {
        guard rc == 0 else { throw .failed(call) }
    }

    /// For the calls libsodium documents as unable to fail (hashing, HMAC over any input): a
    /// non-zero code means the library itself is broken, and no digest can be trusted after it.
    @inline(__always)
    static func require(_ rc: Int32, _ call: StaticString) {
        precondition(rc == 0, "libsodium's \(call) returned \(rc), which it documents it never does")
    }

    // MARK: Randomness

    /// `count` bytes from the operating system's CSPRNG (`randombytes_buf`).
    public static func randomBytes(_ count: Int) -> [UInt8] {
        ready()
        var out = [UInt8](repeating: 0, count: count)
        out.withUnsafeMutableBytes { if let base = $0.baseAddress { randombytes_buf(base, count) } }
        return out
    }

    /// A fresh secret of `count` bytes from the CSPRNG, written straight into wiped memory.
    public static func randomSecret(_ count: Int) -> SecretBytes {
        ready()
        return SecretBytes(count: count) { buffer in if count > 0 { randombytes_buf(buffer.baseAddress!, count) } }
    }

    // MARK: Hashing and MACs

    public static let sha256Bytes = 32

    /// SHA-256 (`crypto_hash_sha256`).
    public static func sha256<Bytes: ContiguousBytes>(_ message: Bytes) -> [UInt8] {
        ready()
        var out = [UInt8](repeating: 0, count: sha256Bytes)
        message.withUnsafeBytes { input in
            out.withUnsafeMutableBytes { output in
                require(crypto_hash_sha256(output.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                           Sodium.bytes(input),
                                           UInt64(input.count)), "crypto_hash_sha256")
            }
        }
        return out
    }

    /// The first eight bytes of SHA-256 of `message`, read big-endian: a row id (decision A.6)
    /// computed without allocating the digest, since an import asks for one per record.
    public static func sha256Prefix(_ message: [UInt8]) -> UInt64 {
        ready()
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: sha256Bytes) { digest in
            message.withUnsafeBytes { input in
                require(crypto_hash_sha256(digest.baseAddress!, Sodium.bytes(input), UInt64(input.count)), "crypto_hash_sha256")
            }
            var prefix: UInt64 = 0
            for index in 0..<8 { prefix = prefix << 8 | UInt64(digest[index]) }
            return prefix
        }
    }

    /// HMAC-SHA256 with a key of any length (`crypto_auth_hmacsha256_init` accepts any size).
    public static func hmacSHA256<Key: ContiguousBytes, Message: ContiguousBytes>(key: Key, message: Message) -> [UInt8] {
        ready()
        var state = crypto_auth_hmacsha256_state()
        var out = [UInt8](repeating: 0, count: Int(crypto_auth_hmacsha256_BYTES))
        key.withUnsafeBytes { k in
            require(crypto_auth_hmacsha256_init(&state, Sodium.bytes(k), k.count), "crypto_auth_hmacsha256_init")
        }
        message.withUnsafeBytes { m in
            require(crypto_auth_hmacsha256_update(&state, Sodium.bytes(m), UInt64(m.count)), "crypto_auth_hmacsha256_update")
        }
        out.withUnsafeMutableBytes { o in
            require(crypto_auth_hmacsha256_final(&state, o.baseAddress!.assumingMemoryBound(to: UInt8.self)), "crypto_auth_hmacsha256_final")
        }
        sodium_memzero(&state, MemoryLayout<crypto_auth_hmacsha256_state>.size)
        return out
    }

    /// HMAC-SHA256 over `parts` one after another, as a secret: the steps of HKDF, whose key or
    /// message may be a secret and whose output always is. No part is copied into a joined array.
    public static func hmacSHA256<Key: SodiumBytes>(key: Key, parts: [any SodiumBytes]) -> SecretBytes {
        ready()
        var state = crypto_auth_hmacsha256_state()
        defer { sodium_memzero(&state, MemoryLayout<crypto_auth_hmacsha256_state>.size) }
        key.withSodiumBytes { k in
            require(crypto_auth_hmacsha256_init(&state, Sodium.bytes(k), k.count), "crypto_auth_hmacsha256_init")
        }
        for part in parts {
            part.withSodiumBytes { m in
                require(crypto_auth_hmacsha256_update(&state, Sodium.bytes(m), UInt64(m.count)), "crypto_auth_hmacsha256_update")
            }
        }
        return SecretBytes(count: Int(crypto_auth_hmacsha256_BYTES)) { o in
            require(crypto_auth_hmacsha256_final(&state, o.baseAddress!.assumingMemoryBound(to: UInt8.self)), "crypto_auth_hmacsha256_final")
        }
    }

    /// An incremental SHA-256 for bodies that arrive in pieces.
    public struct SHA256Stream {
        private var state = crypto_hash_sha256_state()

        public init() {
            Sodium.ready()
            Sodium.require(crypto_hash_sha256_init(&state), "crypto_hash_sha256_init")
        }

        public mutating func update<Bytes: ContiguousBytes>(_ bytes: Bytes) {
            bytes.withUnsafeBytes { b in
                Sodium.require(crypto_hash_sha256_update(&state, Sodium.bytes(b), UInt64(b.count)), "crypto_hash_sha256_update")
            }
        }

        public mutating func finish() -> [UInt8] {
            var out = [UInt8](repeating: 0, count: Sodium.sha256Bytes)
            out.withUnsafeMutableBytes { o in
                Sodium.require(crypto_hash_sha256_final(&state, o.baseAddress!.assumingMemoryBound(to: UInt8.self)), "crypto_hash_sha256_final")
            }
            return out
        }
    }

    /// Compares two secrets in time that depends only on their length (`sodium_memcmp`).
    public static func constantTimeEqual<A: ContiguousBytes, B: ContiguousBytes>(_ a: A, _ b: B) -> Bool {
        ready()
        return a.withUnsafeBytes { x in
            b.withUnsafeBytes { y in
                guard x.count == y.count else { return false }
                if x.count == 0 { return true }
                return sodium_memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0
            }
        }
    }

    // MARK: X25519

    public static let x25519Bytes = 32

    /// The X25519 public key of a 32-byte private scalar (`crypto_scalarmult_base`).
    public static func x25519PublicKey(privateKey: SecretBytes) throws(SodiumError) -> [UInt8] {
        ready()
        guard privateKey.count == x25519Bytes else { throw .wrongLength("an X25519 private key", privateKey.count, x25519Bytes) }
        var out = [UInt8](repeating: 0, count: x25519Bytes)
        let rc = out.withUnsafeMutableBytes { o in
            privateKey.withUnsafeBytes { p in
                crypto_scalarmult_base(o.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                       p.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        guard rc == 0 else { throw .failed("crypto_scalarmult_base") }
        return out
    }

    /// X25519(private, public). Refuses a peer key of small order, whose shared secret is all
    /// zeros (RFC 9180 §7.1.4 requires that check; `crypto_scalarmult` returns -1 for it).
    public static func x25519(privateKey: SecretBytes, publicKey: [UInt8]) throws(SodiumError) -> SecretBytes {
        ready()
        guard privateKey.count == x25519Bytes else { throw .wrongLength("an X25519 private key", privateKey.count, x25519Bytes) }
        guard publicKey.count == x25519Bytes else { throw .wrongLength("an X25519 public key", publicKey.count, x25519Bytes) }
        var rc: Int32 = 0
        let shared = SecretBytes(count: x25519Bytes) { o in
            rc = privateKey.withUnsafeBytes { p in
                publicKey.withUnsafeBytes { q in
                    crypto_scalarmult(o.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                      p.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                      q.baseAddress!.assumingMemoryBound(to: UInt8.self))
                }
            }
        }
        guard rc == 0 else { throw .weakPublicKey }
        return shared
    }

    // MARK: Ed25519

    public static let ed25519SeedBytes = 32
    public static let ed25519PublicBytes = 32
    public static let ed25519SignatureBytes = 64

    /// The Ed25519 public key of a 32-byte seed (`crypto_sign_seed_keypair`).
    public static func ed25519PublicKey(seed: SecretBytes) throws(SodiumError) -> [UInt8] {
        try withEd25519SecretKey(seed: seed) { _, publicKey in publicKey }
    }

    /// A detached Ed25519 signature (`crypto_sign_detached`); deterministic for a seed and message.
    public static func ed25519Sign<Message: ContiguousBytes>(seed: SecretBytes, message: Message) throws(SodiumError) -> [UInt8] {
        let (signature, rc) = try withEd25519SecretKey(seed: seed) { secret, _ in
            var signature = [UInt8](repeating: 0, count: ed25519SignatureBytes)
            let rc = message.withUnsafeBytes { m in
                signature.withUnsafeMutableBytes { s in
                    secret.withUnsafeBytes { k in
                        crypto_sign_detached(s.baseAddress!.assumingMemoryBound(to: UInt8.self), nil,
                                             Sodium.bytes(m), UInt64(m.count),
                                             k.baseAddress!.assumingMemoryBound(to: UInt8.self))
                    }
                }
            }
            return (signature, rc)
        }
        try check(rc, "crypto_sign_detached")
        return signature
    }

    /// Whether `signature` is a valid Ed25519 signature of `message` by `publicKey`
    /// (`crypto_sign_verify_detached`). Wrong sizes are simply not valid.
    public static func ed25519Verify<Message: ContiguousBytes>(publicKey: [UInt8], message: Message, signature: [UInt8]) -> Bool {
        ready()
        guard publicKey.count == ed25519PublicBytes, signature.count == ed25519SignatureBytes else { return false }
        return message.withUnsafeBytes { m in
            signature.withUnsafeBytes { s in
                publicKey.withUnsafeBytes { k in
                    crypto_sign_verify_detached(s.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                                Sodium.bytes(m), UInt64(m.count),
                                                k.baseAddress!.assumingMemoryBound(to: UInt8.self)) == 0
                }
            }
        }
    }

    private static func withEd25519SecretKey<T>(seed: SecretBytes, _ body: (SecretBytes, [UInt8]) -> T) throws(SodiumError) -> T {
        ready()
        guard seed.count == ed25519SeedBytes else { throw .wrongLength("an Ed25519 private key", seed.count, ed25519SeedBytes) }
        var publicKey = [UInt8](repeating: 0, count: ed25519PublicBytes)
        var rc: Int32 = 0
        // libsodium's 64-byte secret key (seed and public half): wiped when this call returns.
        let secret = SecretBytes(count: Int(crypto_sign_SECRETKEYBYTES)) { s in
            rc = publicKey.withUnsafeMutableBytes { p in
                seed.withUnsafeBytes { d in
                    crypto_sign_seed_keypair(p.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                             s.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                             d.baseAddress!.assumingMemoryBound(to: UInt8.self))
                }
            }
        }
        try check(rc, "crypto_sign_seed_keypair")
        return body(secret, publicKey)
    }

    // MARK: AEADs

    public static let chachaKeyBytes = 32
    public static let chachaNonceBytes = 12
    public static let aeadTagBytes = 16

    /// ChaCha20-Poly1305 (IETF, RFC 8439) encryption: ciphertext followed by the 16-byte tag.
    public static func chacha20Poly1305Seal<P: ContiguousBytes, A: ContiguousBytes>(
        key: SecretBytes, nonce: [UInt8], plaintext: P, aad: A
    ) throws(SodiumError) -> [UInt8] {
        try aeadSeal(key: key, nonce: nonce, plaintext: plaintext, aad: aad, nonceBytes: chachaNonceBytes, name: "ChaCha20-Poly1305",
                     call: "crypto_aead_chacha20poly1305_ietf_encrypt") { c, clen, m, mlen, a, alen, n, k in
            crypto_aead_chacha20poly1305_ietf_encrypt(c, clen, m, mlen, a, alen, nil, n, k)
        }
    }

    /// ChaCha20-Poly1305 (IETF) decryption; throws `.forged` when the tag does not verify.
    public static func chacha20Poly1305Open<C: ContiguousBytes, A: ContiguousBytes>(
        key: SecretBytes, nonce: [UInt8], ciphertext: C, aad: A
    ) throws(SodiumError) -> [UInt8] {
        try aeadOpen(key: key, nonce: nonce, ciphertext: ciphertext, aad: aad, nonceBytes: chachaNonceBytes,
                     name: "ChaCha20-Poly1305") { m, mlen, c, clen, a, alen, n, k in
            crypto_aead_chacha20poly1305_ietf_decrypt(m, mlen, nil, c, clen, a, alen, n, k)
        }
    }

    public static let aesGCMKeyBytes = 32
    public static let aesGCMNonceBytes = 12

    /// Whether this processor can run libsodium's AES-256-GCM (it needs AES-NI and CLMUL).
    public static var aes256GCMAvailable: Bool {
        ready()
        return crypto_aead_aes256gcm_is_available() == 1
    }

    /// AES-256-GCM decryption, only for the legacy version 1 envelope (never written).
    public static func aes256GCMOpen<C: ContiguousBytes, A: ContiguousBytes>(
        key: SecretBytes, nonce: [UInt8], ciphertext: C, aad: A
    ) throws(SodiumError) -> [UInt8] {
        guard aes256GCMAvailable else { throw .unavailable("AES-256-GCM") }
        return try aeadOpen(key: key, nonce: nonce, ciphertext: ciphertext, aad: aad, nonceBytes: aesGCMNonceBytes,
                            name: "AES-256-GCM") { m, mlen, c, clen, a, alen, n, k in
            crypto_aead_aes256gcm_decrypt(m, mlen, nil, c, clen, a, alen, n, k)
        }
    }

    /// AES-256-GCM encryption: only tests make legacy version 1 envelopes (through `@testable`).
    static func aes256GCMSeal<P: ContiguousBytes, A: ContiguousBytes>(
        key: SecretBytes, nonce: [UInt8], plaintext: P, aad: A
    ) throws(SodiumError) -> [UInt8] {
        guard aes256GCMAvailable else { throw .unavailable("AES-256-GCM") }
        return try aeadSeal(key: key, nonce: nonce, plaintext: plaintext, aad: aad, nonceBytes: aesGCMNonceBytes, name: "AES-256-GCM",
                            call: "crypto_aead_aes256gcm_encrypt") { c, clen, m, mlen, a, alen, n, k in
            crypto_aead_aes256gcm_encrypt(c, clen, m, mlen, a, alen, nil, n, k)
        }
    }

    private typealias AEADEncrypt = (
        UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt64>, UnsafePointer<UInt8>, UInt64,
        UnsafePointer<UInt8>, UInt64, UnsafePointer<UInt8>, UnsafePointer<UInt8>
    ) -> Int32

    /// Seals with one of libsodium's AEADs: sizes checked first, the return code after.
    private static func aeadSeal<P: ContiguousBytes, A: ContiguousBytes>(
        key: SecretBytes, nonce: [UInt8], plaintext: P, aad: A, nonceBytes: Int, name: String, call: String, encrypt: AEADEncrypt
    ) throws(SodiumError) -> [UInt8] {
        ready()
        guard key.count == 32 else { throw .wrongLength("a \(name) key", key.count, 32) }
        guard nonce.count == nonceBytes else { throw .wrongLength("a \(name) nonce", nonce.count, nonceBytes) }
        let (sealed, rc) = plaintext.withUnsafeBytes { p in
            var out = [UInt8](repeating: 0, count: p.count + aeadTagBytes)
            var written: UInt64 = 0
            let rc = aad.withUnsafeBytes { a in
                out.withUnsafeMutableBytes { o in
                    key.withUnsafeBytes { k in
                        nonce.withUnsafeBytes { n in
                            encrypt(o.baseAddress!.assumingMemoryBound(to: UInt8.self), &written,
                                    Sodium.bytes(p), UInt64(p.count),
                                    Sodium.bytes(a), UInt64(a.count),
                                    n.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                    k.baseAddress!.assumingMemoryBound(to: UInt8.self))
                        }
                    }
                }
            }
            return (out, rc)
        }
        try check(rc, call)
        return sealed
    }

    private typealias AEADDecrypt = (
        UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt64>, UnsafePointer<UInt8>, UInt64,
        UnsafePointer<UInt8>, UInt64, UnsafePointer<UInt8>, UnsafePointer<UInt8>
    ) -> Int32

    private static func aeadOpen<C: ContiguousBytes, A: ContiguousBytes>(
        key: SecretBytes, nonce: [UInt8], ciphertext: C, aad: A, nonceBytes: Int, name: String, decrypt: AEADDecrypt
    ) throws(SodiumError) -> [UInt8] {
        ready()
        guard key.count == 32 else { throw .wrongLength("a \(name) key", key.count, 32) }
        guard nonce.count == nonceBytes else { throw .wrongLength("a \(name) nonce", nonce.count, nonceBytes) }
        let result: [UInt8]? = ciphertext.withUnsafeBytes { c in
            guard c.count >= aeadTagBytes else { return nil }
            // One spare byte so an empty plaintext still has an address to write to.
            var out = [UInt8](repeating: 0, count: c.count - aeadTagBytes + 1)
            var written: UInt64 = 0
            let rc = aad.withUnsafeBytes { a in
                out.withUnsafeMutableBytes { o in
                    key.withUnsafeBytes { k in
                        nonce.withUnsafeBytes { n in
                            decrypt(o.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                    &written,
                                    Sodium.bytes(c), UInt64(c.count),
                                    Sodium.bytes(a), UInt64(a.count),
                                    n.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                    k.baseAddress!.assumingMemoryBound(to: UInt8.self))
                        }
                    }
                }
            }
            return rc == 0 ? Array(out.prefix(c.count - aeadTagBytes)) : nil
        }
        guard let result else { throw .forged }
        return result
    }
}

/// A failure inside libsodium or a size mismatch before calling it. Never carries key material.
public enum SodiumError: Error, Equatable, CustomStringConvertible {
    case wrongLength(String, Int, Int)
    case weakPublicKey
    case forged
    case unavailable(String)
    case failed(String)

    public var description: String {
        switch self {
        case let .wrongLength(what, got, want): "\(what) must be \(want) bytes, not \(got)."
        case .weakPublicKey: "The public key is of small order, so no shared secret can come from it."
        case .forged: "The ciphertext does not verify: it was sealed for another key or changed on the way."
        case let .unavailable(what): "This processor cannot run libsodium's \(what)."
        case let .failed(call): "libsodium's \(call) failed."
        }
    }
}
