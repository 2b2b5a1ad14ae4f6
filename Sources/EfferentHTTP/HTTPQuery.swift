/// A request's query string, percent-decoded (`+` as a space): a name may be given several times
/// where a route takes a list (`metric=steps&metric=heartRate`), and `value(_:)` refuses that
/// where it takes one.
public struct HTTPQuery: Sendable {
    private var values: [String: [String]] = [:]

    public init(_ raw: Substring) throws(HTTPError) {
        for pair in raw.split(separator: "&") where !pair.isEmpty {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]), let value = parts.count == 2 ? Self.decode(parts[1]) : "" else {
                throw HTTPError(400, "the query is not valid percent-encoding")
            }
            values[name, default: []].append(value)
        }
    }

    /// Every value given for `name`, in order; empty ones left out.
    public func values(_ name: String) -> [String] { (values[name] ?? []).filter { !$0.isEmpty } }

    /// The one value of `name`, nil when absent or empty; refused when given twice.
    public func value(_ name: String) throws(HTTPError) -> String? {
        let all = values(name)
        guard all.count <= 1 else { throw HTTPError(400, "\(name.prefix(20)) is given more than once in the query") }
        return all.first
    }

    /// Every name the query gives.
    public var names: Set<String> { Set(values.keys) }

    /// Percent-decoding of one name or value (`+` is a space); nil when it is not valid UTF-8 or
    /// a `%` is not followed by two hex digits.
    public static func decode(_ text: Substring) -> String? { decode(text, plusIsSpace: true) }

    /// Percent-decoding of one path segment (RFC 3986 §2.1): `%3A` is `:`, and a `+` stays a plus
    /// (only a query's form encoding makes it a space), so `2025-06-01T07:00:00+02:00` reads as
    /// written; nil as `decode`.
    public static func decodeSegment(_ text: Substring) -> String? { decode(text, plusIsSpace: false) }

    private static func decode(_ text: Substring, plusIsSpace: Bool) -> String? {
        var bytes = [UInt8]()
        var iterator = text.utf8.makeIterator()
        func hex(_ byte: UInt8?) -> UInt8? {
            switch byte {
            case let b? where b >= 0x30 && b <= 0x39: b - 0x30
            case let b? where b >= 0x41 && b <= 0x46: b - 0x41 + 10
            case let b? where b >= 0x61 && b <= 0x66: b - 0x61 + 10
            default: nil
            }
        }
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+") where plusIsSpace: bytes.append(0x20)
            case UInt8(ascii: "%"):
                guard let high = hex(iterator.next()), let low = hex(iterator.next()) else { return nil }
                bytes.append(high << 4 | low)
            default: bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
