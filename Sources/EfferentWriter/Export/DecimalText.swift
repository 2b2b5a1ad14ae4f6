/// Parses the decimal numbers exports write (`74`, `0.12`, `-1.5e-3`) into Doubles without a String.
enum DecimalText {
    /// Exact powers of ten: a mantissa under 2^53 divided or multiplied by one of these rounds
    /// correctly (Clinger's fast path), which covers every number Apple writes.
    private static let powers: [Double] = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14,
                                           1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22]

    /// The number `raw` spells, or nil when it is not a plain decimal number.
    static func parse(_ raw: ArraySlice<UInt8>) -> Double? {
        var index = raw.startIndex
        let end = raw.endIndex
        guard index < end else { return nil }
        var negative = false
        if raw[index] == 0x2D || raw[index] == 0x2B { negative = raw[index] == 0x2D; index += 1 }
        var mantissa: UInt64 = 0
        var digitCount = 0
        var exponent = 0
        var sawDigit = false
        while index < end, raw[index] >= 0x30, raw[index] <= 0x39 {
            if digitCount < 19 { mantissa = mantissa * 10 + UInt64(raw[index] - 0x30); if mantissa > 0 { digitCount += 1 } } else { exponent += 1 }
            sawDigit = true
            index += 1
        }
        if index < end, raw[index] == 0x2E {
            index += 1
            while index < end, raw[index] >= 0x30, raw[index] <= 0x39 {
                if digitCount < 19 { mantissa = mantissa * 10 + UInt64(raw[index] - 0x30); exponent -= 1; if mantissa > 0 { digitCount += 1 } }
                sawDigit = true
                index += 1
            }
        }
        guard sawDigit else { return nil }
        if index < end, raw[index] == 0x65 || raw[index] == 0x45 {
            index += 1
            var exponentNegative = false
            if index < end, raw[index] == 0x2D || raw[index] == 0x2B { exponentNegative = raw[index] == 0x2D; index += 1 }
            var written = 0
            var sawExponentDigit = false
            while index < end, raw[index] >= 0x30, raw[index] <= 0x39 {
                if written < 10_000 { written = written * 10 + Int(raw[index] - 0x30) }
                sawExponentDigit = true
                index += 1
            }
            guard sawExponentDigit else { return nil }
            exponent += exponentNegative ? -written : written
        }
        guard index == end else { return nil }
        if digitCount < 19, mantissa < (1 << 53), exponent >= -22, exponent <= 22 {
            let magnitude = exponent < 0 ? Double(mantissa) / powers[-exponent] : Double(mantissa) * powers[exponent]
            return negative ? -magnitude : magnitude
        }
        return Double(String(decoding: raw, as: UTF8.self))
    }
}
