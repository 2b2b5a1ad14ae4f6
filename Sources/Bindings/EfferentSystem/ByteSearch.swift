#if canImport(Glibc)
import Glibc
#endif

/// Byte search and comparison over Swift arrays, so parsers above the bindings scan outside bytes
/// without a pointer: libc's `memchr(3)` (vectorised; the export reader finds every `<` and the
/// `m` of every device description with it) and a compare against a literal's bytes. Inlinable,
/// so each call compiles to the bare loop at its caller.
public enum ByteSearch {
    /// Where `byte` first occurs in `bytes[range]` (an index of `bytes`), or nil.
    @inlinable
    public static func firstIndex(of byte: UInt8, in bytes: [UInt8], _ range: Range<Int>) -> Int? {
        precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count, "range outside the bytes")
        guard !range.isEmpty else { return nil }
        return bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, let hit = memchr(base + range.lowerBound, Int32(byte), range.count) else { return nil }
            return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// Where `byte` first occurs in `bytes[range]` (an index of `bytes`), or nil.
    @inlinable
    public static func firstIndex(of byte: UInt8, in bytes: ArraySlice<UInt8>, _ range: Range<Int>) -> Int? {
        precondition(range.lowerBound >= bytes.startIndex && range.upperBound <= bytes.endIndex, "range outside the bytes")
        guard !range.isEmpty else { return nil }
        return bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress,
                  let hit = memchr(base + (range.lowerBound - bytes.startIndex), Int32(byte), range.count) else { return nil }
            return bytes.startIndex + base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// Whether `bytes[range]` is exactly the UTF-8 of `text`.
    @inlinable
    public static func equal(_ bytes: [UInt8], _ range: Range<Int>, _ text: StaticString) -> Bool {
        guard range.count == text.utf8CodeUnitCount else { return false }
        return text.withUTF8Buffer { expected in
            var index = 0
            while index < expected.count {
                if bytes[range.lowerBound + index] != expected[index] { return false }
                index += 1
            }
            return true
        }
    }
}
