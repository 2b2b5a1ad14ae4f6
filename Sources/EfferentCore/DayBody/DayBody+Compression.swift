import EfferentCrypto
import EfferentCompression

/// What the writer does to a body before sealing it and the reader after opening it (protocol
/// §2.1, §9.2, decision A.5).
extension DayBody {
    /// SHA-256 of the uncompressed body: the writer's change detection (§9.2, decision A.5).
    public var fingerprint: [UInt8] { Sodium.sha256(bytes) }

    /// The body as raw deflate (§2.1) with the given deflater (level 6 by decision A.5).
    public func deflated(using deflater: Deflater) throws(DayBodyError) -> [UInt8] {
        do { return try deflater.compress(bytes) } catch { throw .deflate(error) }
    }

    /// The body inside raw deflate `compressed`, refused once it would inflate past
    /// `ProtocolLimits.maxInflatedBytes` (16 MiB, §2.1).
    public static func inflate(_ compressed: [UInt8], using inflater: Inflater) throws(DayBodyError) -> DayBody {
        do {
            return DayBody(bytes: try inflater.decompress(compressed, limit: ProtocolLimits.maxInflatedBytes))
        } catch {
            throw .deflate(error)
        }
    }

    /// As `inflate(_:using:)` with a fresh inflater; keep one and pass it when inflating many.
    public static func inflate(_ compressed: [UInt8]) throws(DayBodyError) -> DayBody {
        let inflater: Inflater
        do { inflater = try Inflater() } catch { throw .deflate(error) }
        return try inflate(compressed, using: inflater)
    }
}
