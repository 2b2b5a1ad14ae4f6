import EfferentCrypto

/// The name the service gives a queued edit (protocol §8).
///
/// `<13-digit ms since 1970>-<8 base32 chars>` (protocol §8, `^\d{13}-[a-z2-7]{8}$`), so the queue
/// lists in arrival order.
public struct EditName: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// Parses a name from outside (a URL path, a listing); refuses anything but the §8 form.
    public init(_ text: some StringProtocol) throws(EditError) {
        let bytes = Array(text.utf8)
        guard bytes.count == 22, bytes[13] == UInt8(ascii: "-"),
              bytes[0..<13].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              Base32.isLowerAlphabet(String(decoding: bytes[14...], as: UTF8.self)) else {
            throw .malformedName
        }
        rawValue = String(text)
    }

    /// A name for an edit arriving at `milliseconds` (the service clock) with five random bytes.
    public init(milliseconds: Int64, random: [UInt8] = Sodium.randomBytes(5)) {
        let clamped = min(max(milliseconds, 0), 9_999_999_999_999)
        let digits = String(clamped)
        // Five bytes are exactly eight base32 characters; other lengths are cut or zero-padded to five.
        let suffix = Base32.encodeLower((random + [0, 0, 0, 0, 0]).prefix(5))
        rawValue = String(repeating: "0", count: 13 - digits.count) + digits + "-" + suffix
    }

    /// The arrival moment the name carries, in milliseconds since 1970.
    public var milliseconds: Int64 { Int64(rawValue.prefix(13)) ?? 0 }

    public var description: String { rawValue }

    public static func < (a: EditName, b: EditName) -> Bool { a.rawValue < b.rawValue }
}
