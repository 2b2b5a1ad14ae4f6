/// The strict reader under `JSONParser`, also usable as a pull parser: a decoder that knows its
/// shape walks objects member by member and reads numbers and strings straight into its own
/// types, with no tree and no hashing (the day-body decoder reads a decade this way).
public struct JSONScanner {
    let bytes: [UInt8]
    var index = 0
    var depth = 0

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
        skipSpace()
    }

    /// Checks that nothing but white space follows the value.
    public mutating func finish() throws(JSONError) {
        skipSpace()
        guard index == bytes.count else { throw error("text after the value") }
    }

    func error(_ what: String) -> JSONError { .syntax(offset: index, what: what) }

    // MARK: Pull interface

    /// Enters an object; throws unless one starts here.
    public mutating func beginObject() throws(JSONError) {
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { throw error("expected an object") }
        try enter()
        index += 1
        skipSpace()
        pendingFirst = true
    }

    /// The next member's name, positioned at its value; `nil` when the object closes.
    public mutating func nextMember() throws(JSONError) -> String? {
        skipSpace()
        guard index < bytes.count else { throw error("the text ends inside an object") }
        if bytes[index] == UInt8(ascii: "}") { index += 1; depth -= 1; pendingFirst = false; return nil }
        if !pendingFirst {
            guard bytes[index] == UInt8(ascii: ",") else { throw error("expected ',' or '}'") }
            index += 1
            skipSpace()
        }
        pendingFirst = false
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a member name") }
        let key = try string()
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
        index += 1
        skipSpace()
        return key
    }

    /// The next member's name packed into an integer (its bytes, first byte lowest), positioned at
    /// its value; `0` when the object closes. Only for names of 1…8 plain ASCII bytes; any other
    /// name throws, so a caller that knows its short names switches on integers, not strings.
    public mutating func nextShortMember() throws(JSONError) -> UInt64 {
        skipSpace()
        guard index < bytes.count else { throw error("the text ends inside an object") }
        if bytes[index] == UInt8(ascii: "}") { index += 1; depth -= 1; pendingFirst = false; return 0 }
        if !pendingFirst {
            guard bytes[index] == UInt8(ascii: ",") else { throw error("expected ',' or '}'") }
            index += 1
            skipSpace()
        }
        pendingFirst = false
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a member name") }
        index += 1
        var packed: UInt64 = 0
        var shift: UInt64 = 0
        while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
            let byte = bytes[index]
            guard shift < 64, byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { throw error("not a short plain name") }
            packed |= UInt64(byte) << shift
            shift += 8
            index += 1
        }
        guard index < bytes.count, shift > 0 else { throw error("not a short plain name") }
        index += 1
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
        index += 1
        skipSpace()
        return packed
    }

    /// `name` packed as `nextShortMember` packs it (names of at most 8 ASCII bytes).
    public static func pack(_ name: StaticString) -> UInt64 {
        name.description.utf8.prefix(8).enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
    }

    /// Enters an array; throws unless one starts here.
    public mutating func beginArray() throws(JSONError) {
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "[") else { throw error("expected an array") }
        try enter()
        index += 1
        skipSpace()
        pendingFirst = true
    }

    /// Whether another element follows (positioned at it); `false` when the array closes.
    public mutating func nextElement() throws(JSONError) -> Bool {
        skipSpace()
        guard index < bytes.count else { throw error("the text ends inside an array") }
        if bytes[index] == UInt8(ascii: "]") { index += 1; depth -= 1; pendingFirst = false; return false }
        if !pendingFirst {
            guard bytes[index] == UInt8(ascii: ",") else { throw error("expected ',' or ']'") }
            index += 1
            skipSpace()
        }
        pendingFirst = false
        return true
    }

    /// Set after `[`, `{` or a consumed `,`: the next element or member comes without a comma.
    var pendingFirst = false

    /// Whether the white space stepped over so far held a line feed: outside white space valid
    /// JSON has none (strings hold control characters escaped), so a reader that needs one line
    /// (a layout-2 day body, §3.2 rule 1) learns it without a pass of its own over the bytes.
    public private(set) var readLineFeed = false

    /// Consumes a `null` if one stands here.
    public mutating func readNull() throws(JSONError) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "n") else { return false }
        try literal("null")
        return true
    }

    /// A number, or a typed error naming what stood there instead.
    public mutating func readNumber() throws(JSONError) -> Double {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "-") || isDigit(bytes[index]) else { throw error("expected a number") }
        return try number()
    }

    /// A string, or an error.
    public mutating func readString() throws(JSONError) -> String {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a string") }
        return try string()
    }

    /// Steps over an array of numbers, strings and nulls (a column) without reading one of them:
    /// a reader that does not want a series pays only for finding where its columns end. The
    /// skipped text is not checked; the caller has read it whole once before (the mirror keeps
    /// only days that decoded).
    public mutating func skipColumn() throws(JSONError) {
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "[") else { throw error("expected an array") }
        index += 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "]"):
                index += 1
                return
            case UInt8(ascii: "\""):
                index += 1
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                }
                index += 1
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                throw error("a nested value inside a column")
            default:
                index += 1
            }
        }
        throw error("the text ends inside an array")
    }

    /// Steps over a scalar member (`isScalar`) or a column.
    mutating func skipColumnOrValue(_ isScalar: Bool) throws(JSONError) {
        if isScalar { _ = try value() } else { try skipColumn() }
    }

    /// Any value, as a tree.
    public mutating func value() throws(JSONError) -> JSONValue {
        skipSpace()
        return try parseValue()
    }

    // MARK: Grammar

    private mutating func skipSpace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
            if bytes[index] == 0x0A { readLineFeed = true }
            index += 1
        }
    }

    private mutating func parseValue() throws(JSONError) -> JSONValue {
        guard index < bytes.count else { throw error("the text ends where a value was expected") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw error("unexpected character")
        }
    }

    private mutating func literal(_ word: String) throws(JSONError) {
        let count = word.utf8.count
        guard index + count <= bytes.count else { throw error("the text ends inside a literal") }
        let matches = bytes[index..<(index + count)].elementsEqual(word.utf8)
        guard matches else { throw error("unknown literal") }
        index += count
    }

    private mutating func enter() throws(JSONError) {
        depth += 1
        guard depth <= JSONParser.maxDepth else { throw .tooDeep }
    }

    private mutating func object() throws(JSONError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var members = [String: JSONValue]()
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
        while true {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a member name") }
            let key = try string()
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
            index += 1
            skipSpace()
            let member = try parseValue()
            guard members.updateValue(member, forKey: key) == nil else { throw .duplicateKey(key) }
            skipSpace()
            guard index < bytes.count else { throw error("the text ends inside an object") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
            throw error("expected ',' or '}'")
        }
    }

    private mutating func array() throws(JSONError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var items = [JSONValue]()
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
        while true {
            skipSpace()
            items.append(try parseValue())
            skipSpace()
            guard index < bytes.count else { throw error("the text ends inside an array") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
            throw error("expected ',' or ']'")
        }
    }

    private mutating func number() throws(JSONError) -> Double {
        let start = index
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        guard index < bytes.count else { throw error("a number ends early") }
        let digitsStart = index
        var integer: Int64 = 0
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else if isDigit(bytes[index]) {
            while index < bytes.count, isDigit(bytes[index]) {
                // Wraps harmlessly past 18 digits: such numbers take the slow path below.
                integer = integer &* 10 &+ Int64(bytes[index] &- 0x30)
                index += 1
            }
        } else {
            throw error("a number needs digits")
        }
        // Fast path: a plain integer of at most 15 digits is exact as a Double, so no text
        // conversion is needed (most numbers in a day body are such integers).
        let plain = index == bytes.count || (bytes[index] != UInt8(ascii: ".") && bytes[index] != UInt8(ascii: "e")
            && bytes[index] != UInt8(ascii: "E"))
        if plain, index - digitsStart <= 15 {
            return negative ? -Double(integer) : Double(integer)
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("a fraction needs digits") }
            let fractionStart = index
            var mantissa = integer
            while index < bytes.count, isDigit(bytes[index]) {
                mantissa = mantissa &* 10 &+ Int64(bytes[index] &- 0x30)
                index += 1
            }
            // Fast path (Clinger's): at most 15 digits in all, so the digits are exact as a Double,
            // and a power of ten up to 10^22 is exact too; one division of two exact Doubles is
            // correctly rounded, which is what strtod answers. GPS fixes and voltages are such numbers.
            let fractionDigits = index - fractionStart
            let exponentFollows = index < bytes.count && (bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E"))
            if !exponentFollows, fractionStart - 1 - digitsStart + fractionDigits <= 15 {
                let value = Double(mantissa) / JSONScanner.powersOfTen[fractionDigits]
                return negative ? -value : value
            }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("an exponent needs digits") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw .syntax(offset: start, what: "a number out of range") }
        return value
    }

    private func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    /// 10^0 … 10^15, each exact as a Double.
    static let powersOfTen: [Double] = (0...15).map { exponent in (0..<exponent).reduce(1.0) { value, _ in value * 10 } }

    private mutating func string() throws(JSONError) -> String {
        index += 1
        let start = index
        // Fast path: no escapes.
        var ascii = true
        while index < bytes.count {
            let b = bytes[index]
            if b == UInt8(ascii: "\"") {
                let s: String
                if ascii {
                    // Nothing to validate: ASCII is UTF-8. `String(validating:)` on a slice is
                    // generic and looks its metadata up on every call (5 % of a receiver's time).
                    s = String(decoding: bytes[start..<index], as: UTF8.self)
                } else {
                    guard let valid = String(validating: bytes[start..<index], as: UTF8.self) else { throw error("a string is not UTF-8") }
                    s = valid
                }
                index += 1
                return s
            }
            if b == UInt8(ascii: "\\") { break }
            guard b >= 0x20 else { throw error("a control character inside a string") }
            ascii = ascii && b < 0x80
            index += 1
        }
        var out = Array(bytes[start..<index])
        while index < bytes.count {
            let b = bytes[index]
            if b == UInt8(ascii: "\"") {
                guard let s = String(validating: out, as: UTF8.self) else { throw error("a string is not UTF-8") }
                index += 1
                return s
            }
            guard b >= 0x20 else { throw error("a control character inside a string") }
            if b != UInt8(ascii: "\\") { out.append(b); index += 1; continue }
            index += 1
            guard index < bytes.count else { break }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800...0xDBFF).contains(scalar) {
                    guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                        throw error("a lone surrogate in a string")
                    }
                    index += 2
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw error("a lone surrogate in a string") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw error("a lone surrogate in a string")
                }
                guard let unicode = Unicode.Scalar(scalar) else { throw error("an invalid escape") }
                out.append(contentsOf: String(Character(unicode)).utf8)
            default:
                throw error("an invalid escape")
            }
        }
        throw error("the text ends inside a string")
    }

    private mutating func hex4() throws(JSONError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("a \\u escape ends early") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[index]
            let d: UInt32
            switch b {
            case 0x30...0x39: d = UInt32(b - 0x30)
            case 0x61...0x66: d = UInt32(b - 0x61 + 10)
            case 0x41...0x46: d = UInt32(b - 0x41 + 10)
            default: throw error("a \\u escape needs four hex digits")
            }
            v = v << 4 | d
            index += 1
        }
        return v
    }
}
