/// Columns of numbers read in one pass over the bytes: a day with every type is mostly long
/// arrays of numbers (GPS fixes, ECG voltages), and reading them element by element through the
/// checked pull interface cost more than everything else the decoder does.
extension JSONScanner {
    /// An array of numbers and nulls (null as NaN; no number read is NaN), appended to `out`.
    public mutating func readNumberColumn(into out: inout [Double]) throws(JSONError) {
        try beginArray()
        if fastColumn(integers: false, into: &out, { $0 }) { return }
        while try nextElement() { out.append(try readNull() ? .nan : try readNumber()) }
    }

    /// An array of integers within ±2^53 appended to `out`; `false` when an element is a number
    /// of another kind (the array is then read to its end), and a thrown error for anything else.
    public mutating func readIntegerColumn(into out: inout [Int64]) throws(JSONError) -> Bool {
        try beginArray()
        if fastColumn(integers: true, into: &out, { Int64($0) }) { return true }
        var integral = true
        while try nextElement() {
            let n = try readNumber()
            if n.rounded(.towardZero) == n, n.magnitude <= 9_007_199_254_740_992 { out.append(Int64(n)) } else { integral = false }
        }
        return integral
    }

    /// `fastElements` into storage sized once: the elements are counted by the commas before the
    /// closing bracket (an upper bound; a column holds no strings or arrays, or the fast reading
    /// stops at them anyway), so no append checks capacity or uniqueness row by row.
    @inline(__always)
    private mutating func fastColumn<T>(integers: Bool, into out: inout [T], _ convert: (Double) -> T) -> Bool {
        guard pendingFirst else { return false }
        let bound = bytes.withUnsafeBufferPointer { buffer -> Int in
            var commas = 0, i = index
            while i < buffer.count {
                let byte = buffer[i]
                if byte == UInt8(ascii: "]") { return commas + 1 }
                if byte == UInt8(ascii: ",") { commas += 1 }
                if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") || byte == UInt8(ascii: "\"") { return 0 }
                i += 1
            }
            return 0
        }
        guard bound > 0 else { return false }
        var closed = false
        let filled = [T](unsafeUninitializedCapacity: bound) { buffer, count in
            closed = fastElements(integers: integers) { value in
                // The bound holds (the reading stops at the same bracket); checked all the same.
                if count < buffer.count { buffer.initializeElement(at: count, to: convert(value)); count += 1 }
            }
        }
        if out.isEmpty { out = filled } else { out += filled }
        return closed
    }

    /// Reads elements as a canonical body writes them — numbers of at most 15 digits without an
    /// exponent (integers only with `integers`), `null` (not with `integers`), bare commas — and
    /// stops before the first thing that is not, leaving it to the checked reading, which gives
    /// the same values and the same errors. `true` when it consumed the closing `]`.
    ///
    /// At most 15 digits are exact as a Double and 10^15 is too, so one division is the correctly
    /// rounded value, what the checked reading (and strtod) gives.
    @inline(__always)
    private mutating func fastElements(integers: Bool, _ append: (Double) -> Void) -> Bool {
        guard pendingFirst else { return false }
        let (stop, closed, first) = bytes.withUnsafeBufferPointer { buffer -> (Int, Bool, Bool) in
            let end = buffer.count
            var i = index, first = true
            func starts(_ byte: UInt8) -> Bool { byte == UInt8(ascii: "-") || byte == UInt8(ascii: "n") || (byte >= 0x30 && byte <= 0x39) }
            while true {
                let elementStart = i
                guard i < end else { return (elementStart, false, first) }
                var value: Double
                var c = buffer[i]
                if c == UInt8(ascii: "n") {
                    guard !integers, i + 4 <= end, buffer[i + 1] == UInt8(ascii: "u"), buffer[i + 2] == UInt8(ascii: "l"),
                          buffer[i + 3] == UInt8(ascii: "l") else { return (elementStart, false, first) }
                    value = .nan
                    i += 4
                } else {
                    let negative = c == UInt8(ascii: "-")
                    if negative {
                        i += 1
                        guard i < end else { return (elementStart, false, first) }
                        c = buffer[i]
                    }
                    guard c >= 0x30, c <= 0x39 else { return (elementStart, false, first) }
                    var mantissa: Int64 = 0, digits = 0, scale = 0
                    if c == 0x30 {
                        i += 1
                        digits = 1
                    } else {
                        while i < end, buffer[i] >= 0x30, buffer[i] <= 0x39 {
                            mantissa = mantissa &* 10 &+ Int64(buffer[i] &- 0x30)
                            i += 1
                            digits += 1
                        }
                    }
                    if i < end, buffer[i] == UInt8(ascii: ".") {
                        guard !integers else { return (elementStart, false, first) }
                        i += 1
                        let fractionStart = i
                        while i < end, buffer[i] >= 0x30, buffer[i] <= 0x39 {
                            mantissa = mantissa &* 10 &+ Int64(buffer[i] &- 0x30)
                            i += 1
                        }
                        scale = i - fractionStart
                        guard scale > 0 else { return (elementStart, false, first) }
                        digits += scale
                    }
                    guard digits <= 15, i < end, buffer[i] != UInt8(ascii: "e"), buffer[i] != UInt8(ascii: "E") else {
                        return (elementStart, false, first)
                    }
                    value = scale == 0 ? Double(mantissa) : Double(mantissa) / JSONScanner.powersOfTen[scale]
                    if negative { value = -value }
                }
                guard i < end else { return (elementStart, false, first) }
                if buffer[i] == UInt8(ascii: "]") {
                    append(value)
                    return (i + 1, true, false)
                }
                guard buffer[i] == UInt8(ascii: ","), i + 1 < end, starts(buffer[i + 1]) else {
                    // After this element something else follows: the checked reading takes it from its comma.
                    append(value)
                    return (i, false, false)
                }
                append(value)
                i += 1
                first = true
            }
        }
        index = stop
        if closed {
            depth -= 1
            pendingFirst = false
        } else {
            pendingFirst = first
        }
        return closed
    }
}
