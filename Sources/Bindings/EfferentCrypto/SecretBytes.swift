internal import CSodium
import Foundation

/// Bytes that must not outlive their use or leak into a log: a private key, a shared secret, a
/// key the HPKE schedule derives.
///
/// The bytes live in memory this object allocates and wipes with `sodium_memzero` when it goes
/// (https://doc.libsodium.org/memory_management: plain stores before a free may be optimised
/// away). `description`, `debugDescription` and the reflection mirror show the length only, so a
/// secret interpolated into a message, printed by `dump` or shown by a test failure stays hidden.
/// libsodium reads it in place; `revealed()` is the one way out, for the edges where a secret must
/// leave as bytes (a key file, a handoff).
public final class SecretBytes: @unchecked Sendable, ContiguousBytes, Equatable, CustomStringConvertible,
    CustomDebugStringConvertible, CustomReflectable {
    /// Written only while `init` runs; read-only afterwards, which is what makes sharing safe.
    private let storage: UnsafeMutableRawBufferPointer
    public let count: Int

    /// A copy of `bytes`. The caller's array is not wiped (Swift arrays cannot be): drop it soon.
    public convenience init(_ bytes: [UInt8]) {
        self.init(count: bytes.count) { buffer in
            bytes.withUnsafeBytes { if let base = $0.baseAddress { buffer.baseAddress!.copyMemory(from: base, byteCount: $0.count) } }
        }
    }

    /// `count` bytes written in place by `fill` (a libsodium call), never through a Swift array.
    init(count: Int, fill: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows {
        // One spare byte so an empty secret still has an address libsodium may be given.
        let allocated = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 16)
        allocated.initializeMemory(as: UInt8.self, repeating: 0)
        self.count = count
        storage = allocated
        do {
            try fill(UnsafeMutableRawBufferPointer(rebasing: allocated.prefix(count)))
        } catch {
            wipe()
            allocated.deallocate()
            throw error
        }
    }

    deinit {
        wipe()
        storage.deallocate()
    }

    /// Overwrites the bytes with zeros; `deinit` calls it.
    func wipe() {
        sodium_memzero(storage.baseAddress!, storage.count)
    }

    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(rebasing: storage.prefix(count)))
    }

    /// A plain copy. It is not wiped when released: only for a secret that must leave as bytes.
    public func revealed() -> [UInt8] {
        withUnsafeBytes { Array($0) }
    }

    /// The first `length` bytes, as a secret of their own.
    public func prefix(_ length: Int) -> SecretBytes {
        let kept = min(max(length, 0), count)
        return SecretBytes(count: kept) { out in
            if kept > 0 { out.baseAddress!.copyMemory(from: storage.baseAddress!, byteCount: kept) }
        }
    }

    /// The parts one after another, as one secret.
    public static func joined(_ parts: [SecretBytes]) -> SecretBytes {
        SecretBytes(count: parts.reduce(0) { $0 + $1.count }) { out in
            var offset = 0
            for part in parts where part.count > 0 {
                (out.baseAddress! + offset).copyMemory(from: part.storage.baseAddress!, byteCount: part.count)
                offset += part.count
            }
        }
    }

    /// Compared in time that depends only on the length (`sodium_memcmp`).
    public static func == (lhs: SecretBytes, rhs: SecretBytes) -> Bool {
        lhs.count == rhs.count && (lhs.count == 0 || sodium_memcmp(lhs.storage.baseAddress!, rhs.storage.baseAddress!, lhs.count) == 0)
    }

    public var description: String { "SecretBytes(\(count) bytes, not shown)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["count": count]) }
}
