import Foundation
import Testing
@testable import EfferentCrypto

/// The recovery kit's libsodium calls against answers computed by other implementations: PyCA
/// cryptography's Argon2id, Python's hashlib BLAKE2b, and draft-irtf-cfrg-xchacha-03's vector.
@Suite struct SodiumRecoveryTests {
    static let passphrase = SecretBytes(Array("correct horse battery staple".utf8))
    static let salt = (0..<16).map { UInt8($0) }

    /// PyCA `Argon2id(salt=bytes(range(16)), length=32, iterations=2, lanes=1, memory_cost=65536)`:
    /// libsodium's crypto_pwhash is Argon2id v1.3 with one lane, memory in bytes (here 64 MiB).
    @Test func argon2idMatchesAnIndependentImplementation() throws {
        let key = try Sodium.argon2id(password: Self.passphrase, salt: Self.salt, limits: .interactive)
        #expect(hex(key.revealed()) == "c05ce4c4dd7e0e45ee6011cc59d068ade47df1b01fc0cf9cd4678bdf68a5b7b0")
        #expect(Sodium.PasswordHashLimits.interactive == Sodium.PasswordHashLimits(operations: 2, memoryBytes: 64 << 20))
    }

    /// The limits every kit uses: 3 passes over 256 MiB (PyCA `iterations=3, memory_cost=262144`).
    @Test func argon2idAtModerateLimits() throws {
        #expect(Sodium.PasswordHashLimits.moderate == Sodium.PasswordHashLimits(operations: 3, memoryBytes: 256 << 20))
        let key = try Sodium.argon2id(password: Self.passphrase, salt: Self.salt, limits: .moderate)
        #expect(hex(key.revealed()) == "aad608b5866cef907f47d5cae529ed01a91301c92c5d5fef46e1a65e394e5742")
    }

    @Test func argon2idRefusesBadInput() {
        #expect(throws: SodiumError.wrongLength("an Argon2id salt", 8, 16)) {
            try Sodium.argon2id(password: Self.passphrase, salt: [UInt8](repeating: 0, count: 8), limits: .interactive)
        }
        #expect(!Sodium.PasswordHashLimits(operations: 0, memoryBytes: 1 << 20).isAccepted)
    }

    /// draft-irtf-cfrg-xchacha-03, appendix A.3.1.
    @Test func xchachaMatchesTheDraftsVector() throws {
        let plaintext = Array("Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.".utf8)
        let aad = bytes("50515253c0c1c2c3c4c5c6c7")
        let key = SecretBytes(bytes("808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"))
        let nonce = bytes("404142434445464748494a4b4c4d4e4f5051525354555657")
        let sealed = try Sodium.xchacha20Poly1305Seal(key: key, nonce: nonce, plaintext: plaintext, aad: aad)
        #expect(hex(sealed) == "bd6d179d3e83d43b9576579493c0e939572a1700252bfaccbed2902c21396cbb731c7f1b0b4aa6440bf3a82f4eda7e39ae64c6708c54c216cb96b72e1213b4522f8c9ba40db5d945b11b69b982c1bb9e3f3fac2bc369488f76b2383565d3fff921f9664c97637da9768812f615c68b13b52e"
            + "c0875924c1c7987947deafd8780acf49")
        #expect(try Sodium.xchacha20Poly1305Open(key: key, nonce: nonce, ciphertext: sealed, aad: aad).revealed() == plaintext)
        // Other associated data, a flipped byte, a cut: each is refused.
        #expect(throws: SodiumError.forged) { try Sodium.xchacha20Poly1305Open(key: key, nonce: nonce, ciphertext: sealed, aad: [UInt8]()) }
        var flipped = sealed
        flipped[7] ^= 1
        #expect(throws: SodiumError.forged) { try Sodium.xchacha20Poly1305Open(key: key, nonce: nonce, ciphertext: flipped, aad: aad) }
        #expect(throws: SodiumError.forged) { try Sodium.xchacha20Poly1305Open(key: key, nonce: nonce, ciphertext: Array(sealed.prefix(10)), aad: aad) }
        let empty = try Sodium.xchacha20Poly1305Seal(key: key, nonce: nonce, plaintext: [UInt8](), aad: aad)
        #expect(try Sodium.xchacha20Poly1305Open(key: key, nonce: nonce, ciphertext: empty, aad: aad).count == 0)
    }

    /// Python: `hashlib.blake2b(b"abc", digest_size=32)` and the keyed form the kit's locator uses.
    @Test func blake2bMatchesPythonsHashlib() throws {
        #expect(hex(try Sodium.blake2b(Array("abc".utf8)).revealed()) == "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319")
        let keyed = try Sodium.blake2b(Array("efferent-kit/v1 locator".utf8), key: SecretBytes((0..<32).map { UInt8($0) }), outputBytes: 16)
        #expect(hex(keyed.revealed()) == "d7653c73219ccb986d770fa121f2cc18")
    }

    /// Subkeys differ by id and context, and each is a function of the key alone.
    @Test func subkeysAreIndependentAndStable() throws {
        let key = SecretBytes((0..<32).map { UInt8($0) })
        let one = try Sodium.deriveSubkey(from: key, id: 1, context: "effrotat"), two = try Sodium.deriveSubkey(from: key, id: 2, context: "effrotat")
        #expect(one != two)
        #expect(one == (try Sodium.deriveSubkey(from: key, id: 1, context: "effrotat")))
        #expect(one != (try Sodium.deriveSubkey(from: key, id: 1, context: "otherctx")))
        #expect(throws: SodiumError.wrongLength("a KDF context", 5, 8)) { try Sodium.deriveSubkey(from: key, id: 1, context: "short") }
    }

    func bytes(_ text: String) -> [UInt8] {
        stride(from: 0, to: text.count, by: 2).map { UInt8(text.dropFirst($0).prefix(2), radix: 16)! }
    }
}
