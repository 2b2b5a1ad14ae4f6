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

    /// The inflated bytes of the next compressed piece.
    func inflate(_ chunk: [UInt8]) throws -> [UInt8] {
        guard !stream.isFinished else {
            if chunk.isEmpty { return [] }
            throw Self.trailing
        }
        stream.setInput(chunk)
        var out = [UInt8]()
        while true {
            let piece: [UInt8]
            do { piece = try stream.nextOutput(maxCount: 64 * 1024) } catch { throw Self.corrupt }
            if piece.isEmpty { break }
            inflated += piece.count
            guard inflated <= limit.inflatedBytes else { throw limit.refusal }
            out += piece
        }
        if stream.isFinished && stream.unconsumedCount > 0 { throw Self.trailing }
        return out
    }

    /// Throws unless the gzip member ended (its CRC-32 and length checked by zlib).
    func finish() throws(HTTPError) {
        guard stream.isFinished else { throw Self.cutShort }
    }

    static let corrupt = HTTPError(400, "the body is not valid gzip (Content-Encoding: gzip)")
    static let cutShort = HTTPError(400, "the gzip body ends before its gzip stream does")
    static let trailing = HTTPError(400, "bytes follow the end of the gzip body")
}
