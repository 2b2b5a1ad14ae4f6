import EfferentCore
import EfferentCrypto

/// BIP-39 mnemonic words (https://github.com/bitcoin/bips/blob/master/bip-0039.mediawiki) for
/// bytes a person writes down and types back: 128 to 256 bits of entropy, a checksum of its first
/// ENT/32 SHA-256 bits, and the whole cut into 11-bit indexes of the English list. 32 bytes make
/// 24 words; any BIP-39 tool (Python's `mnemonic`, a hardware wallet) reads them the same way.
public enum BIP39 {
    /// The words of `entropy` (16, 20, 24, 28 or 32 bytes).
    public static func words(for entropy: [UInt8]) -> [String] {
        precondition([16, 20, 24, 28, 32].contains(entropy.count), "BIP-39 takes 128 to 256 bits in steps of 32")
        let checksumBits = entropy.count * 8 / 32
        let bits = entropy + [Sodium.sha256(entropy)[0]]
        let count = (entropy.count * 8 + checksumBits) / 11
        return (0..<count).map { word in
            var index = 0
            for bit in (word * 11)..<(word * 11 + 11) {
                index = index << 1 | Int(bits[bit / 8] >> (7 - UInt8(bit % 8)) & 1)
            }
            return english[index]
        }
    }

    /// The entropy `typed` words stand for, each checked on its own first (so a slip is named
    /// where it is), then the checksum over all. A word may be typed as its first four letters or
    /// more, since no two list words share those; case and surrounding spaces do not matter.
    public static func entropy(from typed: [String]) throws(MnemonicError) -> [UInt8] {
        guard [12, 15, 18, 21, 24].contains(typed.count) else { throw .count(typed.count) }
        var indexes = [Int]()
        for (position, text) in typed.enumerated() {
            guard let index = index(of: text) else {
                let word = text.lowercased().trimmingCharacters(in: .whitespaces)
                throw .notAWord(position: position, typed: String(word.prefix(24)), nearest: NearestName.closest(to: word, in: english))
            }
            indexes.append(index)
        }
        let totalBits = typed.count * 11
        let checksumBits = totalBits / 33
        var bits = [UInt8](repeating: 0, count: (totalBits + 7) / 8)
        for (word, index) in indexes.enumerated() {
            for offset in 0..<11 where index >> (10 - offset) & 1 == 1 {
                let bit = word * 11 + offset
                bits[bit / 8] |= 1 << (7 - UInt8(bit % 8))
            }
        }
        let entropy = Array(bits.prefix((totalBits - checksumBits) / 8))
        let expected = Sodium.sha256(entropy)[0] >> (8 - UInt8(checksumBits))
        let stored = bits.count > entropy.count ? bits[entropy.count] >> (8 - UInt8(checksumBits)) : 0
        guard expected == stored else { throw .checksum }
        return entropy
    }

    /// The list index of a typed word: the word itself, or four or more of its first letters.
    static func index(of typed: String) -> Int? {
        let word = typed.lowercased().trimmingCharacters(in: .whitespaces)
        if let exact = byWord[word] { return exact }
        guard word.count >= 4, let candidate = byPrefix[String(word.prefix(4))], english[candidate].hasPrefix(word) else { return nil }
        return candidate
    }

    private static let byWord: [String: Int] = Dictionary(uniqueKeysWithValues: english.enumerated().map { ($0.element, $0.offset) })
    /// The list's words by their first four letters, which no two share.
    private static let byPrefix: [String: Int] = Dictionary(uniqueKeysWithValues: english.enumerated().map { (String($0.element.prefix(4)), $0.offset) })
}

/// Typed words that do not make a BIP-39 mnemonic, said so a person can find the slip.
public enum MnemonicError: Error, Equatable, CustomStringConvertible {
    case count(Int)
    /// The word at `position` (from 0) is on no list; `nearest` is the list word it is closest to.
    case notAWord(position: Int, typed: String, nearest: String?)
    case checksum

    public var description: String {
        switch self {
        case let .count(count):
            "A kit's words are 24 (12 to 24 in steps of 3 for any BIP-39 phrase), and \(count) were given."
        case let .notAWord(position, typed, nearest):
            "Word \(position + 1) (line \(position / KitSheet.wordsPerLine + 1) of the sheet), '\(typed)', is not a BIP-39 word"
                + (nearest.map { "; did you mean '\($0)'?" } ?? "; compare it with the sheet.")
        case .checksum:
            "Every word is a BIP-39 word, but together they fail their checksum: one was typed as another word of the list, or two are swapped; compare them with the sheet line by line."
        }
    }
}
