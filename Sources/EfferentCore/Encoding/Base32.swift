/// RFC 4648 §6 base32 in lower case without padding (`abcdefghijklmnopqrstuvwxyz234567`): bucket
/// ids (protocol §1.6) and the random half of edit names (§8).
public enum Base32 {
    private static let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567".utf8)

    public static func encodeLower<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var out = [UInt8]()
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in bytes {
            accumulator = accumulator << 8 | UInt32(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                out.append(alphabet[Int(accumulator >> UInt32(bits) & 31)])
            }
            accumulator &= (1 << UInt32(bits)) - 1
        }
        if bits > 0 { out.append(alphabet[Int(accumulator << UInt32(5 - bits) & 31)]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether every character of `text` is in the lower-case base32 alphabet.
    @inlinable
    public static func isLowerAlphabet(_ text: some StringProtocol) -> Bool {
        text.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x32 && $0 <= 0x37) }
    }
}
