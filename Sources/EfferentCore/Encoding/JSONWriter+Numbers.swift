/// Number text written straight into scratch memory, and columns of it appended a batch at a
/// time: a day with every type is mostly columns of numbers (GPS fixes, ECG voltages), and
/// appending each element byte by byte checked the buffer's uniqueness and capacity each time.
extension JSONWriter {
    /// Room any one element of `elements` may take: the longest `description` of a Double is 24 bytes.
    static var elementRoom: Int { 32 }

    /// The digits of `n` (and its sign) appended to `out`, which must have room for 20 bytes.
    @inline(__always)
    static func integer(_ n: Int64, into out: inout OutputSpan<UInt8>) {
        if n < 0 { out.append(UInt8(ascii: "-")) }
        let v = n.magnitude
        var digits = 1, power: UInt64 = 10
        while digits < 19, v >= power {
            digits += 1
            power &*= 10
        }
        let first = out.count
        out.append(repeating: 0x30, count: digits)
        var rest = v, at = first + digits
        repeat {
            at -= 1
            out[at] = UInt8(truncatingIfNeeded: rest % 10) &+ 0x30
            rest /= 10
        } while rest > 0
    }

    /// A finite number as `number(_:)` writes it, appended to `out`, which must have room for 24 bytes.
    @inline(__always)
    static func number(_ n: Double, into out: inout OutputSpan<UInt8>) {
        // Every integral Double inside Int64's range is written as digits, as decision A.5 says.
        if n.magnitude < 9.2e18, Double(Int64(n)) == n { return integer(Int64(n), into: &out) }
        if shortDecimal(n, into: &out) { return }
        for byte in n.description.utf8 { out.append(byte) }
    }

    /// `n` as `description` would write it when its shortest round-trip text has at most 15
    /// significant digits and 10^-3 ≤ |n| < 10^15 (where `description` writes plain decimals),
    /// appended to `out` (room for 24 bytes); `false`, writing nothing, for any other number.
    ///
    /// The first k for which `round(|n|·10^k) / 10^k` reads back as |n| gives the shortest text:
    /// below 10^15 both operands of that division are exact Doubles, so the division is the
    /// correctly rounded reading of the decimal, and at most one k-digit decimal can read back as
    /// |n| (their spacing is several ulps). GPS fixes, voltages and most readings are such numbers.
    static func shortDecimal(_ n: Double, into out: inout OutputSpan<UInt8>) -> Bool {
        let magnitude = n.magnitude
        guard magnitude >= 1e-3, magnitude < 1e15 else { return false }
        var scale = 1.0  // 10^k, exact for every k tried
        for k in 1...15 {
            scale *= 10
            let product = magnitude * scale
            guard product < 1e15 else { return false }
            // round(product), half away from zero, without a call into libm: the fraction of a
            // Double below 2^53 is exact, and so is its truncation.
            let truncated = Double(Int64(product))
            let candidate = product - truncated >= 0.5 ? truncated + 1 : truncated
            guard candidate < 1e15 else { return false }
            guard candidate / scale == magnitude else { continue }
            let digits = Int64(candidate), unit = Int64(scale)
            if n < 0 { out.append(UInt8(ascii: "-")) }
            integer(digits / unit, into: &out)
            out.append(UInt8(ascii: "."))
            let point = out.count - 1
            out.append(repeating: 0x30, count: k)
            var fraction = digits % unit
            for at in stride(from: point + k, to: point, by: -1) {
                out[at] = UInt8(truncatingIfNeeded: fraction % 10) &+ 0x30
                fraction /= 10
            }
            return true
        }
        return false
    }
}
