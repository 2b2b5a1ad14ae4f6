/// Columns of numbers read in one pass over the bytes: a day with every type is mostly long
/// arrays of numbers (GPS fixes, ECG voltages), and reading them element by element through the
/// checked pull interface cost more than everything else the decoder does.
extension JSONScanner {
    /// An array of numbers and nulls (null as NaN; no number read is NaN), appended to `out`.
    /// `expected` is how many elements the caller expects (the length of a column read before):
    /// storage is sized by it rather than by counting commas first; any count reads correctly.
    public mutating func readNumberColumn(into out: inout [Double], expected: Int = 0) throws(JSONError) {
        try beginArray()
        if fastColumn(NumberElement.self, expected: expected, into: &out) { return }
        while try nextElement() { out.append(try readNull() ? .nan : try readNumber()) }
    }

    /// An array of integers within ±2^53 appended to `out`; `false` when an element is a number
    /// of another kind (the array is then read to its end), and a thrown error for anything else.
    public mutating func readIntegerColumn(into out: inout [Int64], expected: Int = 0) throws(JSONError) -> Bool {
        try beginArray()
        if fastColumn(IntegerElement.self, expected: expected, into: &out) { return true }
        var integral = true
        while try nextElement() {
            let n = try readNumber()
            if n.rounded(.towardZero) == n, n.magnitude <= 9_007_199_254_740_992 { out.append(Int64(n)) } else { integral = false }
        }
        return integral
    }

    /// Reads elements as a canonical body writes them — `element` reads one, and a comma or the
    /// closing bracket must follow it — into storage sized once, and stops before the first
    /// thing that is not such an element (or when the storage is full), leaving it and what
    /// follows to the checked reading, which gives the same values and the same errors. `true`
    /// when it consumed the closing `]`.
    @inline(__always)
    private mutating func fastColumn<Element: ColumnElement>(_: Element.Type, expected: Int, into out: inout [Element.Value]) -> Bool {
        guard pendingFirst else { return false }
        let capacity = expected > 0 ? expected : elementBound()
        guard capacity > 0 else { return false }
        let start = index
        var stop = start, closed = false
        let bytes = bytes
        let filled = [Element.Value](capacity: capacity) { slots in
            let buffer = bytes.span
            let end = buffer.count
            var at = start
            while !slots.isFull, at < end {
                let elementStart = at
                guard let value = Element.read(buffer, &at, end), at < end else { at = elementStart; break }
                let next = buffer[at]
                guard next == UInt8(ascii: ",") || next == UInt8(ascii: "]") else { at = elementStart; break }
                slots.append(value)
                at += 1
                if next == UInt8(ascii: "]") { closed = true; break }
            }
            stop = at
        }
        if closed {
            index = stop
            depth -= 1
            pendingFirst = false
        } else if !filled.isEmpty {
            // The comma before the element it stopped at is left for the checked reading, so
            // `[1,]` is refused as it would be element by element.
            index = stop - 1
            pendingFirst = false
        }
        if out.isEmpty { out = filled } else { out += filled }
        return closed
    }

    /// How many elements at most lie between here and the next `]` (commas + 1; 0 when none
    /// follows): eight bytes at a time, the bound for a column whose length nothing else told.
    private func elementBound() -> Int {
        let buffer = bytes.span
        var at = index, commas = 0
        while at + 8 <= buffer.count {
            let word = Self.word(buffer, at)
            let closing = Self.bytesEqual(word, UInt8(ascii: "]")), comma = Self.bytesEqual(word, UInt8(ascii: ","))
            if closing != 0 {
                let before = (UInt64(1) << UInt64(closing.trailingZeroBitCount)) &- 1
                return commas + (comma & before).nonzeroBitCount + 1
            }
            commas += comma.nonzeroBitCount
            at += 8
        }
        while at < buffer.count {
            if buffer[at] == UInt8(ascii: "]") { return commas + 1 }
            if buffer[at] == UInt8(ascii: ",") { commas += 1 }
            at += 1
        }
        return 0
    }

    /// The eight bytes at `at` (first byte lowest) as one word, from bounds-checked reads the
    /// compiler merges into one load.
    @inline(__always)
    private static func word(_ bytes: Span<UInt8>, _ at: Int) -> UInt64 {
        let eight = bytes.extracting(at..<(at + 8))
        var word: UInt64 = 0
        for i in 0..<8 { word |= UInt64(eight[i]) << (8 * UInt64(i)) }
        return word
    }

    /// The high bit of each byte of `word` that equals `byte`, exactly (no borrow between bytes).
    @inline(__always)
    private static func bytesEqual(_ word: UInt64, _ byte: UInt8) -> UInt64 {
        let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        let y = word ^ (0x0101_0101_0101_0101 &* UInt64(byte))
        return ~(((y & low7) &+ low7) | y | low7)
    }
}

/// How `fastColumn` reads one element of a kind of column; a type rather than a closure, so the
/// reading is inlined into the loop instead of called for each element.
private protocol ColumnElement {
    associatedtype Value
    /// The element at `at`, which moves past it; `nil`, leaving `at` alone, for anything the
    /// checked reading should take.
    static func read(_ bytes: Span<UInt8>, _ at: inout Int, _ end: Int) -> Value?
}

/// An integer of at most 15 digits (`-?(0|[1-9][0-9]*)`); not a fraction, an exponent or more
/// digits (the checked reading takes those).
private enum IntegerElement: ColumnElement {
    @inline(__always)
    static func read(_ bytes: Span<UInt8>, _ at: inout Int, _ end: Int) -> Int64? {
        var i = at
        let negative = bytes[i] == UInt8(ascii: "-")
        if negative {
            i += 1
            guard i < end else { return nil }
        }
        var digit = bytes[i] &- 0x30
        guard digit < 10 else { return nil }
        var value = Int64(digit)
        i += 1
        if digit != 0 {
            let first = i - 1
            while i < end {
                digit = bytes[i] &- 0x30
                if digit >= 10 { break }
                value = value &* 10 &+ Int64(digit)
                i += 1
            }
            guard i - first <= 15 else { return nil }
        }
        guard i == end || bytes[i] != UInt8(ascii: ".") else { return nil }
        at = i
        return negative ? -value : value
    }

}

/// A number of at most 15 digits without an exponent, or `null` (as NaN). At most 15 digits are
/// exact as a Double and so is 10^15, so one division is the correctly rounded value, what the
/// checked reading (and strtod) gives.
private enum NumberElement: ColumnElement {
    /// 10^k for 1 ≤ k ≤ 15, each exact; a switch the compiler makes a table of constants (a
    /// global array is reached through a lazy-initialisation check on every element).
    @inline(__always)
    static func power(_ k: Int) -> Double {
        switch k {
        case 1: 1e1
        case 2: 1e2
        case 3: 1e3
        case 4: 1e4
        case 5: 1e5
        case 6: 1e6
        case 7: 1e7
        case 8: 1e8
        case 9: 1e9
        case 10: 1e10
        case 11: 1e11
        case 12: 1e12
        case 13: 1e13
        case 14: 1e14
        default: 1e15
        }
    }

    @inline(__always)
    static func read(_ bytes: Span<UInt8>, _ at: inout Int, _ end: Int) -> Double? {
        var i = at
        var c = bytes[i]
        if c == UInt8(ascii: "n") {
            guard i + 4 <= end, bytes[i + 1] == UInt8(ascii: "u"), bytes[i + 2] == UInt8(ascii: "l"),
                  bytes[i + 3] == UInt8(ascii: "l") else { return nil }
            at = i + 4
            return .nan
        }
        let negative = c == UInt8(ascii: "-")
        if negative {
            i += 1
            guard i < end else { return nil }
            c = bytes[i]
        }
        var digit = c &- 0x30
        guard digit < 10 else { return nil }
        var mantissa = Int64(digit)
        var digits = 1
        i += 1
        if digit != 0 {
            while i < end {
                digit = bytes[i] &- 0x30
                if digit >= 10 { break }
                mantissa = mantissa &* 10 &+ Int64(digit)
                i += 1
                digits += 1
            }
        }
        var scale = 0
        if i < end, bytes[i] == UInt8(ascii: ".") {
            i += 1
            let fractionStart = i
            while i < end {
                digit = bytes[i] &- 0x30
                if digit >= 10 { break }
                mantissa = mantissa &* 10 &+ Int64(digit)
                i += 1
            }
            scale = i - fractionStart
            guard scale > 0 else { return nil }
            digits += scale
        }
        guard digits <= 15 else { return nil }
        at = i
        let value = scale == 0 ? Double(mantissa) : Double(mantissa) / power(scale)
        return negative ? -value : value
    }
}
