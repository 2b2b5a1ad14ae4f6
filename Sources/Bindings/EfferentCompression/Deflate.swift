internal import CZlib
import Foundation

/// Raw DEFLATE (RFC 1951: no zlib header, no gzip header) on zlib, as every Efferent body is
/// compressed (protocol §2.1, decision A.5: level 6).
///
/// A `Deflater` owns one `z_stream` and resets it between bodies: a fresh stream per 4 KB day
/// costs three times as much (measured-facts.md). It is not thread-safe; keep one per thread.
public final class Deflater {
    private var stream = z_stream()
    private var scratch = [UInt8](repeating: 0, count: 64 * 1024)

    /// zlib's level 6, what decision A.5 fixes.
    public static let defaultLevel: Int32 = 6

    public init(level: Int32 = Deflater.defaultLevel) throws(DeflateError) {
        let rc = efferent_deflate_init_raw(&stream, level)
        guard rc == Z_OK else { throw .zlib("deflateInit2", rc) }
    }

    deinit { deflateEnd(&stream) }

    /// The raw deflate stream of `input`, finished.
    public func compress<Bytes: ContiguousBytes>(_ input: Bytes) throws(DeflateError) -> [UInt8] {
        let rcReset = deflateReset(&stream)
        guard rcReset == Z_OK else { throw .zlib("deflateReset", rcReset) }
        var out = [UInt8]()
        let failure = input.withUnsafeBytes { raw in
            out.reserveCapacity(Int(deflateBound(&stream, uLong(raw.count))))
            return deflatePass(&stream, raw, flush: Z_FINISH, scratch: &scratch, into: &out)
        }
        guard failure == Z_OK else { throw .zlib("deflate", failure) }
        return out
    }
}

/// One pass of `deflate` over `raw` with `flush`, appending what zlib produces (through
/// `scratch`) to `out`: to the end of the stream with `Z_FINISH`, otherwise until zlib has taken
/// the whole piece. Returns zlib's failing code, or `Z_OK`. Shared by `Deflater` and `DeflateStream`.
func deflatePass(_ stream: inout z_stream, _ raw: UnsafeRawBufferPointer, flush: Int32, scratch: inout [UInt8],
                 into out: inout [UInt8]) -> Int32 {
    stream.next_in = UnsafeMutablePointer(mutating: raw.baseAddress?.assumingMemoryBound(to: Bytef.self))
    stream.avail_in = uInt(raw.count)
    defer { stream.next_in = nil }
    return scratch.withUnsafeMutableBytes { buffer in
        while true {
            stream.next_out = buffer.baseAddress!.assumingMemoryBound(to: Bytef.self)
            stream.avail_out = uInt(buffer.count)
            let rc = deflate(&stream, flush)
            let produced = buffer.count - Int(stream.avail_out)
            out.append(contentsOf: buffer.prefix(produced))
            if rc == Z_STREAM_END { return Z_OK }
            if rc != Z_OK && rc != Z_BUF_ERROR { return rc }
            // Without FINISH, zlib is done with this piece once it has input left for nothing
            // and room left over in the output.
            if flush != Z_FINISH && stream.avail_in == 0 && stream.avail_out != 0 { return Z_OK }
        }
    }
}

/// Inflates raw DEFLATE with a hard ceiling: a body that would inflate past `limit` is refused as
/// soon as it passes it, never allocated whole (a 1 MiB day can carry a deflate bomb).
public final class Inflater {
    private var stream = z_stream()
    private var scratch = [UInt8](repeating: 0, count: 64 * 1024)

    public init() throws(DeflateError) {
        let rc = efferent_inflate_init_raw(&stream)
        guard rc == Z_OK else { throw .zlib("inflateInit2", rc) }
    }

    deinit { inflateEnd(&stream) }

    /// The inflated bytes of `input`, which must be one complete raw deflate stream with nothing after it.
    public func decompress<Bytes: ContiguousBytes>(_ input: Bytes, limit: Int) throws(DeflateError) -> [UInt8] {
        let rcReset = inflateReset(&stream)
        guard rcReset == Z_OK else { throw .zlib("inflateReset", rcReset) }
        var out = [UInt8]()
        var outcome: DeflateError?
        input.withUnsafeBytes { raw in
            // Day bodies inflate to about five times their size: room for that saves regrowing.
            out.reserveCapacity(min(limit, raw.count * 6))
            stream.next_in = UnsafeMutablePointer(mutating: raw.baseAddress?.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(raw.count)
            scratch.withUnsafeMutableBytes { buffer in
                while true {
                    stream.next_out = buffer.baseAddress!.assumingMemoryBound(to: Bytef.self)
                    stream.avail_out = uInt(buffer.count)
                    let rc = inflate(&stream, Z_NO_FLUSH)
                    let produced = buffer.count - Int(stream.avail_out)
                    if out.count + produced > limit { outcome = .tooLarge(limit); return }
                    out.append(contentsOf: buffer.prefix(produced))
                    switch rc {
                    case Z_STREAM_END:
                        if stream.avail_in != 0 { outcome = .trailingBytes }
                        return
                    case Z_OK:
                        continue
                    case Z_BUF_ERROR:
                        // No progress possible: the input ended before the stream did.
                        if produced == 0 { outcome = .truncated; return }
                    default:
                        outcome = .corrupt
                        return
                    }
                }
            }
        }
        stream.next_in = nil
        if let outcome { throw outcome }
        return out
    }
}

public enum DeflateError: Error, Equatable, CustomStringConvertible {
    case zlib(String, Int32)
    case tooLarge(Int)
    case truncated
    case trailingBytes
    case corrupt

    public var description: String {
        switch self {
        case let .zlib(call, code): "zlib's \(call) failed with code \(code)."
        case let .tooLarge(limit): "The compressed body would inflate past \(limit) bytes, so it was refused."
        case .truncated: "The compressed body ends before its deflate stream does: it was cut short."
        case .trailingBytes: "The compressed body carries bytes after the end of its deflate stream."
        case .corrupt: "The compressed body is not a valid raw deflate stream."
        }
    }
}
