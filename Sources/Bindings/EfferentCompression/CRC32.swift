internal import CZlib
import Foundation

/// The CRC-32 of ISO 3309 / ITU-T V.42 (what zip and gzip store), on zlib's `crc32`.
public struct CRC32: Sendable, Equatable {
    public private(set) var value: UInt32 = 0

    public init() {}

    /// Folds `bytes` into the running checksum.
    public mutating func update<Bytes: ContiguousBytes>(_ bytes: Bytes) {
        var running = uLong(value)
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress, raw.count > 0 else { return }
            var offset = 0
            // zlib's length is a uInt: feed at most 1 GiB at a time.
            while offset < raw.count {
                let length = min(raw.count - offset, 1 << 30)
                running = crc32(running, (base + offset).assumingMemoryBound(to: Bytef.self), uInt(length))
                offset += length
            }
        }
        value = UInt32(truncatingIfNeeded: running)
    }

    /// `crc` extended over `bytes` (start from 0), for callers that keep the running value themselves.
    public static func update<Bytes: ContiguousBytes>(_ crc: UInt32, _ bytes: Bytes) -> UInt32 {
        var running = CRC32()
        running.value = crc
        running.update(bytes)
        return running.value
    }

    /// The checksum of `bytes` alone.
    public static func checksum<Bytes: ContiguousBytes>(_ bytes: Bytes) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }
}
