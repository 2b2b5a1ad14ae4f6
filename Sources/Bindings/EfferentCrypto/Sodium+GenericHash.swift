internal import CSodium

extension Sodium {
    /// The shortest output `crypto_generichash` gives (16 bytes, 128 bits): what a checksum of
    /// derived data needs, which guards against a disk's accidents, not against a forger.
    public static let genericHashMinimumBytes = Int(crypto_generichash_BYTES_MIN)
    /// The longest output (64 bytes).
    public static let genericHashMaximumBytes = Int(crypto_generichash_BYTES_MAX)

    /// BLAKE2b of `message` in `length` bytes (16…64), unkeyed (`crypto_generichash`,
    /// https://doc.libsodium.org/hashing/generic_hashing).
    public static func genericHash<Message: SodiumBytes>(_ message: Message, length: Int = genericHashMinimumBytes) -> [UInt8] {
        precondition(length >= genericHashMinimumBytes && length <= genericHashMaximumBytes, "crypto_generichash gives 16 to 64 bytes")
        ready()
        var out = [UInt8](repeating: 0, count: length)
        message.withSodiumBytes { input in
            out.withUnsafeMutableBytes { output in
                require(crypto_generichash(output.baseAddress!.assumingMemoryBound(to: UInt8.self), length,
                                           Sodium.bytes(input), UInt64(input.count), nil, 0), "crypto_generichash")
            }
        }
        return out
    }

    /// Whether BLAKE2b of `message` in `expected.count` bytes is `expected`: a checksum read from
    /// a file, compared without an array for the digest (an index checks thousands of them).
    public static func genericHashMatches<Message: SodiumBytes>(_ message: Message, _ expected: ArraySlice<UInt8>) -> Bool {
        let length = expected.count
        guard length >= genericHashMinimumBytes && length <= genericHashMaximumBytes else { return false }
        ready()
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length) { digest in
            message.withSodiumBytes { input in
                require(crypto_generichash(digest.baseAddress!, length, Sodium.bytes(input), UInt64(input.count), nil, 0), "crypto_generichash")
            }
            return expected.withUnsafeBytes { given in
                sodium_memcmp(digest.baseAddress!, given.baseAddress!, length) == 0
            }
        }
    }
}
