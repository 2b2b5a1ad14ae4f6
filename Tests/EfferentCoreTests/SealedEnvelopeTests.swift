import Testing
@testable import EfferentCrypto
@testable import EfferentCore

@Suite struct SealedEnvelopeTests {
    let reading = X25519PrivateKey()
    let day = CalendarDay("2026-08-07")!
    let bucket = "vkup75ydwufsff7u63qtkchxeq"

    /// §2.1: the AAD example, byte for byte.
    @Test func dayAndEditAAD() {
        #expect(EnvelopeAAD.day(bucket: bucket, day: day).bytes == Array("efferent/v1\nvkup75ydwufsff7u63qtkchxeq\n2026-08-07".utf8))
        #expect(EnvelopeAAD.edit(bucket: bucket).bytes == Array("efferent/v1 edit\nvkup75ydwufsff7u63qtkchxeq".utf8))
    }

    @Test func version2LayoutAndRoundTrip() throws {
        let plaintext = Array("{\"series\":[],\"v\":2}".utf8)
        let sealed = try SealedEnvelope.seal(plaintext, to: reading.publicKey, aad: .day(bucket: bucket, day: day))
        #expect(sealed.first == 0x02)
        #expect(sealed.count == plaintext.count + SealedEnvelope.overhead)
        #expect(try SealedEnvelope.open(sealed, with: reading, aad: .day(bucket: bucket, day: day)) == plaintext)
        let again = try SealedEnvelope.seal(plaintext, to: reading.publicKey, aad: .day(bucket: bucket, day: day))
        #expect(again != sealed, "sealing is randomised by its ephemeral key")
    }

    @Test func wrongBindingKeyOrBytesDoNotOpen() throws {
        let aad = EnvelopeAAD.day(bucket: bucket, day: day)
        let sealed = try SealedEnvelope.seal(Array("hello".utf8), to: reading.publicKey, aad: aad)
        #expect(throws: EnvelopeError.doesNotOpen) { try SealedEnvelope.open(sealed, with: reading, aad: .day(bucket: bucket, day: day.next)) }
        #expect(throws: EnvelopeError.doesNotOpen) { try SealedEnvelope.open(sealed, with: reading, aad: .day(bucket: "a" + bucket.dropFirst(), day: day)) }
        #expect(throws: EnvelopeError.doesNotOpen) { try SealedEnvelope.open(sealed, with: reading, aad: .edit(bucket: bucket)) }
        #expect(throws: EnvelopeError.doesNotOpen) { try SealedEnvelope.open(sealed, with: X25519PrivateKey(), aad: aad) }
        for index in sealed.indices.dropFirst() {
            var flipped = sealed
            flipped[index] ^= 0x01
            #expect(throws: EnvelopeError.self) { try SealedEnvelope.open(flipped, with: reading, aad: aad) }
        }
        for length in 0..<sealed.count {
            #expect(throws: EnvelopeError.self) { try SealedEnvelope.open(Array(sealed.prefix(length)), with: reading, aad: aad) }
        }
        #expect(throws: EnvelopeError.empty) { try SealedEnvelope.open([], with: reading, aad: aad) }
        #expect(throws: EnvelopeError.unsupportedVersion(3)) { try SealedEnvelope.open([3] + sealed.dropFirst(), with: reading, aad: aad) }
    }

    /// §2.2: version 1 is read, never written.
    @Test(.enabled(if: Sodium.aes256GCMAvailable, "libsodium's AES-256-GCM needs a CPU with AES-NI, which this one lacks")) func legacyVersion1Opens() throws {
        let aad = EnvelopeAAD.day(bucket: bucket, day: day)
        let sealed = try SealedEnvelope.sealLegacy(Array("legacy".utf8), to: reading.publicKey, aad: aad)
        #expect(sealed.first == 0x01)
        #expect(try SealedEnvelope.open(sealed, with: reading, aad: aad) == Array("legacy".utf8))
        #expect(throws: EnvelopeError.doesNotOpen) { try SealedEnvelope.open(sealed, with: reading, aad: .day(bucket: bucket, day: day.previous)) }
        #expect(throws: EnvelopeError.tooShort(version: 1, count: 40)) { try SealedEnvelope.open(Array(sealed.prefix(40)), with: reading, aad: aad) }
    }

    @Test func errorsNameNoSecrets() throws {
        let errors: [EnvelopeError] = [.empty, .unsupportedVersion(9), .tooShort(version: 2, count: 3), .doesNotOpen, .legacyUnavailable, .cannotSeal]
        for error in errors {
            #expect(error.description.hasSuffix("."))
            #expect(!error.description.contains(Hex.encode(reading.rawRepresentation.revealed())))
        }
    }
}
