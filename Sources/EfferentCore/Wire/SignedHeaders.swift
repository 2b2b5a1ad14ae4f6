/// The three headers that carry a signature (protocol §5.3, §6, §7).
///
/// The signer's public key, the signature and the moment (protocol §5.3, §6, §7, §8).
///
/// `x-efferent-<role>: base64url(raw 32-byte public)`, `x-efferent-signature: base64url(64 bytes)`,
/// `x-efferent-timestamp: <decimal Unix seconds>`.
public struct SignedHeaders: Equatable, Sendable {
    /// Who signs, and so which header carries the key.
    public enum Role: String, Sendable, CaseIterable {
        case writer, reader, editor

        /// `x-efferent-writer`, `x-efferent-reader` or `x-efferent-editor`.
        public var keyHeader: String { "x-efferent-\(rawValue)" }
    }

    public static let signatureHeader = "x-efferent-signature"
    public static let timestampHeader = "x-efferent-timestamp"

    public let role: Role
    public let key: Ed25519PublicKey
    public let signature: [UInt8]
    public let timestamp: Int64

    /// Signs `message` (one of `SignedMessage`'s strings, made with the same `timestamp`).
    public init(signing message: [UInt8], with privateKey: Ed25519PrivateKey, role: Role, timestamp: Int64) {
        self.role = role
        key = privateKey.publicKey
        signature = privateKey.signature(for: message)
        self.timestamp = timestamp
    }

    /// Headers as received, without the freshness check: a queued edit keeps its editor's
    /// signature long after it was made (§8), and the writer checks it with `isValid(for:)`.
    public init(role: Role, key: Ed25519PublicKey, signature: [UInt8], timestamp: Int64) {
        self.role = role
        self.key = key
        self.signature = signature
        self.timestamp = timestamp
    }

    /// The header lines to send, key first.
    public var fields: [(name: String, value: String)] {
        [(role.keyHeader, Base64URL.encode(key.rawRepresentation)),
         (SignedHeaders.signatureHeader, Base64URL.encode(signature)),
         (SignedHeaders.timestampHeader, String(timestamp))]
    }

    /// Reads signature headers with every refusal of protocol §6.
    ///
    /// Reads the headers with every refusal of §6, in its order: missing key or signature, a
    /// timestamp that is not an integer, text that is not base64url, wrong sizes, a small-order
    /// key, and a moment more than ±300 s from `now`. `header` looks a header up by its
    /// lower-case name. The signature itself is checked by `isValid(for:)`.
    public init(parsing header: (String) -> String?, role: Role, now: Int64) throws(SignedHeaderError) {
        let who = role.rawValue
        guard let keyText = header(role.keyHeader), let signatureText = header(SignedHeaders.signatureHeader),
              !keyText.isEmpty, !signatureText.isEmpty else {
            throw .missing(who: who)
        }
        guard let timestampText = header(SignedHeaders.timestampHeader),
              let timestamp = SignedHeaders.decimal(timestampText) else { throw .timestamp }
        guard let keyRaw = Base64URL.decode(keyText), let signature = Base64URL.decode(signatureText) else {
            throw .encoding(who: who)
        }
        guard keyRaw.count == 32, signature.count == 64 else { throw .size(who: who) }
        guard let key = try? Ed25519PublicKey(rawRepresentation: keyRaw) else { throw .smallOrder(who: who) }
        let skew = timestamp > now ? timestamp - now : now - timestamp
        guard skew <= ProtocolLimits.clockToleranceSeconds else { throw .clock(skew: skew, now: now) }
        self.role = role
        self.key = key
        self.signature = signature
        self.timestamp = timestamp
    }

    /// Whether the signature signs `message` with the carried key.
    public func isValid(for message: [UInt8]) -> Bool {
        key.isValidSignature(signature, for: message)
    }

    /// A decimal integer of at most 15 digits (Unix seconds for millions of years), optional `-`.
    static func decimal(_ text: String) -> Int64? {
        var digits = Substring(text)
        var negative = false
        if digits.first == "-" { negative = true; digits = digits.dropFirst() }
        guard (1...15).contains(digits.utf8.count), digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        var n: Int64 = 0
        for byte in digits.utf8 { n = n * 10 + Int64(byte - 0x30) }
        return negative ? -n : n
    }
}
