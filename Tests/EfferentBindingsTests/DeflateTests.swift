import Foundation
import Testing
@testable import EfferentCompression

@Suite struct DeflateTests {
    @Test func roundTripReusingStreams() throws {
        let deflater = try Deflater(), inflater = try Inflater()
        for size in [0, 1, 100, 70_000, 300_000] {
            let input = (0..<size).map { UInt8(truncatingIfNeeded: $0 * 7 / 3) }
            let packed = try deflater.compress(input)
            #expect(try inflater.decompress(packed, limit: 1 << 20) == input)
        }
    }

    /// Raw deflate of "hello" at level 6, as Python's zlib.compressobj(6, DEFLATED, -15) writes it.
    @Test func rawDeflateHasNoHeader() throws {
        let packed = try Deflater().compress(Array("hello".utf8))
        #expect(hex(packed) == "cb48cdc9c90700")
    }

    @Test func inflationCeilingRefusesBombs() throws {
        let bomb = try Deflater().compress([UInt8](repeating: 0, count: 2_000_000))
        #expect(throws: DeflateError.tooLarge(1_000_000)) { try Inflater().decompress(bomb, limit: 1_000_000) }
    }

    @Test func truncatedCorruptAndTrailing() throws {
        let packed = try Deflater().compress((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        #expect(throws: DeflateError.truncated) { try Inflater().decompress(Array(packed.prefix(packed.count / 2)), limit: 1 << 20) }
        #expect(throws: DeflateError.trailingBytes) { try Inflater().decompress(packed + [0], limit: 1 << 20) }
        #expect(throws: DeflateError.corrupt) { try Inflater().decompress([UInt8](repeating: 0xFF, count: 16), limit: 1 << 20) }
        #expect(throws: DeflateError.truncated) { try Inflater().decompress([UInt8](), limit: 1 << 20) }
    }
}
