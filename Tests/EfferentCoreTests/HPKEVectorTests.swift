import Foundation
import Testing
@testable import EfferentCore

/// RFC 9180 Appendix A known answers for DHKEM(X25519, HKDF-SHA256), HKDF-SHA256,
/// ChaCha20-Poly1305, decoded into structs whose property names are the file's keys.
struct HPKEVector: Decodable {
    struct Encryption: Decodable { let aad, ct, nonce, pt: String }
    struct Export: Decodable { let exporter_context: String; let L: Int; let exported_value: String }
    let mode, kem_id, kdf_id, aead_id: Int
    let info, ikmE, skRm, skEm, pkRm, pkEm, enc, shared_secret, key_schedule_context: String
    let secret, key, base_nonce, exporter_secret: String
    let encryptions: [Encryption]
    let exports: [Export]
}

@Suite struct HPKEVectorTests {
    static let vectors: [HPKEVector] = {
        // A missing or unreadable vector file must fail the suite, not skip it.
        let data = try! Fixtures.data("rfc9180-x25519-sha256-chacha20poly1305.json")
        return try! JSONDecoder().decode([HPKEVector].self, from: data)
    }()

    /// Only base mode is implemented (Efferent uses nothing else); the file's modes 1–3 are
    /// skipped by name here, and at least one base-mode vector must be present.
    static var baseMode: [HPKEVector] { vectors.filter { $0.mode == 0 } }

    @Test func fileHoldsTheSuiteAndABaseModeVector() {
        #expect(!Self.baseMode.isEmpty)
        for v in Self.vectors {
            #expect(v.kem_id == Int(HPKE.kemID) && v.kdf_id == Int(HPKE.kdfID) && v.aead_id == Int(HPKE.aeadID))
        }
    }

    @Test(arguments: HPKEVectorTests.baseMode.indices)
    func baseModeVector(_ index: Int) throws {
        let v = Self.baseMode[index]
        let ephemeral = HPKE.deriveKeyPair(ikm: [UInt8](hex: v.ikmE))
        #expect(ephemeral.rawRepresentation.hex == v.skEm)
        #expect(ephemeral.publicKey.rawRepresentation.hex == v.pkEm)
        let recipient = try X25519PrivateKey(rawRepresentation: [UInt8](hex: v.skRm))
        #expect(recipient.publicKey.rawRepresentation.hex == v.pkRm)

        var (enc, sender) = try HPKE.setupBaseSender(recipient: recipient.publicKey, info: [UInt8](hex: v.info), ephemeral: ephemeral)
        #expect(enc.hex == v.enc)
        #expect(sender.schedule.keyScheduleContext.hex == v.key_schedule_context)
        #expect(sender.schedule.secret.hex == v.secret)
        #expect(sender.schedule.key.hex == v.key)
        #expect(sender.schedule.baseNonce.hex == v.base_nonce)
        #expect(sender.schedule.exporterSecret.hex == v.exporter_secret)
        #expect(try HPKE.decap(enc: enc, recipient: recipient).hex == v.shared_secret)

        var receiver = try HPKE.setupBaseRecipient(enc: enc, recipient: recipient, info: [UInt8](hex: v.info))
        for (sequence, e) in v.encryptions.enumerated() {
            #expect(try HPKE.nonce(base: sender.schedule.baseNonce, sequence: UInt64(sequence)).hex == e.nonce)
            let ct = try sender.seal([UInt8](hex: e.pt), aad: [UInt8](hex: e.aad))
            #expect(ct.hex == e.ct, "encryption \(sequence)")
            #expect(try receiver.open([UInt8](hex: e.ct), aad: [UInt8](hex: e.aad)).hex == e.pt, "decryption \(sequence)")
        }
        for x in v.exports {
            #expect(sender.export(context: [UInt8](hex: x.exporter_context), length: x.L).hex == x.exported_value)
            #expect(receiver.export(context: [UInt8](hex: x.exporter_context), length: x.L).hex == x.exported_value)
        }
    }

    /// The vector embedded in Efferent's Python and Node readers' `--self-test` (RFC 9180 A.2.1,
    /// first encryption), checked through the single-shot API.
    @Test func singleShotOpenOfA21() throws {
        let v = try #require(Self.baseMode.first)
        let recipient = try X25519PrivateKey(rawRepresentation: [UInt8](hex: v.skRm))
        let first = try #require(v.encryptions.first)
        let pt = try HPKE.open([UInt8](hex: first.ct), enc: [UInt8](hex: v.enc), recipient: recipient,
                               info: [UInt8](hex: v.info), aad: [UInt8](hex: first.aad))
        #expect(String(decoding: pt, as: UTF8.self) == "Beauty is truth, truth beauty")
    }

    @Test func openingOutOfSequenceFails() throws {
        let v = try #require(Self.baseMode.first)
        let recipient = try X25519PrivateKey(rawRepresentation: [UInt8](hex: v.skRm))
        var receiver = try HPKE.setupBaseRecipient(enc: [UInt8](hex: v.enc), recipient: recipient, info: [UInt8](hex: v.info))
        let second = v.encryptions[1]
        #expect(throws: HPKEError.openFailed) { try receiver.open([UInt8](hex: second.ct), aad: [UInt8](hex: second.aad)) }
    }

    @Test func smallOrderEncapsulationIsRefused() throws {
        let recipient = X25519PrivateKey()
        #expect(throws: HPKEError.weakPublicKey) {
            try HPKE.setupBaseRecipient(enc: [UInt8](repeating: 0, count: 32), recipient: recipient, info: [])
        }
        #expect(throws: HPKEError.malformedEncapsulation) {
            try HPKE.setupBaseRecipient(enc: [UInt8](repeating: 9, count: 31), recipient: recipient, info: [])
        }
    }
}
