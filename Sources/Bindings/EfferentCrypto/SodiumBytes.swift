/// Bytes libsodium can read where they lie: plain arrays and slices, and `SecretBytes`. Code
/// above the bindings names it in signatures (HKDF's inputs mix labels and secrets) but never
/// touches the pointer; only this module calls `withSodiumBytes`.
public protocol SodiumBytes {
    var byteCount: Int { get }
    func withSodiumBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R
}

extension Array: SodiumBytes where Element == UInt8 {
    public var byteCount: Int { count }
    public func withSodiumBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try withUnsafeBytes(body) }
}

extension ArraySlice: SodiumBytes where Element == UInt8 {
    public var byteCount: Int { count }
    public func withSodiumBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try withUnsafeBytes(body) }
}

extension SecretBytes: SodiumBytes {
    public var byteCount: Int { count }
    public func withSodiumBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try withUnsafeBytes(body) }
}
