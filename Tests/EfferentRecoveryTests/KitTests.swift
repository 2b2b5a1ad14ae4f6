import EfferentCore
import EfferentCrypto
import EfferentSecretSharing
import Foundation
import Testing
@testable import EfferentRecovery

/// A kit's record, sheets and forms: sealed and opened with the real MODERATE Argon2id (a second
/// each), read back from its file, its QR text and its typed words, split and recombined.
@Suite(.serialized) struct KitTests {
    static let contents = KitContents(writer: Ed25519PrivateKey(), reading: ReadingKey(), editor: EditorKey(), bucket: try! BucketID("abcdefghijklmnopqrstuvwxyz"),
                                      endpoint: "https://archive.example.org", timeZone: "Europe/Berlin", timeZonePinned: true,
                                      hourlyFrom: CalendarDay("2024-03-01"), written: 1_760_000_000)
    static let passphrase = SecretBytes(Array("owl-river-candle-north-seven".utf8))
    static let secret = KitSecret()
    static let record = try! KitRecord.seal(contents, secret: secret, passphrase: passphrase)

    @Test func aRecordOpensWithItsSecretAndPassphraseOnly() throws {
        let opened = try KitRecord.open(Self.record, secret: Self.secret, passphrase: Self.passphrase)
        #expect(opened.writer.publicKey == Self.contents.writer.publicKey)
        #expect(opened.reading.publicKey == Self.contents.reading.publicKey)
        #expect(opened.editor.publicKey == Self.contents.editor.publicKey)
        #expect(opened.bucket == Self.contents.bucket && opened.endpoint == Self.contents.endpoint)
        #expect(opened.timeZone == "Europe/Berlin" && opened.timeZonePinned && opened.hourlyFrom == CalendarDay("2024-03-01"))
        #expect(opened.keysFingerprint == Self.contents.keysFingerprint)
        #expect(throws: KitError.doesNotOpen) {
            try KitRecord.open(Self.record, secret: Self.secret, passphrase: SecretBytes(Array("owl-river-candle-north-seveN".utf8)))
        }
        #expect(throws: KitError.doesNotOpen) { try KitRecord.open(Self.record, secret: KitSecret(), passphrase: Self.passphrase) }
        var flipped = Self.record
        flipped[flipped.count - 20] ^= 0x10
        #expect(throws: KitError.doesNotOpen) { try KitRecord.open(flipped, secret: Self.secret, passphrase: Self.passphrase) }
    }

    @Test func aRecordKeepsItsLimits() throws {
        #expect(try KitRecord.limits(of: Self.record) == .moderate)
        // Lowering the limits in the header is refused before any work, and would not open anyway.
        var weaker = Self.record
        weaker[7] = 1
        #expect(throws: KitError.weakLimits) { try KitRecord.open(weaker, secret: Self.secret, passphrase: Self.passphrase) }
        #expect(throws: KitError.weakLimits) {
            try KitRecord.seal(Self.contents, secret: Self.secret, passphrase: Self.passphrase, limits: .interactive)
        }
        #expect(throws: KitError.self) { try KitRecord.open(Array(Self.record.prefix(40)), secret: Self.secret, passphrase: Self.passphrase) }
    }

    @Test func theFileReadsBackWholeAndItsWordsAlone() throws {
        let sheet = try #require(try KitSheet.sheets(secret: Self.secret, record: Self.record, contents: Self.contents, split: nil, printedPassphrase: nil).first)
        #expect(sheet.words.count == 24)
        // The typed form: 24 words in 6 lines of 4.
        let wordLines = sheet.text.split(separator: "\n").filter { $0.contains(" 1. ") || $0.hasPrefix(" 1.") || $0.contains("24.") }
        #expect(!wordLines.isEmpty)
        guard case let .sheet(read) = try KitInput(text: sheet.text) else { Issue.record("the file did not read as a whole sheet"); return }
        #expect(read.part == Self.secret.value && read.record == Self.record && read.endpoint == sheet.endpoint && read.bucket == sheet.bucket)
        // The words alone, as a person types them (numbers, line breaks and case as they come).
        let typed = sheet.words.enumerated().map { "\($0.offset + 1). \($0.offset % 5 == 0 ? $0.element.uppercased() : $0.element)" }
            .chunked(4).map { $0.joined(separator: "  ") }.joined(separator: "\n") + "\nService: https://archive.example.org\n"
        guard case let .typed(words) = try KitInput(text: typed) else { Issue.record("typed words read as a sheet"); return }
        #expect(words.part == Self.secret.value && words.endpoint == "https://archive.example.org" && words.number == nil)
        let pieces = try KitPieces.assemble([.typed(words)])
        #expect(pieces.record == nil && pieces.secret.locator == Self.secret.locator)
        // A slip in line 3 is named there, and nothing opens.
        var slipped = sheet.words
        slipped[10] = "zzzz" + slipped[10]
        #expect(Self.failure(slipped.joined(separator: " ")).map { "\($0)" }?.contains("Word 11 (line 3 of the sheet)") == true)
    }

    @Test func aDamagedQRCodeIsSaidSo() throws {
        let sheet = try #require(try KitSheet.sheets(secret: Self.secret, record: Self.record, contents: Self.contents, split: nil, printedPassphrase: nil).first)
        let payload = sheet.qrPayload
        #expect(payload.hasPrefix("EFFERENT-KIT:"))
        for cut in [payload.count - 1, payload.count - 30, 60, 20] {
            let error = Self.qrFailure(String(payload.prefix(cut)))
            #expect(error.map { "\($0)" }?.hasPrefix("The kit's QR code text is damaged") == true, "cut at \(cut): \(String(describing: error))")
        }
        var chars = Array(payload)
        chars[40] = chars[40] == "A" ? "B" : "A"
        #expect(throws: KitError.self) { try KitSheet(qrPayload: String(chars)) }
        #expect(throws: KitError.self) { try KitInput(text: "a shopping list: eggs, milk") }
    }

    @Test func aSplitKitNeedsItsThreshold() throws {
        let sheets = try KitSheet.sheets(secret: Self.secret, record: Self.record, contents: Self.contents, split: (2, 3),
                                         printedPassphrase: "owl-river-candle-north-seven")
        #expect(sheets.map(\.number) == [1, 2, 3] && sheets.allSatisfy { $0.threshold == 2 && $0.count == 3 })
        for (a, b) in [(0, 1), (0, 2), (1, 2), (2, 1)] {
            let pieces = try KitPieces.assemble([try KitInput(text: sheets[a].text), try KitInput(text: sheets[b].text)])
            #expect(pieces.secret.value == Self.secret.value && pieces.printedPassphrase == "owl-river-candle-north-seven")
            #expect(try KitRecord.open(try #require(pieces.record), secret: pieces.secret, passphrase: Self.passphrase).bucket == Self.contents.bucket)
        }
        for sheet in sheets {
            #expect(throws: KitError.tooFewSheets(have: 1, need: 2)) { try KitPieces.assemble([try KitInput(text: sheet.text)]) }
            #expect(sheet.part != Self.secret.value)
        }
        #expect(throws: KitError.sameSheetTwice(2)) { try KitPieces.assemble([try KitInput(text: sheets[1].text), try KitInput(text: sheets[1].text)]) }
        // Typed sheets carry their number on the Sheet line.
        let typed = sheets.prefix(2).map { "Sheet: \($0.sheetLine)\nService: \($0.endpoint)\n" + $0.words.joined(separator: " ") }
        let pieces = try KitPieces.assemble(try typed.map { try KitInput(text: $0) })
        #expect(pieces.secret.value == Self.secret.value && pieces.record == nil)
        #expect(throws: KitError.self) { try KitPieces.assemble(try sheets.prefix(2).map { try KitInput(text: $0.words.joined(separator: " ")) }) }
        // Sheets of two different splits do not combine into this kit.
        let other = try KitSheet.sheets(secret: KitSecret(), record: Self.record, contents: Self.contents, split: (2, 3), printedPassphrase: nil)
        let mixed = try KitPieces.assemble([try KitInput(text: sheets[0].words.joined(separator: " ") + "\nSheet: 1 of 3 (any 2 recover)"),
                                            try KitInput(text: other[1].words.joined(separator: " ") + "\nSheet: 2 of 3 (any 2 recover)")])
        #expect(mixed.secret.value != Self.secret.value)
    }

    @Test func thePageHoldsTheWordsAndACodeOfTheSheet() throws {
        let sheet = try #require(try KitSheet.sheets(secret: Self.secret, record: Self.record, contents: Self.contents, split: nil, printedPassphrase: nil).first)
        let html = try KitPage.html(sheet)
        for word in sheet.words { #expect(html.contains("</span> \(word)</td>")) }
        #expect(html.contains("<svg") && html.contains("Content-Security-Policy") && !html.contains("<script"))
        #expect(!html.contains(sheet.qrPayload), "the QR text is drawn, not written out")
    }
}

extension KitTests {
    static func failure(_ text: String) -> KitError? {
        do {
            _ = try KitInput(text: text)
            return nil
        } catch {
            return error
        }
    }

    static func qrFailure(_ text: String) -> KitError? {
        do {
            _ = try KitSheet(qrPayload: text)
            return nil
        } catch {
            return error
        }
    }
}

extension Array {
    func chunked(_ size: Int) -> [[Element]] {
        stride(from: 0, to: count, by: size).map { Array(self[$0..<Swift.min($0 + size, count)]) }
    }
}
