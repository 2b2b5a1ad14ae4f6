import EfferentTestSupport
import Testing
@testable import EfferentCore

@Suite struct SignedMessageTests {
    let bucket = try! BucketID("abcdefghijklmnopqrstuvwxyz")
    let name = try! EditName("1757228400000-abcdefgh")
    let hello = Array("hello".utf8)
    func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    /// §13: `protocol/edits_test.ts`.
    @Test func editStringsVector() {
        #expect(SignedMessage.digest(hello) == "LPJNul-wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ")
        #expect(text(SignedMessage.edit(bucket: bucket, timestamp: 1_700_000_000, sealed: hello))
            == "efferent/v1 edit\nabcdefghijklmnopqrstuvwxyz\n1700000000\nLPJNul-wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ")
        #expect(text(SignedMessage.outcome(bucket: bucket, name: name, timestamp: 1_700_000_000, body: hello))
            == "efferent/v1 outcome\nabcdefghijklmnopqrstuvwxyz\n1757228400000-abcdefgh\n1700000000\nLPJNul-wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ")
        #expect(text(SignedMessage.fetch(bucket: bucket, name: name, timestamp: 1_700_000_000))
            == "efferent/v1 fetch\nabcdefghijklmnopqrstuvwxyz\n1757228400000-abcdefgh\n1700000000")
        #expect(text(SignedMessage.editor(bucket: bucket, timestamp: 1_700_000_000, body: hello))
            == "efferent/v1 editor\nabcdefghijklmnopqrstuvwxyz\n1700000000\nLPJNul-wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ")
        #expect(text(SignedMessage.reader(bucket: bucket, timestamp: 1_700_000_000, body: hello))
            == "efferent/v1 reader\nabcdefghijklmnopqrstuvwxyz\n1700000000\nLPJNul-wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ")
        #expect(text(SignedMessage.device(bucket: bucket, timestamp: 1_700_000_000, body: [UInt8]()))
            == "efferent/v1 device\nabcdefghijklmnopqrstuvwxyz\n1700000000\n47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU")
    }

    /// §5.2: the claim, and the upload over a frame in frame order.
    @Test func claimAndUpload() throws {
        #expect(text(SignedMessage.claim(bucket: bucket, timestamp: 1_700_000_000))
            == "efferent/v1\nabcdefghijklmnopqrstuvwxyz\n\n1700000000\n47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU")
        let days = [CalendarDay("2026-08-07")!, CalendarDay("2026-08-08")!]
        let frame = try Frame.pack(days.map { Frame.Day(day: $0, sealed: [2, 1]) })
        let upload = text(SignedMessage.upload(bucket: bucket, days: days, timestamp: 1_700_000_000, body: frame))
        #expect(upload == "efferent/v1\nabcdefghijklmnopqrstuvwxyz\n2026-08-07,2026-08-08\n1700000000\n" + SignedMessage.digest(frame))
        #expect(!upload.hasSuffix("\n"))
    }

    /// §7: the published read-signature vector.
    @Test func readSignatureVector() throws {
        let readKey = ReadKey.derive(from: try X25519PrivateKey(rawRepresentation: (UInt8(1)...UInt8(32)).map { $0 }))
        let target = SignedMessage.readTarget(path: "/b/abucketidmadeupforthistest/d", query: "from=2026-08-01&to=2026-08-31")
        #expect(target == "/b/abucketidmadeupforthistest/d?from=2026-08-01&to=2026-08-31")
        let message = SignedMessage.read(bucket: try BucketID("abucketidmadeupforthistest"), target: target, timestamp: 1_700_000_000)
        #expect(text(message) == "efferent/v1 read\nabucketidmadeupforthistest\n/b/abucketidmadeupforthistest/d?from=2026-08-01&to=2026-08-31\n1700000000")
        let headers = SignedHeaders(signing: message, with: readKey, role: .reader, timestamp: 1_700_000_000)
        #expect(Hex.encode(headers.signature)
            == "babf8af472d036155a4cbb7bb5385cb0dc360aa18e27c825660609b5d28937f9502366c466fbfb9fc724e8d0d3615e47f77b6f9fe62c312b80f3a8267d037900")
        #expect(headers.isValid(for: message))
        #expect(SignedMessage.readTarget(path: "/b/x/days", query: "") == "/b/x/days")
        #expect(SignedMessage.readTarget(path: "/b/x/days", query: nil) == "/b/x/days")
    }

    func lookup(_ fields: [(name: String, value: String)]) -> (String) -> String? {
        { name in fields.first { $0.name == name }?.value }
    }

    @Test func headersRoundTripAndVerify() throws {
        let writer = Ed25519PrivateKey()
        let message = SignedMessage.claim(bucket: bucket, timestamp: 1_700_000_000)
        let sent = SignedHeaders(signing: message, with: writer, role: .writer, timestamp: 1_700_000_000)
        #expect(sent.fields.map(\.name) == ["x-efferent-writer", "x-efferent-signature", "x-efferent-timestamp"])
        let read = try SignedHeaders(parsing: lookup(sent.fields), role: .writer, now: 1_700_000_299)
        #expect(read == sent)
        #expect(read.isValid(for: message))
        #expect(!read.isValid(for: SignedMessage.claim(bucket: bucket, timestamp: 1_700_000_001)))
        #expect(SignedHeaders.Role.editor.keyHeader == "x-efferent-editor")
        #expect(SignedHeaders.Role.reader.keyHeader == "x-efferent-reader")
    }

    @Test func headerRefusals() {
        let key = Base64URL.encode(Ed25519PrivateKey().publicKey.rawRepresentation)
        let sig = Base64URL.encode([UInt8](repeating: 1, count: 64))
        func fields(key k: String? = key, sig s: String? = sig, ts: String? = "1700000000") -> [(name: String, value: String)] {
            var out = [(name: String, value: String)]()
            if let k { out.append(("x-efferent-editor", k)) }
            if let s { out.append(("x-efferent-signature", s)) }
            if let ts { out.append(("x-efferent-timestamp", ts)) }
            return out
        }
        let zero = Base64URL.encode([UInt8](repeating: 0, count: 32))
        let cases: [([(name: String, value: String)], SignedHeaderError, String)] = [
            (fields(key: nil), .missing(who: "editor"), "missing editor key or signature"),
            (fields(sig: nil), .missing(who: "editor"), "missing editor key or signature"),
            (fields(ts: "1700000000.5"), .timestamp, "the timestamp must be whole Unix seconds"),
            (fields(ts: nil), .timestamp, "the timestamp must be whole Unix seconds"),
            (fields(ts: "+1700000000"), .timestamp, "the timestamp must be whole Unix seconds"),
            (fields(ts: "99999999999999999999"), .timestamp, "the timestamp must be whole Unix seconds"),
            (fields(key: key + "="), .encoding(who: "editor"), "the editor key and signature must be unpadded base64url"),
            (fields(sig: "a+b/"), .encoding(who: "editor"), "the editor key and signature must be unpadded base64url"),
            (fields(key: Base64URL.encode([UInt8](repeating: 9, count: 31))), .size(who: "editor"), "the editor key must be 32 bytes and the signature 64"),
            (fields(sig: Base64URL.encode([UInt8](repeating: 9, count: 63))), .size(who: "editor"), "the editor key must be 32 bytes and the signature 64"),
            (fields(key: zero), .smallOrder(who: "editor"), "that editor key is not a key anybody holds"),
            (fields(ts: "1699999699"), .clock(skew: 301, now: 1_700_000_000), "timestamp is 301s away from this server's clock"),
            (fields(ts: "1700000301"), .clock(skew: 301, now: 1_700_000_000), "timestamp is 301s away from this server's clock"),
        ]
        for (given, error, sentence) in cases {
            #expect(throws: error) { try SignedHeaders(parsing: lookup(given), role: .editor, now: 1_700_000_000) }
            #expect(error.description == sentence)
        }
        #expect((try? SignedHeaders(parsing: lookup(fields(ts: "1699999700")), role: .editor, now: 1_700_000_000)) != nil)
    }

    /// The signature covers every part: any changed byte of any string fails verification.
    @Test func flippedBytesFailVerification() {
        var random = WireRandom(seed: 42)
        let key = Ed25519PrivateKey()
        for _ in 0..<50 {
            let body = random.bytes(Int.random(in: 0...100, using: &random))
            let message = SignedMessage.edit(bucket: bucket, timestamp: Int64.random(in: 0...2_000_000_000, using: &random), sealed: body)
            let headers = SignedHeaders(signing: message, with: key, role: .editor, timestamp: 0)
            var changed = message
            changed[Int.random(in: 0..<changed.count, using: &random)] ^= 1
            #expect(headers.isValid(for: message))
            #expect(!headers.isValid(for: changed))
        }
    }
}
