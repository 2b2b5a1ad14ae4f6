internal import CZlib
import Foundation

/// DEFLATE inflated piece by piece: raw (RFC 1951) for zip entries of several gigabytes that must
/// never sit in memory whole, or a gzip member (RFC 1952) for request bodies sent with
/// `Content-Encoding: gzip`, inflated as they arrive so a ceiling can stop them early.
///
/// Give it input with `setInput(_:)`, then call `nextOutput(maxCount:)` until it returns an empty
/// array with `needsInput` true (feed more) or `isFinished` true (the deflate stream ended). The
/// stream keeps its own copy of the current input, never a pointer to it, between calls.
public final class InflateStream {
    private var stream = z_stream()
    private var input: [UInt8] = []
    private var inputOffset = 0

    /// Whether the deflate stream has reached its final block.
    public private(set) var isFinished = false
    /// Bytes produced so far.
    public private(set) var totalOut: UInt64 = 0

    /// What the compressed bytes are wrapped in.
    public enum Format: Sendable {
        /// No header or trailer (zip entries).
        case raw
        /// A gzip header and a CRC-32 trailer, checked at the end.
        case gzip
    }

    public init(format: Format = .raw) throws(DeflateError) {
        let rc = format == .raw ? efferent_inflate_init_raw(&stream) : efferent_inflate_init_gzip(&stream)
        guard rc == Z_OK else { throw .zlib("inflateInit2", rc) }
    }

    deinit { inflateEnd(&stream) }

    /// Whether every byte given so far has been consumed.
    public var needsInput: Bool { inputOffset >= input.count }

    /// Input bytes given but not consumed: non-zero after the stream finished means bytes trail it.
    public var unconsumedCount: Int { input.count - inputOffset }

    /// The next compressed bytes; replaces any input not yet consumed.
    public func setInput(_ bytes: [UInt8]) {
        input = bytes
        inputOffset = 0
    }

    /// Up to `maxCount` inflated bytes; empty when more input is needed or the stream has finished.
    public func nextOutput(maxCount: Int = 256 * 1024) throws(DeflateError) -> [UInt8] {
        guard !isFinished else { return [] }
        var rc: Int32 = Z_OK
        var consumed = 0
        let out = [UInt8](unsafeUninitializedCapacity: max(maxCount, 1)) { outBuffer, initialized in
            input.withUnsafeBytes { raw in
                let remaining = raw.count - inputOffset
                stream.next_in = UnsafeMutablePointer(mutating: raw.baseAddress.map { $0.assumingMemoryBound(to: Bytef.self) + inputOffset })
                stream.avail_in = uInt(remaining)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = uInt(outBuffer.count)
                rc = inflate(&stream, Z_NO_FLUSH)
                consumed = remaining - Int(stream.avail_in)
                initialized = outBuffer.count - Int(stream.avail_out)
                stream.next_in = nil
                stream.avail_in = 0
                stream.next_out = nil
                stream.avail_out = 0
            }
        }
        inputOffset += consumed
        totalOut += UInt64(out.count)
        switch rc {
        case Z_STREAM_END: isFinished = true
        case Z_OK: break
        case Z_BUF_ERROR: break // No progress without more input: the caller sees needsInput.
        default: throw .corrupt
        }
        return out
    }
}
