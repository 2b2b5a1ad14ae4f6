@testable import EfferentCore
@testable import EfferentCrypto

extension SealedEnvelope {
    /// A legacy version 1 envelope (§2.2). Efferent never writes one; tests make them to check
    /// that old archives still open.
    static func sealLegacy(_ plaintext: [UInt8], to recipient: X25519PublicKey, aad: EnvelopeAAD) throws -> [UInt8] {
        let ephemeral = X25519PrivateKey()
        let shared = try ephemeral.sharedSecret(with: recipient)
        let key = HKDF.deriveKey(ikm: shared, salt: ephemeral.publicKey.rawRepresentation + recipient.rawRepresentation,
                                 info: legacyInfo, length: 32)
        let nonce = Sodium.randomBytes(12)
        let ciphertext = try Sodium.aes256GCMSeal(key: key, nonce: nonce, plaintext: plaintext, aad: aad.bytes)
        return [version1] + ephemeral.publicKey.rawRepresentation + nonce + ciphertext
    }
}
