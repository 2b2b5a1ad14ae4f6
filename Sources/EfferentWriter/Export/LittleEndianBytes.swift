/// Bounds-checked little-endian reads from bytes that came from outside (zip headers).
struct LittleEndianBytes {
    let bytes: [UInt8]
    var offset: Int

    init(_ bytes: [UInt8], at offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    var remaining: Int { max(0, bytes.count - offset) }

    /// The next `width` bytes as an unsigned integer, or nil when they run past the end.
    mutating func integer(_ width: Int) -> UInt64? {
        guard offset >= 0, width <= remaining else { return nil }
        var value: UInt64 = 0
        for index in 0..<width { value |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
        offset += width
        return value
    }

    mutating func u16() -> UInt16? { integer(2).map { UInt16(truncatingIfNeeded: $0) } }
    mutating func u32() -> UInt32? { integer(4).map { UInt32(truncatingIfNeeded: $0) } }
    mutating func u64() -> UInt64? { integer(8) }

    /// The next `count` bytes, or nil when they run past the end.
    mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
        guard offset >= 0, count >= 0, count <= remaining else { return nil }
        defer { offset += count }
        return bytes[offset..<(offset + count)]
    }
}
