import Testing
@testable import EfferentCompression
import EfferentTestSupport

@Suite struct InflateStreamTests {
    /// Feeds `packed` in slices of `inputSize`, collecting output in pieces of at most `outputSize`.
    private func inflateInPieces(_ packed: [UInt8], inputSize: Int, outputSize: Int) throws -> (out: [UInt8], finished: Bool) {
        let stream = try InflateStream()
        var out = [UInt8]()
        var offset = 0
        while !stream.isFinished {
            if stream.needsInput {
                guard offset < packed.count else { break }
                let end = min(offset + inputSize, packed.count)
                stream.setInput(Array(packed[offset..<end]))
                offset = end
            }
            let piece = try stream.nextOutput(maxCount: outputSize)
            #expect(piece.count <= outputSize)
            out += piece
        }
        return (out, stream.isFinished)
    }

    @Test func inflatesAcrossAnySlicing() throws {
        let input = (0..<400_000).map { UInt8(truncatingIfNeeded: ($0 * 7 / 3) ^ ($0 >> 9)) }
        let packed = try Deflater().compress(input)
        for (inSize, outSize) in [(1, 1000), (7, 65_536), (4096, 3), (1 << 20, 256 * 1024)] {
            let result = try inflateInPieces(packed, inputSize: inSize, outputSize: outSize)
            #expect(result.finished)
            #expect(result.out == input)
        }
    }

    @Test func reportsTheEndAndTrailingBytes() throws {
        let packed = try Deflater().compress(Array("hello".utf8))
        let stream = try InflateStream()
        stream.setInput(packed + [1, 2, 3])
        #expect(try stream.nextOutput() == Array("hello".utf8))
        #expect(stream.isFinished)
        #expect(stream.unconsumedCount == 3)
        #expect(try stream.nextOutput() == [])
    }

    @Test func truncatedStreamWantsMoreInput() throws {
        let input = (0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let packed = try Deflater().compress(input)
        let result = try inflateInPieces(Array(packed.prefix(packed.count / 2)), inputSize: 1000, outputSize: 4096)
        #expect(!result.finished)
        #expect(result.out.count < input.count)
    }

    @Test func corruptStreamThrows() throws {
        let stream = try InflateStream()
        stream.setInput([UInt8](repeating: 0xFF, count: 16))
        #expect(throws: DeflateError.corrupt) { _ = try stream.nextOutput() }
    }

    /// Known answers: CRC-32 of "123456789" is 0xCBF43926 (the standard check value), of "" is 0.
    @Test func crc32KnownAnswers() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([UInt8]()) == 0)
        let split = CRC32.update(CRC32.update(0, Array("12345".utf8)), Array("6789".utf8))
        #expect(split == 0xCBF4_3926)
    }
}

@Suite struct GzipInflateTests {
    @Test func inflatesAGzipMemberAndChecksItsTrailer() throws {
        let text = Array(String(repeating: "{\"uuid\":\"A\",\"kind\":\"quantity\"}\n", count: 500).utf8)
        let packed = try gzipped(text)
        let stream = try InflateStream(format: .gzip)
        stream.setInput(packed)
        var out = [UInt8]()
        while !stream.isFinished {
            let piece = try stream.nextOutput(maxCount: 1000)
            if piece.isEmpty && stream.needsInput { break }
            out += piece
        }
        #expect(stream.isFinished && out == text)

        var corrupt = packed
        corrupt[corrupt.count - 6] ^= 1 // the CRC-32 of the trailer
        let checked = try InflateStream(format: .gzip)
        checked.setInput(corrupt)
        #expect(throws: DeflateError.corrupt) {
            for _ in 0..<100 where !checked.isFinished { _ = try checked.nextOutput() }
        }
    }
}
