internal import CSodium
import Foundation

/// Argon2id password storage strings, for a secret a person types that a server must check but
/// never keep (a shared link's passcode): libsodium's `crypto_pwhash_str_alg` and
/// `crypto_pwhash_str_verify` (https://doc.libsodium.org/password_hashing/default_phf). The string
/// carries its own salt and limits (`$argon2id$v=19$m=…,t=…,p=1$…`), so a check needs nothing else.
extension Sodium {
    /// The work each hash and each check costs: libsodium's interactive limits (2 passes over
    /// 64 MiB), its documented choice for a check made while someone waits.
    public static let passwordOpsLimit = Int(crypto_pwhash_argon2id_OPSLIMIT_INTERACTIVE)
    public static let passwordMemLimit = Int(crypto_pwhash_argon2id_MEMLIMIT_INTERACTIVE)

    /// The Argon2id storage string of `password` with a fresh random salt.
    public static func passwordHash(_ password: String, opsLimit: Int = passwordOpsLimit,
                                    memLimit: Int = passwordMemLimit) throws(SodiumError) -> String {
        ready()
        var out = [CChar](repeating: 0, count: Int(crypto_pwhash_STRBYTES))
        // One spare byte so an empty password still has an address.
        let bytes = Array(password.utf8) + [0]
        let rc = bytes.withUnsafeBytes { p in
            out.withUnsafeMutableBufferPointer { o in
                crypto_pwhash_str_alg(o.baseAddress!, p.baseAddress!.assumingMemoryBound(to: CChar.self), UInt64(p.count - 1),
                                      UInt64(opsLimit), memLimit, crypto_pwhash_ALG_ARGON2ID13)
            }
        }
        // The only failure libsodium documents is running out of memory for the 64 MiB it fills.
        try check(rc, "crypto_pwhash_str_alg")
        return String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `password` is the one `hash` was made from; false for a string that is not one.
    public static func passwordMatches(_ password: String, hash: String) -> Bool {
        ready()
        guard hash.utf8.count < Int(crypto_pwhash_STRBYTES) else { return false }
        let bytes = Array(password.utf8) + [0]
        return bytes.withUnsafeBytes { p in
            hash.withCString { stored in
                crypto_pwhash_str_verify(stored, p.baseAddress!.assumingMemoryBound(to: CChar.self), UInt64(p.count - 1)) == 0
            }
        }
    }
}
