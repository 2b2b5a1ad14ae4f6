import EfferentBytes

/// A JSON value as Efferent's bodies, edits and answers use it (RFC 8259).
///
/// Objects keep no member order: writers choose the order (sorted keys for day bodies, the fixed
/// order of protocol §8 for edits). Numbers are Doubles, as on the phone.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public subscript(key: String) -> JSONValue? {
        if case let .object(members) = self { return members[key] }
        return nil
    }

    public var stringValue: String? { if case let .string(s) = self { s } else { nil } }
    public var numberValue: Double? { if case let .number(n) = self { n } else { nil } }
    public var arrayValue: [JSONValue]? { if case let .array(a) = self { a } else { nil } }
    public var objectValue: [String: JSONValue]? { if case let .object(o) = self { o } else { nil } }
    public var isNull: Bool { self == .null }

    /// The number as an integer, when it is one exactly (and fits in 53 bits, where Doubles stay exact).
    public var integerValue: Int64? {
        guard case let .number(n) = self, n.rounded(.towardZero) == n, abs(n) <= 9_007_199_254_740_992 else { return nil }
        return Int64(n)
    }
}

extension JSONValue {
    /// Compact JSON with keys sorted by their UTF-8 bytes, `/` unescaped and non-ASCII raw: the
    /// canonical form of decision A.5. Throws for a non-finite number, which JSON cannot carry.
    public func canonicalBytes() throws(JSONError) -> [UInt8] {
        var writer = JSONWriter()
        try writer.write(self)
        return writer.bytes
    }
}

/// Appends JSON text to a byte buffer; callers that need a fixed member order write objects
/// member by member.
public struct JSONWriter {
    public private(set) var bytes: [UInt8] = []

    public init(reservingCapacity capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    public mutating func raw(_ text: StaticString) {
        UTF8Bytes.append(text, to: &bytes)
    }

    public mutating func raw(byte: UInt8) { bytes.append(byte) }

    /// At most `room` bytes already JSON, written by `body` straight after the text so far.
    @inline(__always)
    mutating func append(room: Int, _ body: (inout OutputSpan<UInt8>) -> Void) {
        bytes.append(addingCapacity: room, initializingWith: body)
    }

    public mutating func write(_ value: JSONValue) throws(JSONError) {
        switch value {
        case .null: raw("null")
        case let .bool(b): b ? raw("true") : raw("false")
        case let .number(n): try number(n)
        case let .string(s): string(s)
        case let .array(items):
            raw(byte: UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { raw(byte: UInt8(ascii: ",")) }
                try write(item)
            }
            raw(byte: UInt8(ascii: "]"))
        case let .object(members): try object(members, writing: nil) { _ throws(JSONError) in }
        }
    }

    /// The object of `members` and, when `key` is given, one more member whose value `body`
    /// writes, every key in canonical order: what `write(.object(members + [key: value]))` writes,
    /// without the value made first (a page of a thousand rows written straight as text). `body`
    /// wins over a member of the same name.
    public mutating func object(_ members: [String: JSONValue], writing key: String?, by body: (inout JSONWriter) throws(JSONError) -> Void) throws(JSONError) {
        raw(byte: UInt8(ascii: "{"))
        var keys = Array(members.keys)
        if let key {
            keys.removeAll { $0 == key }
            keys.append(key)
        }
        for (index, name) in keys.sorted(by: JSONWriter.keyOrder).enumerated() {
            if index > 0 { raw(byte: UInt8(ascii: ",")) }
            string(name)
            raw(byte: UInt8(ascii: ":"))
            if name == key { try body(&self) } else { try write(members[name]!) }
        }
        raw(byte: UInt8(ascii: "}"))
    }

    /// Bytes already JSON (or already inside a string and needing no escape), as they are.
    public mutating func raw(contentsOf text: some Collection<UInt8>) { bytes.append(contentsOf: text) }

    /// Key order of canonical JSON: by UTF-8 bytes (what Python's `sort_keys` and Foundation agree
    /// on for the ASCII keys the protocol uses).
    public static func keyOrder(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    /// An integral number is written as an integer (`842`), any other as the shortest text that
    /// reads back to the same Double (decision A.5; `JSONWriter+Numbers`).
    public mutating func number(_ n: Double) throws(JSONError) {
        guard n.isFinite else { throw .nonFiniteNumber }
        bytes.append(addingCapacity: JSONWriter.elementRoom) { JSONWriter.number(n, into: &$0) }
    }

    /// `count` elements separated by commas, the text of element `i` appended by `element(i, &out)`
    /// (at most `elementRoom` bytes), written straight into the array's spare capacity a batch at
    /// a time: one capacity check per batch, not one per byte.
    @inline(__always)
    mutating func elements(_ count: Int, _ element: (Int, inout OutputSpan<UInt8>) -> Void) {
        let room = 8192
        var i = 0
        while i < count {
            bytes.append(addingCapacity: room) { out in
                while i < count, out.freeCapacity > JSONWriter.elementRoom {
                    if i > 0 { out.append(UInt8(ascii: ",")) }
                    element(i, &out)
                    i += 1
                }
            }
        }
    }

    public mutating func integer(_ n: Int64) {
        let v = n.magnitude
        if v < 10 {
            if n < 0 { bytes.append(UInt8(ascii: "-")) }
            bytes.append(UInt8(truncatingIfNeeded: v) + 0x30)
            return
        }
        // Digits go straight into the array's spare capacity from the right: no per-byte append,
        // no reversal.
        bytes.append(addingCapacity: 20) { JSONWriter.integer(n, into: &$0) }
    }

    /// The UTF-8 of `s` as it is, no quotes and no escapes (for text known to need none).
    public mutating func text(_ s: String) {
        UTF8Bytes.append(s, to: &bytes)
    }

    /// Whether `string(s)` would escape anything in `s`.
    public static func needsEscape(_ s: String) -> Bool {
        UTF8Bytes.contains(s) { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
    }

    /// A JSON string: `"` and `\` escaped, control characters as `\b \f \n \r \t` or `\u00XX`,
    /// everything else (including `/` and non-ASCII) as raw UTF-8.
    public mutating func string(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        // Most strings need no escape: copy them whole rather than a byte at a time.
        if !JSONWriter.needsEscape(s) {
            UTF8Bytes.append(s, to: &bytes)
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): raw("\\\"")
            case UInt8(ascii: "\\"): raw("\\\\")
            case 0x08: raw("\\b")
            case 0x0C: raw("\\f")
            case 0x0A: raw("\\n")
            case 0x0D: raw("\\r")
            case 0x09: raw("\\t")
            case 0x00..<0x20:
                raw("\\u00")
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 15)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

public enum JSONError: Error, Equatable, CustomStringConvertible {
    case nonFiniteNumber
    case syntax(offset: Int, what: String)
    case tooDeep
    case duplicateKey(String)

    public var description: String {
        switch self {
        case .nonFiniteNumber: "JSON cannot carry an infinite or not-a-number value."
        case let .syntax(offset, what): "The JSON is malformed at byte \(offset): \(what)."
        case .tooDeep: "The JSON nests deeper than 64 levels."
        case let .duplicateKey(key): "The JSON object names \"\(key.prefix(40))\" twice."
        }
    }
}
