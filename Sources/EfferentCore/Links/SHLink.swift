import EfferentCrypto

/// A SMART Health Link: the payload the HL7 SMART Health Cards and Links IG (STU1) defines, and
/// its text form `shlink:/<base64url of the minified JSON>` ("Construct a SMART Health Link
/// Payload", https://hl7.org/fhir/uv/smart-health-cards-and-links/STU1/links-specification.html).
///
/// - `url`: the manifest URL (at most 128 characters);
/// - `key`: 32 random bytes, base64url (43 characters), that decrypt every file the manifest
///   lists; it travels in the link (or its QR code) and never reaches the host;
/// - `exp`: when the link stops working, Unix seconds (a hint for the receiver; the host enforces it);
/// - `flag`: single letters in alphabetical order: `L` long-term (the files may change), `P` a
///   passcode is needed, `U` the url is the one file (never with `P`);
/// - `label`: at most 80 characters describing the data.
public struct SHLink: Sendable, Equatable {
    public struct Flags: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let longTerm = Flags(rawValue: 1)
        public static let passcode = Flags(rawValue: 2)
        public static let direct = Flags(rawValue: 4)

        /// The IG's text: the letters in alphabetical order (`LP`).
        public var text: String {
            (contains(.longTerm) ? "L" : "") + (contains(.passcode) ? "P" : "") + (contains(.direct) ? "U" : "")
        }

        /// Letters the IG defines are read; any other is ignored, as the IG asks of receivers.
        public init(text: String) {
            var flags = Flags()
            for letter in text {
                switch letter {
                case "L": flags.insert(.longTerm)
                case "P": flags.insert(.passcode)
                case "U": flags.insert(.direct)
                default: break
                }
            }
            self = flags
        }
    }

    public static let prefix = "shlink:/"
    public static let keyBytes = 32
    public static let maxURLCharacters = 128
    public static let maxLabelCharacters = 80

    public let url: String
    public let key: SecretBytes
    public let expires: Int64?
    public let flags: Flags
    public let label: String?

    public init(url: String, key: SecretBytes, expires: Int64?, flags: Flags, label: String?) throws(LinkError) {
        guard url.hasPrefix("https://") || url.hasPrefix("http://") else { throw .payload("url is not an http(s) address") }
        guard url.count <= Self.maxURLCharacters else { throw .payload("url is longer than 128 characters") }
        guard key.count == Self.keyBytes else { throw .payload("key is not 32 bytes") }
        if let label, label.count > Self.maxLabelCharacters { throw .payload("label is longer than 80 characters") }
        guard !(flags.contains(.passcode) && flags.contains(.direct)) else { throw .payload("sets both U and P, which the IG forbids") }
        self.url = url
        self.key = key
        self.expires = expires
        self.flags = flags
        self.label = label
    }

    /// A new link's key: 32 bytes from libsodium's CSPRNG.
    public static func newKey() -> SecretBytes { Sodium.randomSecret(keyBytes) }

    /// The payload as minified JSON (members sorted; `v` left out, its default 1 applying).
    public var payloadJSON: [UInt8] {
        var members: [String: JSONValue] = ["url": .string(url), "key": .string(Base64URL.encode(key.revealed()))]
        if let expires { members["exp"] = .number(Double(expires)) }
        if !flags.text.isEmpty { members["flag"] = .string(flags.text) }
        if let label { members["label"] = .string(label) }
        // Strings and whole numbers only, so this cannot fail.
        return (try? JSONValue.object(members).canonicalBytes()) ?? []
    }

    /// `shlink:/…`.
    public var text: String { Self.prefix + Base64URL.encode(payloadJSON) }

    /// The link prefixed with a viewer's address ending in `#`: the fragment never reaches a server.
    public func viewerLink(viewer: String) -> String { viewer + "#" + text }

    /// Reads `shlink:/…`, or a viewer address with `#shlink:/…` after it. Members the IG does not
    /// define are ignored, as it asks; `v` above 1 is refused (this reader knows version 1).
    public init(parsing text: String) throws(LinkError) {
        var rest = Substring(text.trimmingCharacters(in: .whitespacesAndNewlines))
        if let hash = rest.firstIndex(of: "#") { rest = rest[rest.index(after: hash)...] }
        guard rest.hasPrefix(Self.prefix) else { throw .notALink }
        guard let bytes = Base64URL.decode(rest.dropFirst(Self.prefix.count)) else { throw .payload("is not base64url") }
        let json: JSONValue
        do { json = try JSONParser.parse(bytes) } catch { throw .payload("is not JSON") }
        guard case .object = json else { throw .payload("is not a JSON object") }
        guard let url = json["url"]?.stringValue else { throw .payload("has no url") }
        guard let keyText = json["key"]?.stringValue, let raw = Base64URL.decode(keyText) else { throw .payload("has no base64url key") }
        if let version = json["v"]?.numberValue, version > 1 {
            // Said as written, not through Int: a payload's v of 1e300 is someone else's input.
            throw .payload("is version \(version.rounded() == version && version < 1e15 ? String(Int64(version)) : String(version)), newer than this reader knows")
        }
        var expires: Int64?
        if let member = json["exp"] {
            guard let value = member.numberValue, value.isFinite, value.rounded() == value, abs(value) < 1e15 else {
                throw .payload("has an exp that is not whole seconds")
            }
            expires = Int64(value)
        }
        try self.init(url: url, key: SecretBytes(raw), expires: expires, flags: Flags(text: json["flag"]?.stringValue ?? ""),
                      label: json["label"]?.stringValue)
    }

    /// The id at the end of the manifest URL, when it is one of this service's (`…/shl/<id>`).
    public var linkID: LinkID? {
        guard let slash = url.lastIndex(of: "/") else { return nil }
        return try? LinkID(url[url.index(after: slash)...])
    }
}
