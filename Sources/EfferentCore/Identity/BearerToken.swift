import EfferentCrypto

/// A bearer token a person copies into another tool (the dashboard's, a phone's): 32 random bytes
/// from libsodium as base64url, safe in a URL, a header and a cookie. It never starts with `-`,
/// which argparse-based tools (most Python CLIs, PulsHealth's smoke test) read as an option: a
/// draw that would is drawn again, which costs 1/64 of the 256 bits — about 0.02 bits.
public enum BearerToken {
    public static let byteCount = 32

    /// A new token.
    public static func make() -> String { make(drawing: { Sodium.randomBytes(byteCount) }) }

    /// A token from `draw`'s bytes, drawing again while one would start with `-` (tests give the draws).
    public static func make(drawing draw: () -> [UInt8]) -> String {
        while true {
            let token = Base64URL.encode(draw())
            if token.first != "-" { return token }
        }
    }
}
