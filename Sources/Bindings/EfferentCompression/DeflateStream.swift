internal import CZlib
import Foundation

/// Raw DEFLATE (RFC 1951) fed in pieces, for entries too large to hold whole (a zip member of a
/// gigabyte); `Deflater` is the one-shot form for bodies.
///
/// Each `append` returns what zlib has produced so far; `finish` flushes the rest and ends the
/// stream. After `finish` the stream is spent: make a new one for the next entry.
public final class DeflateStream {
    private var stream = z_stream()
    private var scratch = [UInt8](repeating: 0, count: 256 * 1024)
    private var finished = false

    public init(level: Int32 = Deflater.defaultLevel) throws(DeflateError) {
        let rc = efferent_deflate_init_raw(&stream, level)
        guard rc == Z_OK else { throw .zlib("deflateInit2", rc) }
    }

    deinit { deflateEnd(&stream) }

    /// Compresses `input` and returns the compressed bytes zlib chose to emit now (often none).
    public func append<Bytes: ContiguousBytes>(_ input: Bytes) throws(DeflateError) -> [UInt8] {
        try run(input, flush: Z_NO_FLUSH)
    }

    /// Ends the stream and returns the remaining compressed bytes.
    public func finish() throws(DeflateError) -> [UInt8] {
        try run([UInt8](), flush: Z_FINISH)
    }

    private func run<Bytes: ContiguousBytes>(_ input: Bytes, flush: Int32) throws(DeflateError) -> [UInt8] {
        guard !finished else { throw .zlib("deflate after finish", Z_STREAM_ERROR) }
        var out = [UInt8]()
        let failure = input.withUnsafeBytes { deflatePass(&stream, $0, flush: flush, scratch: &scratch, into: &out) }
        guard failure == Z_OK else { throw .zlib("deflate", failure) }
        if flush == Z_FINISH { finished = true }
        return out
    }
}
