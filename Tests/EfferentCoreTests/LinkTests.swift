import EfferentCore
import EfferentCrypto
import Foundation
import Testing

/// SMART Health Links' wire pieces (decision A.15): the payload and its `shlink:/` text, compact
/// JWE with a direct key and AES-256-GCM, and the link id.
@Suite struct LinkTests {
    /// RFC 7516 Appendix A.1: its content encryption (A256GCM under the CEK of A.1.2, IV of A.1.4,
    /// the protected header as additional data) opens to the example's plaintext; one flipped
    /// bit anywhere is refused.
    @Test func rfc7516ContentEncryptionOpens() throws {
        let cek = SecretBytes([177, 161, 244, 128, 84, 143, 225, 115, 63, 180, 3, 255, 107, 154, 212, 246, 138, 7, 110, 91, 112, 46, 34, 105,
                               47, 130, 203, 46, 122, 234, 64, 252])
        let protected = Array("eyJhbGciOiJSU0EtT0FFUCIsImVuYyI6IkEyNTZHQ00ifQ".utf8)
        let iv = try #require(Base64URL.decode("48V1_ALb6US04U3b"))
        let ciphertext = try #require(Base64URL.decode("5eym8TW_c8SuK0ltJ3rpYIzOeDQz7TALvtu6UG9oMo4vpzs9tX_EFShS8iB7j6jiSdiwkIr3ajwQzaBtQD_A"))
        let tag = try #require(Base64URL.decode("XFBoMYUZodetZdvTiFvSkQ"))
        let plaintext = try JWE.openContent(protected: protected, iv: iv, ciphertext: ciphertext, tag: tag, key: cek)
        #expect(String(decoding: plaintext, as: UTF8.self) == "The true sign of intelligence is not knowledge but imagination.")
        var flipped = ciphertext
        flipped[3] ^= 1
        #expect(throws: LinkError.forged) { try JWE.openContent(protected: protected, iv: iv, ciphertext: flipped, tag: tag, key: cek) }
        var header = protected
        header[5] ^= 1
        #expect(throws: LinkError.forged) { try JWE.openContent(protected: header, iv: iv, ciphertext: ciphertext, tag: tag, key: cek) }
    }

    @Test func compactJWERoundTripsAndDeflatesOnlyWhenThatIsSmaller() throws {
        let key = SHLink.newKey()
        let bundle = Array(String(repeating: #"{"resourceType":"Observation","status":"final"},"#, count: 200).utf8)
        let sealed = try JWE.seal(bundle, key: key, contentType: "application/fhir+json")
        let parts = sealed.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 5 && parts[1].isEmpty)
        let header = try JSONParser.parse(try #require(Base64URL.decode(parts[0])))
        #expect(header["alg"]?.stringValue == "dir" && header["enc"]?.stringValue == "A256GCM")
        #expect(header["cty"]?.stringValue == "application/fhir+json" && header["zip"]?.stringValue == "DEF")
        #expect(try #require(Base64URL.decode(parts[2])).count == 12 && #require(Base64URL.decode(parts[4])).count == 16)
        let opened = try JWE.open(sealed, key: key)
        #expect(opened.plaintext == bundle && opened.compressed && opened.contentType == "application/fhir+json")
        // Random bytes do not deflate smaller: no zip header then.
        let noise = Sodium.randomBytes(300)
        let plain = try JWE.seal(noise, key: key, contentType: "application/fhir+json")
        let plainHeader = try JSONParser.parse(try #require(Base64URL.decode(plain.split(separator: ".")[0])))
        #expect(try plainHeader["zip"] == nil && (JWE.open(plain, key: key)).plaintext == noise)
        // Each seal has its own IV, even of the same plaintext under the same key.
        #expect(try JWE.seal(bundle, key: key, contentType: "x").split(separator: ".")[2] != sealed.split(separator: ".")[2])
    }

    @Test func compactJWERefusesWhatItShouldNotOpen() throws {
        let key = SHLink.newKey()
        let sealed = try JWE.seal(Array("{}".utf8), key: key, contentType: "application/fhir+json", compression: .never)
        #expect(throws: LinkError.forged) { try JWE.open(sealed, key: SHLink.newKey()) }
        var parts = sealed.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var tag = Array(parts[4])
        tag[3] = tag[3] == "A" ? "B" : "A"
        parts[4] = String(tag)
        #expect(throws: LinkError.forged) { try JWE.open(parts.joined(separator: "."), key: key) }
        #expect(throws: LinkError.self) { try JWE.open(String(sealed.dropLast(4)), key: key) }
        #expect(throws: LinkError.self) { try JWE.open(sealed.replacingOccurrences(of: "..", with: ".AAAA."), key: key) }
        let rsa = Base64URL.encode(Array(#"{"alg":"RSA-OAEP","enc":"A256GCM"}"#.utf8))
        #expect(throws: LinkError.jwe("is not alg dir with enc A256GCM")) { try JWE.open(rsa + String(sealed.drop { $0 != "." }), key: key) }
        let critical = Base64URL.encode(Array(#"{"alg":"dir","enc":"A256GCM","crit":["exp"]}"#.utf8))
        #expect(throws: LinkError.self) { try JWE.open(critical + String(sealed.drop { $0 != "." }), key: key) }
        // A deflate bomb stops at the ceiling.
        let zeros = [UInt8](repeating: 0, count: 4 << 20)
        let bomb = try JWE.seal(zeros, key: key, contentType: "x", compression: .always)
        #expect(throws: LinkError.tooLarge(1 << 20)) { try JWE.open(bomb, key: key, maxPlaintext: 1 << 20) }
    }

    /// The IG's example payload ("Example SMART Health Link Generation") reads back as written there.
    @Test func theIGExampleLinkReads() throws {
        let text = "shlink:/eyJ1cmwiOiJodHRwczovL2Voci5leGFtcGxlLm9yZy9xci9ZOXh3a1VkdG1OOXd3b0pvTjNmZkpJaFgyVUd2Q0wxSm5sUFZOTDNrRFdNL20iLCJmbGFnIjoiTFAiLCJrZXkiOiJyeFRnWWxPYUtKUEZ0Y0VkMHFjY2VOOHdFVTRwOTRTcUF3SVdRZTZ1WDdRIiwibGFiZWwiOiJCYWNrLXRvLXNjaG9vbCBpbW11bml6YXRpb25zIGZvciBPbGl2ZXIgQnJvd24ifQ"
        for given in [text, "https://viewer.example.org#" + text] {
            let link = try SHLink(parsing: given)
            #expect(link.url == "https://ehr.example.org/qr/Y9xwkUdtmN9wwoJoN3ffJIhX2UGvCL1JnlPVNL3kDWM/m")
            #expect(link.flags == [.longTerm, .passcode] && link.flags.text == "LP")
            #expect(link.label == "Back-to-school immunizations for Oliver Brown" && link.expires == nil)
            #expect(Base64URL.encode(link.key.revealed()) == "rxTgYlOaKJPFtcEd0qcceN8wEU4p94SqAwIWQe6uX7Q")
            #expect(link.linkID == nil, "its url does not end in one of this service's ids")
        }
    }

    @Test func aLinkWritesAndReadsItsOwnPayload() throws {
        let id = LinkID.make()
        let link = try SHLink(url: "https://archive.example.org/shl/\(id)", key: SHLink.newKey(), expires: 1_800_000_000,
                              flags: [.passcode, .longTerm], label: "Cardiology, spring")
        #expect(link.text.hasPrefix("shlink:/") && !link.text.contains("="))
        let json = try JSONParser.parse(link.payloadJSON)
        #expect(json["flag"]?.stringValue == "LP" && json["exp"]?.integerValue == 1_800_000_000 && json["key"]?.stringValue?.count == 43)
        let read = try SHLink(parsing: link.viewerLink(viewer: "https://archive.example.org/share"))
        #expect(read == link && read.linkID == id)
        #expect(throws: LinkError.self) { try SHLink(url: "https://x/" + String(repeating: "a", count: 130), key: SHLink.newKey(), expires: nil, flags: [], label: nil) }
        #expect(throws: LinkError.self) { try SHLink(url: "https://x/m", key: SHLink.newKey(), expires: nil, flags: [], label: String(repeating: "l", count: 81)) }
        #expect(throws: LinkError.self) { try SHLink(url: "https://x/m", key: SHLink.newKey(), expires: nil, flags: [.passcode, .direct], label: nil) }
        #expect(throws: LinkError.notALink) { try SHLink(parsing: "https://archive.example.org/share") }
        #expect(SHLink.Flags(text: "PXL") == [.passcode, .longTerm], "an unknown flag is ignored, as the IG asks")
        let newer = "shlink:/" + Base64URL.encode(Array(#"{"url":"https://x/m","key":"rxTgYlOaKJPFtcEd0qcceN8wEU4p94SqAwIWQe6uX7Q","v":2}"#.utf8))
        #expect(throws: LinkError.self) { try SHLink(parsing: newer) }
    }

    @Test func linkIDsAre43CharactersOf32RandomBytes() throws {
        let id = LinkID.make()
        #expect(id.rawValue.count == 43 && Base64URL.decode(id.rawValue)?.count == 32)
        #expect(try LinkID(id.rawValue) == id)
        #expect(throws: LinkError.malformedID) { try LinkID(String(id.rawValue.dropLast())) }
        #expect(throws: LinkError.malformedID) { try LinkID(String(id.rawValue.dropLast()) + "=") }
        #expect(LinkID.make() != id)
    }

    /// The link-management string: its own first line, the method and target, and the body's digest.
    @Test func theLinkStringSignsMethodTargetAndBody() throws {
        let bucket = try BucketID("abucketidmadeupforthistest")
        let text = String(decoding: SignedMessage.link(bucket: bucket, method: "DELETE", target: "/shl/b/\(bucket)/l/x", timestamp: 1_700_000_000,
                                                       body: [UInt8]()), as: UTF8.self)
        #expect(text == "efferent/v1 link\nabucketidmadeupforthistest\nDELETE /shl/b/abucketidmadeupforthistest/l/x\n1700000000\n47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU")
    }
}
