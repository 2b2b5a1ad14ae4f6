import EfferentCompression

/// A `Content-Encoding: gzip` body inflated as it arrives, against a ceiling on what it inflates
/// to (checked every 64 KiB of output, so a bomb stops within a step of the ceiling).
final class GzipBody {
    private let stream: InflateStream
    private let limit: BodyLimit.Gzip
    private(set) var inflated = 0

    init(limit: BodyLimit.Gzip) throws(HTTPError) {
        do { stream = try InflateStream(format: .gzip) } catch { throw HTTPError.internalFailure }
        self.limit = limit
    }

    /// Inflates the next compressed piece, handing `deliver` its output 64 KiB at a time: a
    /// bomb's piece never becomes one array (a 64 KiB chunk of a 1 GiB bomb inflates to 64 MiB,
    /// which the receiver's 128 MiB ceiling let grow to 256 MiB of capacity before refusing it).
    func inflate(_ chunk: [UInt8], into deliver: ([UInt8]) throws -> Void) throws {
        guard !stream.isFinished else {
            if chunk.isEmpty { return }
            throw Self.trailing
        }
        stream.setInput(chunk)
        while true {
            let piece: [UInt8]
            do { piece = try stream.nextOutput(maxCount: Self.pieceBytes) } catch { throw Self.corrupt }
            if piece.isEmpty { break }
            inflated += piece.count
            guard inflated <= limit.inflatedBytes else { throw limit.refusal }
            try deliver(piece)
        }
        if stream.isFinished && stream.unconsumedCount > 0 { throw Self.trailing }
    }

    /// What one step inflates: the ceiling is checked, and the output handed on, this often.
    static let pieceBytes = 64 * 1024

    /// Throws unless the gzip member ended (its CRC-32 and length checked by zlib).
    func finish() throws(HTTPError) {
        guard stream.isFinished else { throw Self.cutShort }
    }

    static let corrupt = HTTPError(400, "the body is not valid gzip (Content-Encoding: gzip)")
    static let cutShort = HTTPError(400, "the gzip body ends before its gzip stream does")
    static let trailing = HTTPError(400, "bytes follow the end of the gzip body")
}
