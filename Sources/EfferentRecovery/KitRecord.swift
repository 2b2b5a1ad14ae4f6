import EfferentCore
import EfferentCrypto

/// A kit's sealed record: its contents sealed with XChaCha20-Poly1305 under a key made of the
/// kit's secret and its passphrase (stretched by Argon2id at libsodium's MODERATE limits or more).
/// The same bytes are printed in the kit's QR code and kept by the service under the kit's
/// locator, for when only the words are left.
///
/// Layout: `efk1` · Argon2id passes (u32, big-endian) · Argon2id memory in KiB (u32) · salt (16) ·
/// nonce (24) · ciphertext and tag. The associated data is `efferent-kit/v1\n<locator>\n` and the
/// 52-byte header, so a record cannot be moved to another locator or have its limits lowered.
public enum KitRecord {
    static let magic = Array("efk1".utf8)
    static let headerBytes = 4 + 4 + 4 + 16 + Sodium.xchachaNonceBytes
    /// A record is a few hundred bytes; anything past this is not one (the service's ceiling too).
    public static let maxBytes = 4096

    /// The least an opener accepts: libsodium's MODERATE (3 passes over 256 MiB); the most, its
    /// SENSITIVE (1 GiB), so a record cannot ask a machine for more memory than that.
    public static var floor: Sodium.PasswordHashLimits { .moderate }
    static var ceiling: Sodium.PasswordHashLimits { .sensitive }

    /// Seals `contents` for `secret` and `passphrase`.
    public static func seal(_ contents: KitContents, secret: KitSecret, passphrase: SecretBytes,
                            limits: Sodium.PasswordHashLimits = .moderate) throws -> [UInt8] {
        guard limits.operations >= floor.operations, limits.memoryBytes >= floor.memoryBytes else { throw KitError.weakLimits }
        let salt = Sodium.randomBytes(Sodium.passwordSaltBytes)
        let nonce = Sodium.randomBytes(Sodium.xchachaNonceBytes)
        var header = magic
        header += bigEndian(UInt32(limits.operations)) + bigEndian(UInt32(limits.memoryBytes / 1024)) + salt + nonce
        let stretched = try Sodium.argon2id(password: passphrase, salt: salt, limits: limits)
        let key = secret.sealingKey(stretched: stretched)
        return header + (try Sodium.xchacha20Poly1305Seal(key: key, nonce: nonce, plaintext: contents.encoded(),
                                                          aad: associatedData(secret.locator, header: header)))
    }

    /// Opens a record with `secret` and `passphrase`. Throws `.doesNotOpen` when they are not the
    /// ones it was sealed for (or its bytes changed): the two cannot be told apart, by design.
    public static func open(_ record: [UInt8], secret: KitSecret, passphrase: SecretBytes) throws(KitError) -> KitContents {
        let limits = try self.limits(of: record)
        let header = Array(record.prefix(headerBytes))
        let salt = Array(header[12..<28]), nonce = Array(header[28..<headerBytes])
        let stretched: SecretBytes
        do {
            stretched = try Sodium.argon2id(password: passphrase, salt: salt, limits: limits)
        } catch {
            throw .memory(limits.memoryBytes >> 20)
        }
        let key = secret.sealingKey(stretched: stretched)
        guard let plaintext = try? Sodium.xchacha20Poly1305Open(key: key, nonce: nonce, ciphertext: record[headerBytes...],
                                                              aad: associatedData(secret.locator, header: header)) else {
            throw .doesNotOpen
        }
        return try KitContents(decoding: plaintext)
    }

    /// The Argon2id limits a record was sealed with, refused outside MODERATE…SENSITIVE.
    public static func limits(of record: [UInt8]) throws(KitError) -> Sodium.PasswordHashLimits {
        guard record.count > headerBytes + Sodium.aeadTagBytes, record.count <= maxBytes, Array(record.prefix(4)) == magic else {
            throw .notAKit("its sealed record is not one Efferent writes")
        }
        let operations = UInt64(readBigEndian(record, at: 4))
        let memory = Int(readBigEndian(record, at: 8)) * 1024
        let limits = Sodium.PasswordHashLimits(operations: operations, memoryBytes: memory)
        guard operations >= floor.operations, memory >= floor.memoryBytes else { throw .weakLimits }
        guard operations <= ceiling.operations, memory <= ceiling.memoryBytes else { throw .notAKit("it asks for more work than any kit Efferent writes") }
        return limits
    }

    static func associatedData(_ locator: KitLocator, header: [UInt8]) -> [UInt8] {
        Array("efferent-kit/v1\n\(locator.rawValue)\n".utf8) + header
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }

    static func readBigEndian(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
