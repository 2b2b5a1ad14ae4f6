import EfferentSystem

/// Byte-level helpers for the XML scanner: name comparison and entity decoding (XML 1.0 §4.1, §4.6).
enum XMLBytes {
    /// Whether `bytes[range]` equals `name` byte for byte.
    @inline(__always)
    static func equal(_ bytes: [UInt8], _ range: Range<Int>, _ name: StaticString) -> Bool {
        ByteSearch.equal(bytes, range, name)
    }

    /// `raw` with the five predefined entities and character references decoded; anything
    /// unrecognised (an unknown `&name;`, a bad number) is kept as written.
    static func decodeEntities(_ raw: ArraySlice<UInt8>) -> String {
        var out = [UInt8]()
        out.reserveCapacity(raw.count)
        var index = raw.startIndex
        while index < raw.endIndex {
            let byte = raw[index]
            guard byte == UInt8(ascii: "&"), let semicolon = raw[index...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else {
                out.append(byte)
                index += 1
                continue
            }
            let body = raw[(index + 1)..<semicolon]
            if let replacement = entity(body) {
                out += replacement
                index = semicolon + 1
            } else {
                out.append(byte)
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func entity(_ body: ArraySlice<UInt8>) -> [UInt8]? {
        switch Array(body) {
        case Array("amp".utf8): return [UInt8(ascii: "&")]
        case Array("lt".utf8): return [UInt8(ascii: "<")]
        case Array("gt".utf8): return [UInt8(ascii: ">")]
        case Array("quot".utf8): return [UInt8(ascii: "\"")]
        case Array("apos".utf8): return [UInt8(ascii: "'")]
        default: break
        }
        guard body.first == UInt8(ascii: "#") else { return nil }
        var digits = body.dropFirst()
        var radix: UInt32 = 10
        if digits.first == UInt8(ascii: "x") || digits.first == UInt8(ascii: "X") { radix = 16; digits = digits.dropFirst() }
        guard !digits.isEmpty else { return nil }
        var value: UInt32 = 0
        for digit in digits {
            guard let d = hexValue(digit), d < radix else { return nil }
            value = value * radix + d
            if value > 0x10FFFF { return nil }
        }
        guard let scalar = Unicode.Scalar(value) else { return nil }
        return Array(String(Character(scalar)).utf8)
    }

    private static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}
