/// What went wrong talking to an archive service, as one sentence a person can act on. Never holds
/// a key, a signature or a health value.
public enum ArchiveError: Error, Equatable, CustomStringConvertible {
    /// The service answered with a refusal: its status and its own sentence.
    case refused(status: Int, message: String)
    /// The service could not be reached at all.
    case unreachable(endpoint: String, reason: String)
    /// The service answered something the protocol does not allow.
    case unexpectedAnswer(String)
    /// An answer larger than a reader takes (16 MiB).
    case answerTooLarge

    public var description: String {
        switch self {
        case let .refused(status, message): "The archive service refused (\(status)): \(message)."
        case let .unreachable(endpoint, reason): "Cannot reach the archive service at \(endpoint): \(reason). Check the address and that the service runs."
        case let .unexpectedAnswer(what): "The archive service answered something unexpected: \(what)."
        case .answerTooLarge: "The archive service sent an answer larger than 16 MiB, which is refused."
        }
    }

    /// The HTTP status of a refusal, when there is one.
    public var status: Int? {
        if case let .refused(status, _) = self { return status }
        return nil
    }

    /// Whether trying again later may succeed (5xx, 429, network), rather than the request being wrong.
    public var isTransient: Bool {
        switch self {
        case let .refused(status, _): status >= 500 || status == 429
        case .unreachable: true
        case .unexpectedAnswer, .answerTooLarge: false
        }
    }
}
