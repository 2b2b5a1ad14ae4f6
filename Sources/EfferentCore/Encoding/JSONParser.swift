/// A strict RFC 8259 parser for bytes that come from outside: one value, optional surrounding
/// white space, UTF-8 only, no duplicate keys, at most 64 levels deep. Never traps on bad input.
public enum JSONParser {
    public static let maxDepth = 64

    public static func parse(_ bytes: [UInt8]) throws(JSONError) -> JSONValue {
        var scanner = JSONScanner(bytes)
        let value = try scanner.value()
        try scanner.finish()
        return value
    }

    public static func parse(_ text: String) throws(JSONError) -> JSONValue { try parse(Array(text.utf8)) }
}
