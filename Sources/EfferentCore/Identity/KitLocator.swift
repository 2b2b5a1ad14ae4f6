/// Where the archive service keeps one sealed recovery record (an extension of this project,
/// documents/protocol.md "Recovery kits"): 26 characters of lower-case base32 of 16 bytes derived
/// from a secret the service never sees, so knowing a locator says nothing of the secret.
public struct KitLocator: Hashable, Sendable, CustomStringConvertible {
    public static let length = 26

    public let rawValue: String

    /// Parses a locator from outside (a URL path); refuses anything but `[a-z2-7]{26}`.
    public init(_ text: some StringProtocol) throws(IdentityError) {
        guard text.utf8.count == KitLocator.length, Base32.isLowerAlphabet(text) else { throw .malformedKitLocator }
        rawValue = String(text)
    }

    /// The locator of 16 derived bytes.
    public init(derived bytes: [UInt8]) {
        precondition(bytes.count == 16, "a kit locator is made of 16 bytes")
        rawValue = Base32.encodeLower(bytes)
    }

    public var description: String { rawValue }
}
