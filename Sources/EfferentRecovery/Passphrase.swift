import EfferentCrypto

/// A passphrase made for the owner: eight words drawn uniformly from the BIP-39 list (2048 words,
/// 11 bits each: 88 bits), joined by dashes. The kit's own words come from the same list, so
/// whoever types either needs one list; the passphrase is never printed on a single kit.
public enum Passphrase {
    public static let words = 8
    public static var bits: Int { words * 11 }

    public static func generate() -> String {
        // Two random bytes a word, of which the low 11 bits index the list: 2048 is a power of
        // two, so every word is equally likely.
        let random = Sodium.randomBytes(words * 2)
        return (0..<words).map { index in
            BIP39.english[(Int(random[2 * index]) << 8 | Int(random[2 * index + 1])) & 2047]
        }.joined(separator: "-")
    }

    /// The passphrase as given: a file's or a prompt's text without its line ending.
    public static func normalised(_ text: String) -> String {
        var text = text
        while let last = text.last, last.isNewline { text.removeLast() }
        return text
    }
}
