import Testing
@testable import EfferentCrypto

@Suite struct SodiumTests {
    @Test func sha256OfEmptyIsTheKnownDigest() {
        #expect(hex(Sodium.sha256([UInt8]())) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    /// The row-id prefix is the digest's first eight bytes, big-endian (FIPS 180-2's "abc" vector).
    @Test func sha256PrefixIsTheDigestsFirstEightBytes() {
        #expect(Sodium.sha256Prefix([]) == 0xe3b0_c442_98fc_1c14)
        #expect(Sodium.sha256Prefix(Array("abc".utf8)) == 0xba78_16bf_8f01_cfea)
        let long = (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        #expect(Sodium.sha256Prefix(long) == Sodium.sha256(long).prefix(8).reduce(0) { $0 << 8 | UInt64($1) })
    }

    /// RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?".
    @Test func hmacSHA256MatchesRFC4231() {
        let mac = Sodium.hmacSHA256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        #expect(hex(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func chachaRoundTripAndForgery() throws {
        let key = Sodium.randomSecret(32), nonce = Sodium.randomBytes(12)
        let sealed = try Sodium.chacha20Poly1305Seal(key: key, nonce: nonce, plaintext: Array("day".utf8), aad: [UInt8(1)])
        #expect(try Sodium.chacha20Poly1305Open(key: key, nonce: nonce, ciphertext: sealed, aad: [UInt8(1)]) == Array("day".utf8))
        #expect(throws: SodiumError.forged) {
            try Sodium.chacha20Poly1305Open(key: key, nonce: nonce, ciphertext: sealed, aad: [UInt8(2)])
        }
        let empty = try Sodium.chacha20Poly1305Seal(key: key, nonce: nonce, plaintext: [UInt8](), aad: [UInt8]())
        #expect(try Sodium.chacha20Poly1305Open(key: key, nonce: nonce, ciphertext: empty, aad: [UInt8]()) == [])
        #expect(throws: SodiumError.forged) {
            try Sodium.chacha20Poly1305Open(key: key, nonce: nonce, ciphertext: [UInt8](repeating: 0, count: 5), aad: [UInt8]())
        }
    }

    @Test func x25519RefusesSmallOrderPeer() throws {
        let secret = Sodium.randomSecret(32)
        #expect(throws: SodiumError.weakPublicKey) {
            try Sodium.x25519(privateKey: secret, publicKey: [UInt8](repeating: 0, count: 32))
        }
    }

    @Test func ed25519SignsAndVerifies() throws {
        let seed = Sodium.randomSecret(32)
        let pub = try Sodium.ed25519PublicKey(seed: seed)
        let sig = try Sodium.ed25519Sign(seed: seed, message: Array("m".utf8))
        #expect(Sodium.ed25519Verify(publicKey: pub, message: Array("m".utf8), signature: sig))
        #expect(!Sodium.ed25519Verify(publicKey: pub, message: Array("n".utf8), signature: sig))
        #expect(!Sodium.ed25519Verify(publicKey: pub, message: Array("m".utf8), signature: Array(sig.dropLast())))
    }

    /// Every libsodium return code is read: a failing call throws an error naming it, and one
    /// libsodium documents as unable to fail stops the process rather than hand out a digest.
    @Test func returnCodesAreChecked() throws {
        try Sodium.check(0, "crypto_sign_detached")
        let error = try #require(throws: SodiumError.self) { try Sodium.check(-1, "crypto_sign_detached") }
        #expect(error == .failed("crypto_sign_detached"))
        #expect(error.description == "libsodium's crypto_sign_detached failed.")
        Sodium.require(0, "crypto_hash_sha256")
    }

    @Test func aCallThatCannotFailStopsWhenItDoes() async {
        await #expect(processExitsWith: .failure) { Sodium.require(-1, "crypto_hash_sha256") }
    }

    /// Secret bytes are wiped when they go and never show themselves: not in a description, a
    /// debug description, a dump, or a string they are interpolated into.
    @Test func secretBytesNeverPrintAndAreWiped() {
        let bytes: [UInt8] = [0xC0, 0xFF, 0xEE, 0x42] + [UInt8](repeating: 0x5A, count: 28)
        let secret = SecretBytes(bytes)
        var dumped = ""
        dump(secret, to: &dumped)
        for shown in [secret.description, secret.debugDescription, String(reflecting: secret), "\(secret)", dumped] {
            #expect(shown.contains("32 bytes"))
            #expect(!shown.lowercased().contains("c0ffee") && !shown.contains("192") && !shown.contains("[0x"), "\(shown)")
        }
        #expect(secret.revealed() == bytes)
        #expect(secret == SecretBytes(bytes) && secret != SecretBytes(Array(bytes.dropLast())))
        #expect(secret.prefix(4).revealed() == [0xC0, 0xFF, 0xEE, 0x42])
        #expect(SecretBytes.joined([secret.prefix(2), SecretBytes([9])]).revealed() == [0xC0, 0xFF, 9])
        secret.wipe()
        #expect(secret.revealed() == [UInt8](repeating: 0, count: 32), "what deinit does before the memory goes back")
    }

    /// HMAC over parts, as HKDF uses it, equals HMAC over the parts joined.
    @Test func hmacOverPartsIsHMACOverTheWhole() {
        let key = SecretBytes(Array("Jefe".utf8))
        let parts: [any SodiumBytes] = [Array("what do ya ".utf8), SecretBytes(Array("want for ".utf8)), Array("nothing?".utf8)[...]]
        #expect(hex(Sodium.hmacSHA256(key: key, parts: parts).revealed())
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func constantTimeEqual() {
        #expect(Sodium.constantTimeEqual([UInt8(1), 2], [UInt8(1), 2]))
        #expect(!Sodium.constantTimeEqual([UInt8(1), 2], [UInt8(1), 3]))
        #expect(!Sodium.constantTimeEqual([UInt8(1), 2], [UInt8(1)]))
    }
}

func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

import Foundation

/// The binding's AES-256-GCM with the tag apart (what JWE carries) and Argon2id storage strings.
@Suite struct SodiumLinkPrimitiveTests {
    @Test func detachedAESGCMSealsAndOpens() throws {
        let key = Sodium.randomSecret(32), nonce = Sodium.randomBytes(12)
        let sealed = try Sodium.aes256GCMSealDetached(key: key, nonce: nonce, plaintext: Array("bundle".utf8), aad: Array("header".utf8))
        #expect(sealed.ciphertext.count == 6 && sealed.tag.count == 16)
        #expect(try Sodium.aes256GCMOpenDetached(key: key, nonce: nonce, ciphertext: sealed.ciphertext, tag: sealed.tag,
                                                  aad: Array("header".utf8)) == Array("bundle".utf8))
        #expect(throws: SodiumError.forged) {
            try Sodium.aes256GCMOpenDetached(key: key, nonce: nonce, ciphertext: sealed.ciphertext, tag: sealed.tag, aad: Array("other".utf8))
        }
        let empty = try Sodium.aes256GCMSealDetached(key: key, nonce: nonce, plaintext: [UInt8](), aad: [UInt8]())
        #expect(try Sodium.aes256GCMOpenDetached(key: key, nonce: nonce, ciphertext: empty.ciphertext, tag: empty.tag, aad: [UInt8]()).isEmpty)
        #expect(throws: SodiumError.self) { try Sodium.aes256GCMSealDetached(key: Sodium.randomSecret(16), nonce: nonce, plaintext: [UInt8](), aad: [UInt8]()) }
    }

    @Test func argon2idStringsCheckTheirOwnPasswordOnly() throws {
        // The cheapest limits libsodium takes, so the test spends no 64 MiB.
        let hash = try Sodium.passwordHash("correct horse", opsLimit: 1, memLimit: 8192)
        #expect(hash.hasPrefix("$argon2id$") && !hash.contains("correct"))
        #expect(Sodium.passwordMatches("correct horse", hash: hash))
        #expect(!Sodium.passwordMatches("correct hors", hash: hash))
        #expect(!Sodium.passwordMatches("", hash: hash))
        #expect(!Sodium.passwordMatches("correct horse", hash: "not a hash"))
        #expect(try Sodium.passwordHash("correct horse", opsLimit: 1, memLimit: 8192) != hash, "each hash has its own salt")
    }
}
