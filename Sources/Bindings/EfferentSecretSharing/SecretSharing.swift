internal import CGFShare
import EfferentCrypto

/// Shamir's secret sharing over GF(256), by Debian's libgfshare (`gfsplit`/`gfcombine` are its
/// tools; https://www.digital-scurf.org/software/libgfshare): a secret split into shares any
/// `threshold` of which give it back, while fewer reveal nothing about it. Each share is as long
/// as the secret and is known by its number (1…255, the x at which the polynomial was taken);
/// `gfsplit` writes share n as `FILE.nnn`, and shares made here combine there and back.
public enum SecretSharing {
    /// One share: its number and its bytes.
    public struct Share: Sendable, Equatable {
        public let number: UInt8
        public let bytes: [UInt8]

        public init(number: UInt8, bytes: [UInt8]) {
            self.number = number
            self.bytes = bytes
        }
    }

    /// libgfshare draws each split's random coefficients through a hook that starts out empty,
    /// and `gfshare_ctx_free` scrubs a context with it too (a combine's as well as a split's): the
    /// shim points it at the kernel's CSPRNG, once per process, before any context is made.
    fileprivate static let randomReady: Bool = {
        efferent_gfshare_use_kernel_random()
        return true
    }()

    /// Splits `secret` into shares numbered `numbers` (distinct, none 0), any `threshold` of
    /// which recombine it.
    public static func split(_ secret: SecretBytes, threshold: Int, numbers: [UInt8]) throws(SecretSharingError) -> [Share] {
        guard secret.count > 0 else { throw .emptySecret }
        guard !numbers.contains(0), Set(numbers).count == numbers.count else { throw .badNumbers }
        guard threshold >= 2, threshold <= numbers.count else { throw .badThreshold(threshold, numbers.count) }
        let context = try Context(encoding: numbers, threshold: UInt8(threshold), size: secret.count)
        secret.withUnsafeBytes { efferent_gfshare_set_secret(context.handle, $0.baseAddress!) }
        return numbers.indices.map { index in
            var bytes = [UInt8](repeating: 0, count: secret.count)
            bytes.withUnsafeMutableBytes { efferent_gfshare_get_share(context.handle, UInt8(index), $0.baseAddress!) }
            return Share(number: numbers[index], bytes: bytes)
        }
    }

    /// The secret `shares` give back. With fewer shares than the split's threshold the result is
    /// some other bytes, indistinguishable from random: the caller checks what it opens.
    public static func combine(_ shares: [Share]) throws(SecretSharingError) -> SecretBytes {
        guard let size = shares.first?.bytes.count, size > 0 else { throw .emptySecret }
        guard shares.allSatisfy({ $0.bytes.count == size }) else { throw .unequalLengths }
        let numbers = shares.map(\.number)
        guard !numbers.contains(0), Set(numbers).count == numbers.count else { throw .badNumbers }
        let context = try Context(decoding: numbers, size: size)
        for (index, share) in shares.enumerated() {
            share.bytes.withUnsafeBytes { efferent_gfshare_give_share(context.handle, UInt8(index), $0.baseAddress!) }
        }
        return SecretBytes.written(count: size) { efferent_gfshare_extract(context.handle, $0.baseAddress!) }
    }

    /// A libgfshare context, freed with it (`gfshare_ctx_free` overwrites it before freeing).
    private final class Context {
        let handle: OpaquePointer

        init(encoding numbers: [UInt8], threshold: UInt8, size: Int) throws(SecretSharingError) {
            precondition(SecretSharing.randomReady)
            guard let handle = numbers.withUnsafeBytes({ efferent_gfshare_init_enc($0.baseAddress!, UInt32($0.count), threshold, UInt32(size)) }) else {
                throw .refused
            }
            self.handle = handle
        }

        init(decoding numbers: [UInt8], size: Int) throws(SecretSharingError) {
            precondition(SecretSharing.randomReady)
            guard let handle = numbers.withUnsafeBytes({ efferent_gfshare_init_dec($0.baseAddress!, UInt32($0.count), UInt32(size)) }) else {
                throw .refused
            }
            self.handle = handle
        }

        deinit { gfshare_ctx_free(handle) }
    }
}

public enum SecretSharingError: Error, Equatable, CustomStringConvertible {
    case emptySecret
    case badNumbers
    case badThreshold(Int, Int)
    case unequalLengths
    case refused

    public var description: String {
        switch self {
        case .emptySecret: "There is nothing to split or combine: the secret or share is empty."
        case .badNumbers: "Shares are numbered 1 to 255, each number once."
        case let .badThreshold(threshold, count): "A split needs 2 to \(count) shares to recombine, not \(threshold)."
        case .unequalLengths: "The shares are of different lengths, so they do not come from one split."
        case .refused: "libgfshare could not set up the split (out of memory, or numbers it refuses)."
        }
    }
}
