import EfferentCrypto

/// RFC 9180 HPKE in base mode for the one suite Efferent uses: DHKEM(X25519, HKDF-SHA256)
/// (KEM 0x0020), HKDF-SHA256 (KDF 0x0001), ChaCha20-Poly1305 (AEAD 0x0003).
///
/// The primitives are libsodium's; only the key schedule (RFC 9180 §4, §5.1) is written here,
/// because libsodium has no HPKE. Nothing here is public: `SealedEnvelope` is the protocol's way
/// in, and the published vectors check each step through `@testable import`. Every secret the
/// schedule derives is `SecretBytes`.
enum HPKE {
    /// RFC 9180 §7.1 / §7.2 / §7.3 identifiers.
    static let kemID: UInt16 = 0x0020
    static let kdfID: UInt16 = 0x0001
    static let aeadID: UInt16 = 0x0003

    /// `"KEM" || I2OSP(kem_id, 2)` (RFC 9180 §4.1).
    static let kemSuiteID: [UInt8] = Array("KEM".utf8) + i2osp(kemID)
    /// `"HPKE" || I2OSP(kem_id, 2) || I2OSP(kdf_id, 2) || I2OSP(aead_id, 2)` (RFC 9180 §5.1).
    static let suiteID: [UInt8] = Array("HPKE".utf8) + i2osp(kemID) + i2osp(kdfID) + i2osp(aeadID)

    static let encBytes = 32
    static let keyBytes = 32
    static let nonceBytes = 12
    static let secretBytes = 32
    static let tagBytes = 16
    static let modeBase: UInt8 = 0x00

    // MARK: RFC 9180 §4: labeled HKDF

    static func labeledExtract<Salt: SodiumBytes, IKM: SodiumBytes>(suite: [UInt8], salt: Salt, label: String,
                                                                           ikm: IKM) -> SecretBytes {
        HKDF.extract(salt: salt, ikm: [Array("HPKE-v1".utf8) + suite + Array(label.utf8), ikm])
    }

    static func labeledExpand(suite: [UInt8], prk: SecretBytes, label: String, info: [UInt8], length: Int) -> SecretBytes {
        HKDF.expand(prk: prk, info: i2osp(UInt16(length)) + Array("HPKE-v1".utf8) + suite + Array(label.utf8) + info,
                    length: length)
    }

    static func i2osp(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }

    // MARK: RFC 9180 §4.1 / §7.1.3: DHKEM(X25519, HKDF-SHA256)

    /// DeriveKeyPair (RFC 9180 §7.1.3) for X25519: the published vectors' ephemeral keys come from it.
    static func deriveKeyPair(ikm: [UInt8]) -> X25519PrivateKey {
        let prk = labeledExtract(suite: kemSuiteID, salt: [UInt8](), label: "dkp_prk", ikm: ikm)
        let sk = labeledExpand(suite: kemSuiteID, prk: prk, label: "sk", info: [], length: 32)
        // 32 bytes always make an X25519 key (the scalar is clamped by X25519 itself).
        return try! X25519PrivateKey(rawRepresentation: sk)
    }

    static func extractAndExpand(dh: SecretBytes, kemContext: [UInt8]) -> SecretBytes {
        let prk = labeledExtract(suite: kemSuiteID, salt: [UInt8](), label: "eae_prk", ikm: dh)
        return labeledExpand(suite: kemSuiteID, prk: prk, label: "shared_secret", info: kemContext, length: secretBytes)
    }

    static func encap(recipient: X25519PublicKey, ephemeral: X25519PrivateKey) throws(HPKEError) -> (sharedSecret: SecretBytes, enc: [UInt8]) {
        guard let dh = try? ephemeral.sharedSecret(with: recipient) else { throw .weakPublicKey }
        let enc = ephemeral.publicKey.rawRepresentation
        return (extractAndExpand(dh: dh, kemContext: enc + recipient.rawRepresentation), enc)
    }

    static func decap(enc: [UInt8], recipient: X25519PrivateKey) throws(HPKEError) -> SecretBytes {
        guard enc.count == encBytes, let ephemeral = try? X25519PublicKey(rawRepresentation: enc) else { throw .malformedEncapsulation }
        guard let dh = try? recipient.sharedSecret(with: ephemeral) else { throw .weakPublicKey }
        return extractAndExpand(dh: dh, kemContext: enc + recipient.publicKey.rawRepresentation)
    }

    // MARK: RFC 9180 §5.1: key schedule, base mode

    /// What the key schedule yields (the published vectors check each field).
    struct KeySchedule: Sendable {
        let keyScheduleContext: [UInt8]
        let secret: SecretBytes
        let key: SecretBytes
        /// Not a key: every nonce is derived from it and none is ever sent.
        let baseNonce: [UInt8]
        let exporterSecret: SecretBytes
    }

    static func keySchedule(sharedSecret: SecretBytes, info: [UInt8]) -> KeySchedule {
        let context = scheduleContext(info: info)
        let secret = labeledExtract(suite: suiteID, salt: sharedSecret, label: "secret", ikm: [UInt8]())
        return KeySchedule(
            keyScheduleContext: context,
            secret: secret,
            key: labeledExpand(suite: suiteID, prk: secret, label: "key", info: context, length: keyBytes),
            baseNonce: labeledExpand(suite: suiteID, prk: secret, label: "base_nonce", info: context, length: nonceBytes).revealed(),
            exporterSecret: labeledExpand(suite: suiteID, prk: secret, label: "exp", info: context, length: 32))
    }

    /// `mode || psk_id_hash || info_hash`; Efferent's own info is computed once.
    static func scheduleContext(info: [UInt8]) -> [UInt8] {
        if info == SealedEnvelope.info { return efferentScheduleContext }
        return computeScheduleContext(info: info)
    }

    private static let efferentScheduleContext = computeScheduleContext(info: SealedEnvelope.info)

    private static func computeScheduleContext(info: [UInt8]) -> [UInt8] {
        // Hashes of public inputs: not secrets, so they join the context as plain bytes.
        let pskIDHash = labeledExtract(suite: suiteID, salt: [UInt8](), label: "psk_id_hash", ikm: [UInt8]()).revealed()
        let infoHash = labeledExtract(suite: suiteID, salt: [UInt8](), label: "info_hash", ikm: info).revealed()
        return [modeBase] + pskIDHash + infoHash
    }

    // MARK: RFC 9180 §5.2 / §5.3: contexts

    /// The sender's half of an HPKE context: seals messages in sequence and exports secrets.
    struct SenderContext: Sendable {
        let schedule: KeySchedule
        private var sequence: UInt64 = 0

        init(schedule: KeySchedule) { self.schedule = schedule }

        /// Seals the next message (RFC 9180 §5.2): ciphertext followed by the 16-byte tag.
        mutating func seal(_ plaintext: [UInt8], aad: [UInt8]) throws(HPKEError) -> [UInt8] {
            let nonce = try HPKE.nonce(base: schedule.baseNonce, sequence: sequence)
            guard let sealed = try? Sodium.chacha20Poly1305Seal(key: schedule.key, nonce: nonce, plaintext: plaintext, aad: aad) else {
                throw .sealFailed
            }
            sequence += 1
            return sealed
        }

        /// RFC 9180 §5.3 secret export.
        func export(context: [UInt8], length: Int) -> SecretBytes {
            HPKE.export(secret: schedule.exporterSecret, context: context, length: length)
        }
    }

    /// The recipient's half of an HPKE context: opens messages in sequence and exports secrets.
    struct RecipientContext: Sendable {
        let schedule: KeySchedule
        private var sequence: UInt64 = 0

        init(schedule: KeySchedule) { self.schedule = schedule }

        /// Opens the next message; throws `.openFailed` when the tag does not verify.
        mutating func open(_ ciphertext: [UInt8], aad: [UInt8]) throws(HPKEError) -> [UInt8] {
            let nonce = try HPKE.nonce(base: schedule.baseNonce, sequence: sequence)
            guard let plaintext = try? Sodium.chacha20Poly1305Open(key: schedule.key, nonce: nonce, ciphertext: ciphertext, aad: aad) else {
                throw .openFailed
            }
            sequence += 1
            return plaintext
        }

        func export(context: [UInt8], length: Int) -> SecretBytes {
            HPKE.export(secret: schedule.exporterSecret, context: context, length: length)
        }
    }

    static func export(secret: SecretBytes, context: [UInt8], length: Int) -> SecretBytes {
        labeledExpand(suite: suiteID, prk: secret, label: "sec", info: context, length: length)
    }

    /// `base_nonce XOR I2OSP(seq, Nn)` (RFC 9180 §5.2).
    static func nonce(base: [UInt8], sequence: UInt64) throws(HPKEError) -> [UInt8] {
        guard sequence < UInt64.max else { throw .sequenceOverflow }
        var nonce = base
        var seq = sequence
        for index in stride(from: nonce.count - 1, through: nonce.count - 8, by: -1) {
            nonce[index] ^= UInt8(seq & 0xFF)
            seq >>= 8
        }
        return nonce
    }

    /// SetupBaseS (RFC 9180 §5.1.1). `ephemeral` is for known-answer tests; leave it out otherwise.
    static func setupBaseSender(recipient: X25519PublicKey, info: [UInt8],
                                       ephemeral: X25519PrivateKey = X25519PrivateKey()) throws(HPKEError) -> (enc: [UInt8], context: SenderContext) {
        let (sharedSecret, enc) = try encap(recipient: recipient, ephemeral: ephemeral)
        return (enc, SenderContext(schedule: keySchedule(sharedSecret: sharedSecret, info: info)))
    }

    /// SetupBaseR (RFC 9180 §5.1.1).
    static func setupBaseRecipient(enc: [UInt8], recipient: X25519PrivateKey, info: [UInt8]) throws(HPKEError) -> RecipientContext {
        RecipientContext(schedule: keySchedule(sharedSecret: try decap(enc: enc, recipient: recipient), info: info))
    }

    /// Single-shot seal (RFC 9180 §6.1): one message at sequence 0.
    static func seal(_ plaintext: [UInt8], to recipient: X25519PublicKey, info: [UInt8], aad: [UInt8]) throws(HPKEError) -> (enc: [UInt8], ciphertext: [UInt8]) {
        var (enc, context) = try setupBaseSender(recipient: recipient, info: info)
        return (enc, try context.seal(plaintext, aad: aad))
    }

    /// Single-shot open (RFC 9180 §6.1).
    static func open(_ ciphertext: [UInt8], enc: [UInt8], recipient: X25519PrivateKey, info: [UInt8], aad: [UInt8]) throws(HPKEError) -> [UInt8] {
        var context = try setupBaseRecipient(enc: enc, recipient: recipient, info: info)
        return try context.open(ciphertext, aad: aad)
    }
}

enum HPKEError: Error, Equatable, CustomStringConvertible {
    case weakPublicKey
    case malformedEncapsulation
    case openFailed
    case sealFailed
    case sequenceOverflow

    var description: String {
        switch self {
        case .weakPublicKey: "The key it was sealed with is of small order, so nothing can be sealed to or opened from it."
        case .malformedEncapsulation: "The encapsulated key is not 32 bytes."
        case .openFailed: "It does not open with this key: it was sealed for another key, for another day or bucket, or changed since."
        case .sealFailed: "Sealing failed inside libsodium."
        case .sequenceOverflow: "This HPKE context has sealed as many messages as it can."
        }
    }
}
