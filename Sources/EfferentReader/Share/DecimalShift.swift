import EfferentCore

/// A number as the CLI writes it (the shortest text that reads back to the same Double, as
/// every answer's JSON writes it), with its decimal point moved: a fraction `0.97` becomes the
/// percentage `97` exactly, by moving the point in the text, never by a multiplication that
/// would write `97.00000000000001`. So a shared value is the CLI's number in another unit, digit
/// for digit.
enum DecimalShift {
    /// The JSON number text of `value` with the point moved `places` to the right.
    static func text(_ value: Double, places: Int) -> String {
        var writer = JSONWriter(reservingCapacity: 32)
        // Shared values are finite (the archive holds no other).
        try? writer.number(value)
        let written = String(decoding: writer.bytes, as: UTF8.self)
        return places == 0 ? written : shift(written, by: places)
    }

    /// Moves the point of a decimal text (`-1.25e-05`) `places` to the right, writing the result
    /// without an exponent and without needless zeros.
    static func shift(_ text: String, by places: Int) -> String {
        var characters = Substring(text)
        var negative = false
        if characters.first == "-" { negative = true; characters = characters.dropFirst() }
        var exponent = 0
        if let mark = characters.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            exponent = Int(characters[characters.index(after: mark)...]) ?? 0
            characters = characters[..<mark]
        }
        var digits = ""
        var pointAt: Int?
        for character in characters {
            if character == "." { pointAt = digits.count } else { digits.append(character) }
        }
        // The value is digits × 10^(exponent - decimals).
        let decimals = digits.count - (pointAt ?? digits.count)
        var power = exponent - decimals + places
        var kept = Array(digits)
        while kept.count > 1, kept.first == "0" { kept.removeFirst() }
        // Trailing zeros of the digits move into the power.
        while kept.count > 1, kept.last == "0", power < 0 { kept.removeLast(); power += 1 }
        var out: String
        if power >= 0 {
            out = String(kept) + String(repeating: "0", count: kept == ["0"] ? 0 : power)
        } else {
            let fraction = -power
            if kept.count > fraction {
                out = String(kept[..<(kept.count - fraction)]) + "." + String(kept[(kept.count - fraction)...])
            } else {
                out = "0." + String(repeating: "0", count: fraction - kept.count) + String(kept)
            }
        }
        if out == "0" { negative = false }
        return (negative ? "-" : "") + out
    }
}
