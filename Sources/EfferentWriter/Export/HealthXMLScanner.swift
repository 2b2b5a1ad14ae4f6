import EfferentSystem
import Foundation

/// A streaming XML tokenizer for Apple Health exports (and their GPX routes), fed byte chunks.
///
/// Written by hand because FoundationXML's `XMLParser` crashes on every real export's DTD
/// (apple-health-export.md §1.9): everything before the root element — the XML declaration and
/// the DTD, malformed or not — is skipped unread. It reports start, empty and end tags with their
/// attributes as byte spans (decoded on request), and skips comments, processing instructions and
/// text (unless asked for text). It is lenient where real exports are broken: XML-illegal control
/// characters inside values are kept, attributes may span lines, and a name without `=` (iOS 8's
/// metadata-as-attributes) is skipped. Success is reaching the root's end tag.
public final class HealthXMLScanner {
    /// The file's name, for errors.
    public let label: String
    /// Whether the root's end tag has been seen; anything after it is ignored.
    public private(set) var reachedEnd = false
    /// Bytes fed so far.
    public private(set) var bytesFed: UInt64 = 0

    private let root: [UInt8]
    private let reportsText: Bool
    private var foundRoot = false
    /// The bytes not scanned yet: a tag cut by the last chunk's end, then the next chunk. One
    /// buffer serves the whole input, so a chunk is copied into memory already in use rather than
    /// into a fresh allocation each time.
    private var buffer: [UInt8] = []
    /// Input offset of `buffer`'s first byte.
    private var carryOffset: UInt64 = 0
    private var spanStorage: [XMLTag.Span] = []

    /// The longest tag kept waiting for its end: a file with a runaway tag is refused, not buffered.
    static let maximumTagBytes = 64 << 20

    /// `root` is the element everything before which is skipped (`HealthData`, or `gpx`).
    public init(label: String, root: String = "HealthData", reportsText: Bool = false) {
        self.label = label
        self.root = Array(root.utf8)
        self.reportsText = reportsText
    }

    /// Scans `chunk`, calling `handler` for each complete tag; a tag cut by the chunk's end waits for the next one.
    public func feed(_ chunk: [UInt8], _ handler: (XMLTag) throws -> Void) throws {
        bytesFed += UInt64(chunk.count)
        guard !reachedEnd else { return }
        buffer.append(contentsOf: chunk)
        var start = 0
        if !foundRoot {
            guard let rootIndex = findRoot(buffer) else {
                // Keep just enough to recognise a `<HealthData` cut by the chunk boundary.
                let drop = buffer.count - min(buffer.count, root.count + 1)
                carryOffset += UInt64(drop)
                buffer.removeSubrange(..<drop)
                return
            }
            foundRoot = true
            start = rootIndex
        }
        let stop = try scan(buffer, from: start, handler)
        carryOffset += UInt64(stop)
        guard !reachedEnd else {
            buffer = []
            return
        }
        guard buffer.count - stop <= Self.maximumTagBytes else { throw ExportError.malformedXML(file: label, byteOffset: carryOffset) }
        buffer.removeSubrange(..<stop)
    }

    /// Checks the input ended where it should: after the root's end tag.
    public func finish() throws(ExportError) {
        guard foundRoot else { throw .notHealthExport(file: label) }
        guard reachedEnd else { throw .cutShort(file: label) }
    }

    // MARK: Scanning

    private func findRoot(_ bytes: [UInt8]) -> Int? {
        var index = 0
        let last = bytes.count - root.count - 1
        while index < last {
            if bytes[index] == 0x3C, bytes[index + 1] == root[0] {
                var matches = true
                for offset in 1..<root.count where bytes[index + 1 + offset] != root[offset] { matches = false; break }
                if matches, Self.endsName(bytes[index + 1 + root.count]) { return index }
            }
            index += 1
        }
        return nil
    }

    @inline(__always)
    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D }

    @inline(__always)
    private static func endsName(_ byte: UInt8) -> Bool { isSpace(byte) || byte == 0x3E || byte == 0x2F }

    /// Scans complete tags from `start`; returns where the first incomplete one begins (or the end).
    private func scan(_ bytes: [UInt8], from start: Int, _ handler: (XMLTag) throws -> Void) throws -> Int {
        let count = bytes.count
        var spans = spanStorage
        spanStorage = []
        defer { spanStorage = spans }
        var index = start
        while index < count {
            var open = index
            while open < count, bytes[open] != 0x3C { open += 1 }
            if reportsText, open > index {
                if open == count { return index }
                try handler(XMLTag(kind: .text, byteOffset: carryOffset + UInt64(index), bytes: bytes, nameRange: index..<open, spans: []))
            }
            guard open + 1 < count else { return open }
            let second = bytes[open + 1]
            if second == 0x2F { // </name>
                var close = open + 2
                while close < count, bytes[close] != 0x3E { close += 1 }
                if close == count { return open }
                var nameEnd = open + 2
                while nameEnd < close, !Self.isSpace(bytes[nameEnd]) { nameEnd += 1 }
                let nameRange = (open + 2)..<nameEnd
                try handler(XMLTag(kind: .end, byteOffset: carryOffset + UInt64(open), bytes: bytes, nameRange: nameRange, spans: []))
                index = close + 1
                if nameRange.count == root.count, bytes[nameRange].elementsEqual(root) {
                    reachedEnd = true
                    return index
                }
            } else if second == 0x21 || second == 0x3F { // <!-- -->, <![CDATA[ ]]>, <!…>, <?…?>
                guard let next = try skipMarkup(bytes, open, handler) else { return open }
                index = next
            } else {
                spans.removeAll(keepingCapacity: true)
                guard let next = try startTag(bytes, open, &spans, handler) else { return open }
                index = next
            }
        }
        return index
    }

    /// Parses `<name attr="value" …>` or `<name …/>` at `open`; nil when the tag is not complete yet.
    private func startTag(_ bytes: [UInt8], _ open: Int, _ spans: inout [XMLTag.Span], _ handler: (XMLTag) throws -> Void) throws -> Int? {
        let count = bytes.count
        var index = open + 1
        while index < count, !Self.endsName(bytes[index]) { index += 1 }
        let nameRange = (open + 1)..<index
        var kind = XMLTag.Kind.start
        while true {
            while index < count, Self.isSpace(bytes[index]) { index += 1 }
            guard index < count else { return nil }
            let byte = bytes[index]
            if byte == 0x3E { index += 1; break }
            if byte == 0x2F {
                guard index + 1 < count else { return nil }
                index += 1
                if bytes[index] == 0x3E { kind = .empty; index += 1; break }
                continue
            }
            let nameStart = index
            while index < count {
                let b = bytes[index]
                if b == 0x3D || b == 0x3E || b == 0x2F || Self.isSpace(b) { break }
                index += 1
            }
            let nameEnd = index
            while index < count, Self.isSpace(bytes[index]) { index += 1 }
            guard index < count else { return nil }
            guard bytes[index] == 0x3D else { continue } // A name with no value: skipped.
            index += 1
            while index < count, Self.isSpace(bytes[index]) { index += 1 }
            guard index < count else { return nil }
            let quote = bytes[index]
            var hasEntity = false
            if quote == 0x22 || quote == 0x27 {
                // Values run long (a device's description is ~150 bytes): libc's memchr looks for
                // the closing quote, and for an `&` within, many bytes at a time.
                let valueStart = index + 1
                guard let valueEnd = Self.first(quote, in: bytes, valueStart..<count) else { return nil }
                hasEntity = Self.first(0x26, in: bytes, valueStart..<valueEnd) != nil
                spans.append(XMLTag.Span(nameStart: nameStart, nameEnd: nameEnd, valueStart: valueStart, valueEnd: valueEnd, hasEntity: hasEntity))
                index = valueEnd + 1
            } else {
                let valueStart = index
                while index < count, bytes[index] != 0x3E, !Self.isSpace(bytes[index]) {
                    if bytes[index] == 0x26 { hasEntity = true }
                    index += 1
                }
                guard index < count else { return nil }
                spans.append(XMLTag.Span(nameStart: nameStart, nameEnd: nameEnd, valueStart: valueStart, valueEnd: index, hasEntity: hasEntity))
            }
        }
        guard !nameRange.isEmpty else { throw ExportError.malformedXML(file: label, byteOffset: carryOffset + UInt64(open)) }
        try handler(XMLTag(kind: kind, byteOffset: carryOffset + UInt64(open), bytes: bytes, nameRange: nameRange, spans: spans))
        return index
    }

    /// Skips a comment, CDATA section (reported as text when text is wanted), declaration or
    /// processing instruction at `open`; nil when it is not complete yet.
    private func skipMarkup(_ bytes: [UInt8], _ open: Int, _ handler: (XMLTag) throws -> Void) throws -> Int? {
        if Self.hasPrefix(bytes, open, "<!--") {
            return Self.find(bytes, from: open + 4, "-->")
        }
        if Self.hasPrefix(bytes, open, "<![CDATA[") {
            guard let end = Self.find(bytes, from: open + 9, "]]>") else { return nil }
            if reportsText {
                try handler(XMLTag(kind: .text, byteOffset: carryOffset + UInt64(open), bytes: bytes, nameRange: (open + 9)..<(end - 3), spans: []))
            }
            return end
        }
        if bytes[open + 1] == 0x3F { return Self.find(bytes, from: open + 2, "?>") }
        // A declaration needs at least "<!-" or "<![" to know it is not a comment or CDATA.
        guard open + 3 < bytes.count else { return nil }
        return Self.find(bytes, from: open + 2, ">")
    }

    /// Where `byte` first occurs in `bytes[range]`, or nil.
    @inline(__always)
    private static func first(_ byte: UInt8, in bytes: [UInt8], _ range: Range<Int>) -> Int? {
        ByteSearch.firstIndex(of: byte, in: bytes, range)
    }

    private static func hasPrefix(_ bytes: [UInt8], _ at: Int, _ prefix: StaticString) -> Bool {
        at + prefix.utf8CodeUnitCount <= bytes.count && XMLBytes.equal(bytes, at..<(at + prefix.utf8CodeUnitCount), prefix)
    }

    /// The index just past the first `marker` at or after `from`, or nil.
    private static func find(_ bytes: [UInt8], from: Int, _ marker: StaticString) -> Int? {
        let length = marker.utf8CodeUnitCount
        var index = from
        while index + length <= bytes.count {
            if XMLBytes.equal(bytes, index..<(index + length), marker) { return index + length }
            index += 1
        }
        return nil
    }
}
