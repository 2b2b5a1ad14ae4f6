import EfferentCrypto
import Foundation
import Testing
@testable import EfferentRecovery

@Suite struct BIP39Tests {
    /// The shipped list is the published one: its lines hash to english.txt's SHA-256.
    @Test func theListIsThePublishedEnglishList() {
        #expect(BIP39.english.count == 2048)
        let file = Array((BIP39.english.joined(separator: "\n") + "\n").utf8)
        #expect(Sodium.sha256(file).map { String(format: "%02x", $0) }.joined() == "2f5eed53a4727b4bf8880d8f3f199efc90e58503646d9ff8eff3a2ed3b24dbda")
        #expect(Set(BIP39.english.map { $0.prefix(4) }).count == 2048, "no two words share their first four letters")
    }

    /// The BIP's own vectors (trezor/python-mnemonic vectors.json, English).
    @Test func bipVectors() throws {
        let cases: [(String, String)] = [
            ("00000000000000000000000000000000", "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"),
            ("7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f", "legal winner thank year wave sausage worth useful legal winner thank yellow"),
            ("0000000000000000000000000000000000000000000000000000000000000000",
             "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon art"),
            ("ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
             "zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo vote"),
            ("68a79eaca2324873eacc50cb9c6eca8cc68ea5d936f98787c60c7ebc74e6ce7c",
             "hamster diagram private dutch cause delay private meat slide toddler razor book happy fancy gospel tennis maple dilemma loan word shrug inflict delay length"),
        ]
        for (entropyHex, phrase) in cases {
            let entropy = stride(from: 0, to: entropyHex.count, by: 2).map { UInt8(entropyHex.dropFirst($0).prefix(2), radix: 16)! }
            #expect(BIP39.words(for: entropy).joined(separator: " ") == phrase)
            #expect(try BIP39.entropy(from: phrase.split(separator: " ").map(String.init)) == entropy)
        }
    }

    @Test func aSlipIsNamedWhereItIs() throws {
        var words = BIP39.words(for: (0..<32).map { UInt8($0 * 7 & 0xFF) })
        let original = words[9]
        words[9] = String(original.dropLast()) + "q"
        let error = Self.failure(words)
        #expect(error == .notAWord(position: 9, typed: words[9], nearest: original))
        #expect(error?.description.contains("Word 10 (line 3 of the sheet)") == true)
        // Four letters of a word are the word; case and spaces do not matter.
        words[9] = " " + original.prefix(4).uppercased() + " "
        #expect(try BIP39.entropy(from: words) == (0..<32).map { UInt8($0 * 7 & 0xFF) })
        // Another valid word in its place fails the checksum (nearly always: 1 in 256 slips through).
        let swapped = words.enumerated().map { $0.offset == 3 ? words[4] : $0.offset == 4 ? words[3] : $0.element }
        if swapped != words { #expect(throws: MnemonicError.checksum) { try BIP39.entropy(from: swapped) } }
        #expect(throws: MnemonicError.count(23)) { try BIP39.entropy(from: Array(words.prefix(23))) }
    }

    /// The real `mnemonic` package from PyPI reads our words and we read its.
    @Test func pythonMnemonicAgrees() throws {
        let entropy = Sodium.randomBytes(32)
        let ours = BIP39.words(for: entropy).joined(separator: " ")
        let script = """
        import sys
        from mnemonic import Mnemonic
        m = Mnemonic("english")
        words = sys.argv[1]
        assert m.check(words), "mnemonic says the checksum fails"
        print(bytes(m.to_entropy(words)).hex())
        print(m.to_mnemonic(bytes.fromhex(sys.argv[2])))
        """
        let theirs = Array(repeating: UInt8(0xA5), count: 16) + Array(repeating: UInt8(0x3C), count: 16)
        let output = try python(script, [ours, theirs.map { String(format: "%02x", $0) }.joined()])
        let lines = output.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "python3 with the mnemonic package must run (scripts/test installs it): \(output)")
        guard lines.count == 2 else { return }
        #expect(lines[0] == entropy.map { String(format: "%02x", $0) }.joined())
        #expect(try BIP39.entropy(from: lines[1].split(separator: " ").map(String.init)) == theirs)
    }

    @Test func madePassphrasesAreEightListWords() {
        let one = Passphrase.generate(), two = Passphrase.generate()
        #expect(one != two)
        let words = one.split(separator: "-").map(String.init)
        #expect(words.count == 8 && words.allSatisfy { BIP39.english.contains($0) })
        #expect(Passphrase.bits >= 80)
        #expect(Passphrase.normalised("word-word\r\n") == "word-word")
    }

    static func failure(_ words: [String]) -> MnemonicError? {
        do {
            _ = try BIP39.entropy(from: words)
            return nil
        } catch {
            return error
        }
    }

    func python(_ script: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script] + arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let output = out.fileHandleForReading.readDataToEndOfFile(), errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: output + errors, as: UTF8.self)
    }
}
