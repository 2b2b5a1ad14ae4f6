import Foundation
import Testing
@testable import EfferentCompression

@Suite struct DeflateStreamTests {
    /// Pieces fed one by one inflate back to the whole, whatever the piece sizes.
    @Test func piecesInflateToTheWhole() throws {
        let input = (0..<900_000).map { UInt8(truncatingIfNeeded: ($0 * 31) ^ ($0 >> 9)) }
        let stream = try DeflateStream(level: 1)
        var packed = [UInt8]()
        var offset = 0
        for size in [1, 0, 70_000, 300_000, 1 << 20] {
            let end = min(input.count, offset + size)
            packed += try stream.append(Array(input[offset..<end]))
            offset = end
        }
        packed += try stream.finish()
        #expect(try Inflater().decompress(packed, limit: 1 << 21) == input)
        #expect(throws: DeflateError.self) { _ = try stream.append([1]) }
    }

    /// CRC-32 of "123456789" is the check value of the ISO 3309 polynomial.
    @Test func crcCheckValue() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        var running = CRC32()
        running.update(Array("12345".utf8))
        running.update(Array("6789".utf8))
        #expect(running.value == 0xCBF4_3926)
    }
}
