/// Why a SMART Health Link, its id, or one of its encrypted files could not be read or made. One
/// sentence each, naming nothing secret (never a key or a byte of plaintext).
public enum LinkError: Error, Equatable, CustomStringConvertible {
    case notALink
    case payload(String)
    case malformedID
    case jwe(String)
    case forged
    case tooLarge(Int)
    case cannotSeal(String)

    public var description: String {
        switch self {
        case .notALink: "That is not a SMART Health Link: it starts with shlink:/ (or a viewer address ending in #shlink:/…)."
        case let .payload(what): "The SMART Health Link's payload \(what)."
        case .malformedID: "A link id is 43 characters of base64url (32 random bytes)."
        case let .jwe(what): "The encrypted file \(what)."
        case .forged: "The encrypted file does not open with this link's key: it belongs to another link or was changed on the way."
        case let .tooLarge(limit): "The encrypted file would inflate past \(limit) bytes, so it was refused."
        case let .cannotSeal(reason): "The file could not be sealed: \(reason)."
        }
    }
}
