/// One tag (or run of text) as `HealthXMLScanner` reports it: a view into the scanner's buffer,
/// valid only inside the handler it is passed to. Names and values stay bytes until asked for.
public struct XMLTag {
    public enum Kind: Sendable {
        /// `<Name …>`
        case start
        /// `<Name …/>`
        case empty
        /// `</Name>`
        case end
        /// Character data between tags (only when the scanner was asked to report text).
        case text
    }

    /// Where one attribute's name and value lie in the buffer.
    struct Span {
        var nameStart: Int
        var nameEnd: Int
        var valueStart: Int
        var valueEnd: Int
        /// Whether the value holds an `&` and so needs entity decoding.
        var hasEntity: Bool
    }

    public let kind: Kind
    /// Offset of the tag's `<` from the start of the input.
    public let byteOffset: UInt64
    let bytes: [UInt8]
    let nameRange: Range<Int>
    let spans: [Span]

    /// Whether the element's name is exactly `name`.
    public func nameIs(_ name: StaticString) -> Bool {
        XMLBytes.equal(bytes, nameRange, name)
    }

    /// The element's name (the text, for `.text`).
    public var name: String { String(decoding: bytes[nameRange], as: UTF8.self) }

    /// For `.text`: the character data, raw (entities not decoded).
    public var rawText: ArraySlice<UInt8> { bytes[nameRange] }

    /// The number of attributes.
    public var attributeCount: Int { spans.count }

    /// The raw bytes of the last attribute called `name` (entities not decoded), or nil.
    public func rawAttribute(_ name: StaticString) -> ArraySlice<UInt8>? {
        guard let span = span(name) else { return nil }
        return bytes[span.valueStart..<span.valueEnd]
    }

    /// The raw bytes of the last attribute called `name` and whether they need entity decoding,
    /// found in one lookup (for attributes read on every record), or nil.
    func rawAttributeAndEntity(_ name: StaticString) -> (raw: ArraySlice<UInt8>, hasEntity: Bool)? {
        guard let span = span(name) else { return nil }
        return (bytes[span.valueStart..<span.valueEnd], span.hasEntity)
    }

    /// The value of the last attribute called `name`, entities decoded, or nil.
    public func attribute(_ name: StaticString) -> String? {
        guard let span = span(name) else { return nil }
        return decoded(span)
    }

    /// Whether the attribute called `name` is exactly `value` as written (no entity decoding).
    public func attribute(_ name: StaticString, is value: StaticString) -> Bool {
        guard let span = span(name) else { return false }
        return XMLBytes.equal(bytes, span.valueStart..<span.valueEnd, value)
    }

    /// Whether the attribute called `name` needs entity decoding.
    func hasEntity(_ name: StaticString) -> Bool { span(name)?.hasEntity ?? false }

    /// Every attribute as decoded strings, in order (for tests and rare elements).
    public var attributes: [(name: String, value: String)] {
        spans.map { (String(decoding: bytes[$0.nameStart..<$0.nameEnd], as: UTF8.self), decoded($0)) }
    }

    private func span(_ name: StaticString) -> Span? {
        var index = spans.count - 1
        while index >= 0 {
            let span = spans[index]
            if XMLBytes.equal(bytes, span.nameStart..<span.nameEnd, name) { return span }
            index -= 1
        }
        return nil
    }

    private func decoded(_ span: Span) -> String {
        let raw = bytes[span.valueStart..<span.valueEnd]
        return span.hasEntity ? XMLBytes.decodeEntities(raw) : String(decoding: raw, as: UTF8.self)
    }
}
