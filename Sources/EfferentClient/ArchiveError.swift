/// What went wrong talking to an archive service, as one sentence a person can act on. Never holds
/// a key, a signature or a health value.
public enum ArchiveError: Error, Equatable, CustomStringConvertible {
    /// The service answered with a refusal: its status and its own sentence.
    case refused(status: Int, message: String)
    /// No exchange could take place: nothing listens, the name does not resolve, no connection
    /// within the connect timeout, TLS failed, or the answer did not finish in time. Known within
    /// seconds and not retried: a service that is away now will not be back in a few.
    case noConnection(endpoint: String, reason: String)
    /// The exchange broke off midway (the connection dropped): worth another try.
    case unreachable(endpoint: String, reason: String)
    /// The service answered something the protocol does not allow.
    case unexpectedAnswer(String)
    /// An answer larger than its route ever sends (checked as it arrives).
    case answerTooLarge(limit: Int)
    /// The request was abandoned (its task was cancelled).
    case cancelled

    public var description: String {
        switch self {
        case let .refused(status, message): "The archive service refused (\(status)): \(message)."
        case let .noConnection(endpoint, reason): "Cannot reach the archive service at \(endpoint): \(reason)."
        case let .unreachable(endpoint, reason): "Cannot reach the archive service at \(endpoint): \(reason). Check the address and that the service runs."
        case let .unexpectedAnswer(what): "The archive service answered something unexpected: \(what)."
        case let .answerTooLarge(limit): "The archive service sent an answer larger than \(limit) bytes, more than this request ever needs, so it was refused."
        case .cancelled: "The request to the archive service was cancelled."
        }
    }

    /// The HTTP status of a refusal, when there is one.
    public var status: Int? {
        if case let .refused(status, _) = self { return status }
        return nil
    }

    /// Whether trying again in a few seconds may succeed (5xx, 429, a dropped connection), rather
    /// than the request being wrong or the service being away.
    public var isTransient: Bool {
        switch self {
        case let .refused(status, _): status >= 500 || status == 429
        case .unreachable: true
        case .noConnection, .unexpectedAnswer, .answerTooLarge, .cancelled: false
        }
    }

    /// The service could not be talked to at all (as opposed to refusing or answering oddly).
    public var isUnreachable: Bool {
        switch self {
        case .noConnection, .unreachable: true
        default: false
        }
    }
}
