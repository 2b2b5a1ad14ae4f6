/// Why a phone's batch is refused. Each case is input that will never become valid, so the app
/// may stop resending it (Puls Sync Protocol v1 §7.2): what could pass on a retry (a busy store,
/// a full disk) is never one of these.
///
/// Descriptions name the line and the field, never a value from the batch.
public enum PulsBatchError: Error, Equatable, CustomStringConvertible {
    /// Malformed input (400): bad JSON, counts that do not match the lines, an unknown kind or
    /// wrapper key, a missing or mistyped field, a malformed UUID, a timestamp out of range.
    case malformed(String)
    /// Over one of the receiver's limits (413, §2.5).
    case tooLarge(String)
    /// A protocol version this receiver does not speak (400 with the fixed body of §7.3).
    case unsupportedVersion

    public var description: String {
        switch self {
        case let .malformed(problem): problem
        case let .tooLarge(problem): problem
        case .unsupportedVersion: "unsupported protocol version"
        }
    }
}

/// A HealthKit UUID as 16 bytes: the wire's upper, lower or mixed case all name the same sample
/// (§3.4), and the store keys on the bytes.
public struct PulsUUID: Hashable, Sendable, CustomStringConvertible {
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// The 16 bytes hashed at once, not one element at a time: the receiver looks up every sample's UUID.
    public func hash(into hasher: inout Hasher) {
        guard bytes.count == 16 else { return hasher.combine(bytes) }
        let (first, second) = halves
        hasher.combine(first)
        hasher.combine(second)
    }

    /// The 16 bytes as two words, first byte lowest (only for the 16 bytes of a parsed UUID).
    public var halves: (UInt64, UInt64) {
        let span = bytes.span
        var first: UInt64 = 0, second: UInt64 = 0
        for i in 0..<8 {
            first |= UInt64(span[i]) << (8 * UInt64(i))
            second |= UInt64(span[8 + i]) << (8 * UInt64(i))
        }
        return (first, second)
    }

    /// The canonical 8-4-4-4-12 form, any case; nil for anything else.
    public init?(_ text: String) {
        // Read in place: every sample of a batch has one, so no copy of the text is made.
        guard let bytes = Self.parse(text.utf8Span.span) else { return nil }
        self.bytes = bytes
    }

    private static func parse(_ utf8: Span<UInt8>) -> [UInt8]? {
        guard utf8.count == 36 else { return nil }
        func nibble(_ character: UInt8) -> UInt8? {
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var valid = true
        let bytes = [UInt8](capacity: 16) { buffer in
            var index = 0
            // Hexadecimal pairs never straddle a hyphen (8-4-4-4-12).
            while index < 36 {
                if index == 8 || index == 13 || index == 18 || index == 23 {
                    guard utf8[index] == UInt8(ascii: "-") else { valid = false; break }
                    index += 1
                    continue
                }
                guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { valid = false; break }
                buffer.append(high << 4 | low)
                index += 2
            }
            if !valid { buffer.removeAll() }
        }
        return valid ? bytes : nil
    }

    /// Lower case, as `/v1/uuids` answers.
    public var description: String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
