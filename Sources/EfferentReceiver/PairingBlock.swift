import EfferentQRCode
import EfferentWriter

/// What `efferent receive pair` hands the phone: the receiver's URL, the token, the user ID, and
/// the pairing link the PulsHealth app reads (typed, pasted, or scanned with the iPhone camera):
/// `puls://pair?url=<percent-encoded base URL>&token=<token>&user=<user UUID>`.
public struct PairingBlock: Sendable {
    public let url: String
    public let token: String
    public let user: PulsUUID

    public init(url: String, token: String, user: PulsUUID) {
        self.url = url
        self.token = token
        self.user = user
    }

    public var link: String {
        "puls://pair?url=\(Self.percentEncoded(url))&token=\(Self.percentEncoded(token))&user=\(user)"
    }

    /// RFC 3986 §2.3: everything but the unreserved characters as `%XX`.
    static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let digits = Array("0123456789ABCDEF".unicodeScalars)
                out += "%" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0x0F)])
            }
        }
        return out
    }

    /// The link as a QR code drawn in a terminal, two rows of modules per line of half blocks,
    /// with the 4-module quiet zone the standard asks for. Light modules are drawn (the block
    /// characters), dark ones left blank; `colors` paints white on black so the code reads the
    /// same on a light or a dark terminal (without it, it reads on a dark one).
    public func qrLines(colors: Bool) throws -> [String] {
        let code = try QRCode(encoding: link)
        let quiet = 4
        let range = -quiet..<(code.size + quiet)
        var lines = [String]()
        for row in stride(from: range.lowerBound, to: range.upperBound, by: 2) {
            var line = colors ? "\u{1B}[38;5;231;48;5;16m" : ""
            for column in range {
                let top = !code.isDark(row: row, column: column)
                let bottom = row + 1 < range.upperBound && !code.isDark(row: row + 1, column: column)
                line += top && bottom ? "█" : top ? "▀" : bottom ? "▄" : " "
            }
            lines.append(line + (colors ? "\u{1B}[0m" : ""))
        }
        return lines
    }
}
