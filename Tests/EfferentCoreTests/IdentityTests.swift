import Testing
@testable import EfferentCore

@Suite struct IdentityTests {
    static let counting = (UInt8(1)...UInt8(32)).map { $0 }

    /// §1.6 / §13: `protocol_test.ts` and the derived bucket of the 0x01…0x20 key.
    @Test func bucketFromReadingPublic() throws {
        #expect(Base32.encodeLower(Array("foobar".utf8)) == "mzxw6ytboi")
        let key = try X25519PrivateKey(rawRepresentation: IdentityTests.counting)
        #expect(Hex.encode(key.publicKey.rawRepresentation) == "07a37cbc142093c8b755dc1b10e86cb426374ad16aa853ed0bdfc0b2b86d1c7c")
        #expect(BucketID(readingPublicKey: key.publicKey).rawValue == "vkup75ydwufsff7u63qtkchxeq")
        #expect(ReadingKey(privateKey: key).bucket.rawValue == "vkup75ydwufsff7u63qtkchxeq")
    }

    @Test func bucketParsing() {
        #expect((try? BucketID("vkup75ydwufsff7u63qtkchxeq"))?.rawValue == "vkup75ydwufsff7u63qtkchxeq")
        for bad in ["", "vkup75ydwufsff7u63qtkchxe", "vkup75ydwufsff7u63qtkchxeqq", "Vkup75ydwufsff7u63qtkchxeq",
                    "vkup75ydwufsff7u63qtkchx1q", "vkup75ydwufsff7u63qtkchx=q", "vkup75ydwufsff7u63qtkchxé"] {
            #expect(throws: IdentityError.malformedBucketID) { try BucketID(bad) }
        }
        #expect(IdentityError.malformedBucketID.description == "malformed bucket id")
    }

    /// §1.3: `tests/test_wire.py::ReadKey`, `ReadKeyTests.swift`.
    @Test func readKeyVector() throws {
        let reading = try X25519PrivateKey(rawRepresentation: IdentityTests.counting)
        #expect(ReadKey.seed(readingPrivate: reading).hex == "39e7d153a3e583b4036f36b661bf06e3714d6c29d969c347d2bbe45e6bdc87be")
        #expect(Hex.encode(ReadKey.derive(from: reading).publicKey.rawRepresentation)
            == "434172a1e4cbfe85eb1097bdc785a22e5a293a0c05ddee75ff146822f9ee53b5")
        #expect(ReadingKey(privateKey: reading).readKey.rawRepresentation == ReadKey.seed(readingPrivate: reading))
    }

    /// §13: the interop fixture key of `reader/efferent/interop.py`.
    @Test func interopFixtureKey() throws {
        let file = Array(#"{"readingPrivate": "MC4CAQAwBQYDK2VuBCIEIB-BUIZTXqbNIR0MFd8VXE2BPlP2ohi2pcpCd_FksGD6", "readingPublic": "YAvPaXBsGTnyrLF6FcE1oI2EjHmIeKAg07zRX51nI2w"}"#.utf8)
        let key = try KeyFile.decodeReadingKey(file)
        #expect(Base64URL.encode(key.publicKey.rawRepresentation) == "YAvPaXBsGTnyrLF6FcE1oI2EjHmIeKAg07zRX51nI2w")
        #expect(Base64URL.encode(key.privateKey.pkcs8DER) == "MC4CAQAwBQYDK2VuBCIEIB-BUIZTXqbNIR0MFd8VXE2BPlP2ohi2pcpCd_FksGD6")
        #expect(key.bucket.rawValue == "4kaszsqxorn5h6jpgqq25zomnv")
        #expect(try KeyFile.decodeReadingKey(KeyFile.encode(key)).publicKey == key.publicKey)
    }

    @Test func keyFilesRoundTripAndRefuse() throws {
        let reading = ReadingKey()
        let encoded = KeyFile.encode(reading)
        #expect(String(decoding: encoded, as: UTF8.self).hasPrefix("{\"readingPrivate\":\""))
        #expect(try KeyFile.decodeReadingKey(encoded).publicKey == reading.publicKey)

        let writer = Ed25519PrivateKey()
        #expect(try KeyFile.decodeWriterKey(KeyFile.encodeWriterKey(writer)).publicKey == writer.publicKey)
        let editor = EditorKey()
        #expect(try KeyFile.decodeEditorKey(KeyFile.encode(editor)).publicKey == editor.publicKey)

        // The wrong role's file, garbage, a foreign public half.
        #expect(throws: IdentityError.keyFile(name: "editor-key.json")) { try KeyFile.decodeEditorKey(KeyFile.encodeWriterKey(writer)) }
        #expect(throws: IdentityError.keyFile(name: "reading-key.json")) { try KeyFile.decodeReadingKey(Array("[]".utf8)) }
        #expect(throws: IdentityError.keyFile(name: "reading-key.json")) { try KeyFile.decodeReadingKey(KeyFile.encodeWriterKey(writer)) }
        let other = ReadingKey()
        let mixed = #"{"readingPrivate":"\#(Base64URL.encode(reading.privateKey.pkcs8DER))","readingPublic":"\#(Base64URL.encode(other.publicKey.rawRepresentation))"}"#
        #expect(throws: IdentityError.keyFileMismatch(name: "reading-key.json")) { try KeyFile.decodeReadingKey(Array(mixed.utf8)) }
        // An Ed25519 PKCS#8 where X25519 belongs.
        let wrongCurve = #"{"readingPrivate":"\#(Base64URL.encode(writer.pkcs8DER))","readingPublic":"\#(Base64URL.encode(reading.publicKey.rawRepresentation))"}"#
        #expect(throws: IdentityError.keyFile(name: "reading-key.json")) { try KeyFile.decodeReadingKey(Array(wrongCurve.utf8)) }
    }

    @Test func readingKeyFieldRoundTripAndRefusals() throws {
        let key = try ReadingKey(privateKey: X25519PrivateKey(rawRepresentation: IdentityTests.counting))
        let field = key.handoffField
        #expect(field.hasPrefix("efferent-reading-v1."))
        #expect(field.split(separator: ".").map(\.count) == [19, 43, 43])
        #expect(try ReadingKey(handoffField: field).publicKey == key.publicKey)

        let parts = field.split(separator: ".").map(String.init)
        let other = ReadingKey()
        let otherPublic = Base64URL.encode(other.publicKey.rawRepresentation)
        let cases: [(String, IdentityError)] = [
            ("efferent-reading-v1.\(parts[1])", .keyFieldParts(kind: "reading")),
            (field + ".x", .keyFieldParts(kind: "reading")),
            ("efferent-editor-v1.\(parts[1]).\(parts[2])", .keyFieldPrefix(kind: "reading")),
            ("efferent-reading-v1.\(parts[1]).\(parts[2].dropLast())+", .keyFieldEncoding(kind: "reading")),
            ("efferent-reading-v1.\(parts[1])=.\(parts[2])", .keyFieldEncoding(kind: "reading")),
            ("efferent-reading-v1.\(parts[1].dropLast(3)).\(parts[2])", .keyFieldLength(kind: "reading")),
            ("efferent-reading-v1.\(parts[1]).\(otherPublic)", .halvesMismatch(kind: "reading")),
        ]
        for (text, error) in cases {
            #expect(throws: error) { try ReadingKey(handoffField: text) }
        }
        #expect(IdentityError.halvesMismatch(kind: "reading").description == "the private and public halves of the reading key do not match")
    }

    @Test func editorKeyFieldRoundTripAndRefusals() throws {
        let key = EditorKey()
        #expect(try EditorKey(handoffField: key.handoffField).publicKey == key.publicKey)
        let parts = key.handoffField.split(separator: ".").map(String.init)
        #expect(parts[0] == "efferent-editor-v1")
        let stranger = Base64URL.encode(EditorKey().publicKey.rawRepresentation)
        #expect(throws: IdentityError.halvesMismatch(kind: "editor")) { try EditorKey(handoffField: "\(parts[0]).\(parts[1]).\(stranger)") }
        let zero = Base64URL.encode([UInt8](repeating: 0, count: 32))
        #expect(throws: IdentityError.halvesMismatch(kind: "editor")) { try EditorKey(handoffField: "\(parts[0]).\(parts[1]).\(zero)") }
        #expect(throws: IdentityError.keyFieldParts(kind: "editor")) { try EditorKey(handoffField: "\(parts[0]).\(parts[1])") }
    }

    /// §1.2: the seven small-order points, with and without the top bit of byte 31.
    @Test func smallOrderKeysAreRefused() {
        for point in Ed25519PublicKey.smallOrder {
            #expect(throws: KeyError.self) { try Ed25519PublicKey(rawRepresentation: point) }
            var high = point
            high[31] |= 0x80
            #expect(Ed25519PublicKey.isSmallOrder(high))
        }
        #expect(!Ed25519PublicKey.isSmallOrder(Ed25519PrivateKey().publicKey.rawRepresentation))
    }

    @Test func descriptionsHoldNoKeys() {
        let key = ReadingKey()
        let editor = EditorKey()
        let privateText = Base64URL.encode(key.privateKey.rawRepresentation.revealed())
        #expect(!key.description.contains(privateText))
        #expect(!"\(editor)".contains(Base64URL.encode(editor.privateKey.rawRepresentation.revealed())))
    }
}
