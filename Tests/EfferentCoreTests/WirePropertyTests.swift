import EfferentTestSupport
import Testing
@testable import EfferentCore

/// Seeded property tests over the parsers of outside text: they refuse or accept, never trap,
/// and what they accept reads back to what was written.
@Suite struct WirePropertyTests {
    @Test func handoffsRoundTripAndMangledOnesNeverTrap() throws {
        var random = WireRandom(seed: 0x4A4D_0FF5)
        let hosts = ["https://a.example", "http://127.0.0.1:9", "https://h.example/base/", "HTTP://x.example:8080/p/q"]
        for round in 0..<60 {
            let reading = try ReadingKey(privateKey: X25519PrivateKey(rawRepresentation: random.bytes(32)))
            let editor = round % 2 == 0 ? try EditorKey(privateKey: Ed25519PrivateKey(rawRepresentation: random.bytes(32))) : nil
            let handoff = try Handoff(endpoint: hosts[round % hosts.count], readingKey: reading, editorKey: editor)
            let text = handoff.text
            let parsed = try Handoff(parsing: text)
            #expect(parsed.endpoint == handoff.endpoint)
            #expect(parsed.readingKey.publicKey == reading.publicKey)
            #expect(parsed.editorKey?.publicKey == editor?.publicKey)
            #expect(try Handoff(parsing: parsed.text).mcpURL == handoff.mcpURL)
            var bytes = Array(text.utf8)
            for _ in 0..<4 {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...127, using: &random)
                _ = try? Handoff(parsing: String(decoding: bytes, as: UTF8.self))
            }
        }
        for _ in 0..<500 {
            _ = try? Handoff(parsing: String(decoding: random.bytes(Int.random(in: 0...120, using: &random)), as: UTF8.self))
            _ = try? ReadingKey(handoffField: String(decoding: random.bytes(Int.random(in: 0...110, using: &random)), as: UTF8.self))
        }
    }

    @Test func signedHeadersNeverTrap() {
        var random = WireRandom(seed: 0x51_6E_ED)
        let alphabet = Array("ABCxyz019-_=+/. ")
        for _ in 0..<1_000 {
            let values = (0..<3).map { _ in String((0..<Int.random(in: 0...90, using: &random)).map { _ in alphabet.randomElement(using: &random)! }) }
            let names = ["x-efferent-writer", "x-efferent-signature", "x-efferent-timestamp"]
            _ = try? SignedHeaders(parsing: { name in names.firstIndex(of: name).map { values[$0] } }, role: .writer, now: 1_700_000_000)
        }
    }
}
