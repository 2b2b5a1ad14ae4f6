/// Bytes of XML being built, with the few formatting operations the generator needs done by hand
/// (integers, fixed-point decimals, Apple's date format): a gigabyte of text leaves no room for
/// `String(format:)` or `DateFormatter`.
struct TextBuffer {
    var bytes: [UInt8] = []

    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    mutating func append(_ raw: [UInt8]) { bytes.append(contentsOf: raw) }

    mutating func append(byte: UInt8) { bytes.append(byte) }

    /// `text` as it would sit in an attribute value: `& < > "` escaped, everything else as is
    /// (control characters included — that is a quirk, not an accident).
    mutating func appendEscaped(_ text: String) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): append("&amp;")
            case UInt8(ascii: "<"): append("&lt;")
            case UInt8(ascii: ">"): append("&gt;")
            case UInt8(ascii: "\""): append("&quot;")
            default: bytes.append(byte)
            }
        }
    }

    mutating func appendInt(_ value: Int64) {
        var v = value
        if v < 0 {
            bytes.append(UInt8(ascii: "-"))
            v = -v
        }
        if v < 10 {
            bytes.append(UInt8(ascii: "0") + UInt8(v))
            return
        }
        var digits = InlineArray<20, UInt8>(repeating: 0)
        var count = 0
        while v > 0 {
            digits[count] = UInt8(ascii: "0") + UInt8(v % 10)
            v /= 10
            count += 1
        }
        for index in stride(from: count - 1, through: 0, by: -1) { bytes.append(digits[index]) }
    }

    mutating func appendInt(_ value: Int) { appendInt(Int64(value)) }

    /// `value / 10^scale` written as a decimal with trailing zeros dropped (`1234, 3` → `1.234`,
    /// `1200, 3` → `1.2`, `5000, 3` → `5`), so the text is exactly the fixed-point number.
    mutating func appendDecimal(_ value: Int64, scale: Int) {
        var divisor: Int64 = 1
        for _ in 0..<scale { divisor *= 10 }
        let negative = value < 0
        let magnitude = negative ? -value : value
        if negative { bytes.append(UInt8(ascii: "-")) }
        appendInt(magnitude / divisor)
        var fraction = magnitude % divisor
        guard fraction != 0 else { return }
        var digits = scale
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        bytes.append(UInt8(ascii: "."))
        var leading: Int64 = 1
        for _ in 1..<max(digits, 1) { leading *= 10 }
        while leading > fraction && leading > 1 {
            bytes.append(UInt8(ascii: "0"))
            leading /= 10
        }
        appendInt(fraction)
    }

    mutating func appendTwoDigits(_ value: Int) {
        bytes.append(UInt8(ascii: "0") + UInt8(value / 10))
        bytes.append(UInt8(ascii: "0") + UInt8(value % 10))
    }

    /// `yyyy-MM-dd`.
    mutating func appendDate(_ date: LocalDate) {
        appendInt(date.year)
        bytes.append(UInt8(ascii: "-"))
        appendTwoDigits(date.month)
        bytes.append(UInt8(ascii: "-"))
        appendTwoDigits(date.day)
    }

    /// `yyyy-MM-dd HH:mm:ss ±HHMM` for the instant `seconds` (since 1970, UTC) shown at the fixed
    /// offset `offset` seconds east of UTC — Apple's format, one offset for every date (§1.4).
    mutating func appendAppleDate(_ seconds: Int64, offset: Int) {
        let wall = seconds + Int64(offset)
        let days = Int(wall >= 0 ? wall / 86400 : (wall - 86399) / 86400)
        let secondOfDay = Int(wall - Int64(days) * 86400)
        appendDate(LocalDate(daysSinceEpoch: days))
        bytes.append(UInt8(ascii: " "))
        appendTwoDigits(secondOfDay / 3600)
        bytes.append(UInt8(ascii: ":"))
        appendTwoDigits(secondOfDay / 60 % 60)
        bytes.append(UInt8(ascii: ":"))
        appendTwoDigits(secondOfDay % 60)
        bytes.append(UInt8(ascii: " "))
        let absolute = abs(offset)
        bytes.append(UInt8(ascii: offset < 0 ? "-" : "+"))
        appendTwoDigits(absolute / 3600)
        appendTwoDigits(absolute / 60 % 60)
    }

    /// ISO 8601 in UTC with `Z` (GPX `<time>`).
    mutating func appendISODate(_ seconds: Int64) {
        let days = Int(seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400)
        let secondOfDay = Int(seconds - Int64(days) * 86400)
        appendDate(LocalDate(daysSinceEpoch: days))
        bytes.append(UInt8(ascii: "T"))
        appendTwoDigits(secondOfDay / 3600)
        bytes.append(UInt8(ascii: ":"))
        appendTwoDigits(secondOfDay / 60 % 60)
        bytes.append(UInt8(ascii: ":"))
        appendTwoDigits(secondOfDay % 60)
        bytes.append(UInt8(ascii: "Z"))
    }
}
