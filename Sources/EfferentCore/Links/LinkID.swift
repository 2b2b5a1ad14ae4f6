import EfferentCrypto

/// The name of a shared link on the service: 32 random bytes as base64url, 43 characters. It is
/// the last segment of the link's manifest URL, which the SMART Health Links IG asks to carry at
/// least 256 bits of entropy ("Establish a SMART Health Link Manifest URL",
/// https://hl7.org/fhir/uv/smart-health-cards-and-links/STU1/links-specification.html), so
/// nobody finds a link by guessing its address.
public struct LinkID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public static let bytes = 32
    public static let characters = 43

    public let rawValue: String

    /// A fresh id from libsodium's CSPRNG.
    public static func make() -> LinkID { LinkID(checked: Base64URL.encode(Sodium.randomBytes(bytes))) }

    /// Exactly 43 characters of unpadded base64url that decode to 32 bytes.
    public init(_ text: some StringProtocol) throws(LinkError) {
        guard text.utf8.count == Self.characters, let raw = Base64URL.decode(text), raw.count == Self.bytes else { throw .malformedID }
        rawValue = String(text)
    }

    private init(checked: String) { rawValue = checked }

    public var description: String { rawValue }

    public static func < (lhs: LinkID, rhs: LinkID) -> Bool { lhs.rawValue < rhs.rawValue }
}
