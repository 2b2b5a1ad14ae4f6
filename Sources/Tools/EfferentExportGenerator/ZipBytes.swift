/// Little-endian fields of zip headers.
struct ZipBytes {
    var bytes: [UInt8] = []

    mutating func u16(_ value: UInt16) {
        bytes.append(UInt8(value & 0xFF))
        bytes.append(UInt8(value >> 8))
    }

    mutating func u32(_ value: UInt32) {
        u16(UInt16(value & 0xFFFF))
        u16(UInt16(value >> 16))
    }

    mutating func u64(_ value: UInt64) {
        u32(UInt32(value & 0xFFFF_FFFF))
        u32(UInt32(value >> 32))
    }
}
