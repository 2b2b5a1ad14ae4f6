/// Why signature headers were refused (protocol §6); every case is a 400 at the service.
public enum SignedHeaderError: Error, Equatable, Sendable, CustomStringConvertible {
    case missing(who: String)
    case timestamp
    case encoding(who: String)
    case size(who: String)
    case smallOrder(who: String)
    /// `now` travels with the refusal: the service answers it as `"now"` so the signer can learn its offset.
    case clock(skew: Int64, now: Int64)

    public var description: String {
        switch self {
        case let .missing(who): "missing \(who) key or signature"
        case .timestamp: "the timestamp must be whole Unix seconds"
        case let .encoding(who): "the \(who) key and signature must be unpadded base64url"
        case let .size(who): "the \(who) key must be 32 bytes and the signature 64"
        case let .smallOrder(who): "that \(who) key is not a key anybody holds"
        case let .clock(skew, _): "timestamp is \(skew)s away from this server's clock"
        }
    }
}
