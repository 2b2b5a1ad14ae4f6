import EfferentCompression

/// A gzip member (RFC 1952 §2.3) around raw DEFLATE, for tests that send `Content-Encoding: gzip`:
/// a ten-byte header, the deflate stream, then CRC-32 and length, both little-endian.
public func gzipped(_ bytes: [UInt8]) throws -> [UInt8] {
    var crc = CRC32()
    crc.update(bytes)
    let size = UInt32(truncatingIfNeeded: bytes.count)
    func littleEndian(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    return [0x1F, 0x8B, 0x08, 0, 0, 0, 0, 0, 0, 0xFF] + (try Deflater().compress(bytes)) + littleEndian(crc.value) + littleEndian(size)
}
