import EfferentCore
import EfferentHTTP
import EfferentSQLite
import EfferentSystem
import EfferentWriter

/// The receiver's refusals and their statuses, by the Puls Sync Protocol's contract (§7.2): a 4xx
/// only for what will never become valid, so the app may stop resending it; what could pass on a
/// retry is a 5xx or a 429 with `Retry-After`. Sentences name a line or a header, never a value.
enum ReceiverRefusal {
    static let missingToken = HTTPError(401, "this receiver needs the bearer token `efferent receive pair` printed (Authorization: Bearer …)",
                                        headers: [("WWW-Authenticate", "Bearer")])
    static let wrongToken = HTTPError(401, "this token is not one this receiver issued, or it was revoked; pair the phone again",
                                      headers: [("WWW-Authenticate", "Bearer")])
    static func tooManyFailures(retryAfter: Int) -> HTTPError {
        HTTPError(429, "too many requests with a wrong token from here just now; try again later", headers: [("Retry-After", String(retryAfter))])
    }
    static let malformedUser = HTTPError(400, "X-User-ID is not a UUID")
    static let malformedWake = HTTPError(400, "X-Wake-ID is not a UUID")
    static let otherUser = HTTPError(403, "this token belongs to another user than the X-User-ID sent; pair this phone for that user")
    static let encoding = HTTPError(400, "the body must be sent with Content-Encoding gzip, identity, or none")
    /// A failure that a retry can get past: the store busy (another process holding it), the disk full.
    static let storeBusy = HTTPError(503, "the receiver's store is busy or full just now; try again shortly", headers: [("Retry-After", "5")])

    /// Whether a retry can get past `error` — the store busy past its timeout, or the disk full —
    /// and so the answer is 503 with `Retry-After`. Anything else (a bug, a corrupt store) is a 500
    /// that the log names, never a "busy" the phone would retry forever without anyone seeing it.
    static func isTransient(_ error: any Error) -> Bool {
        if let error = error as? SQLiteError { return error.isBusy || error.isFull }
        if let error = error as? FileDurabilityError { return error.isFull }
        return false
    }

    /// The answer for a failure that is no refusal of the batch: 503 when a retry can pass, else nil (a logged 500).
    static func recover(_ error: any Error) -> (any HTTPResponseError)? { isTransient(error) ? storeBusy : nil }

    /// §7.3, exactly: the app turns this body into "the server speaks another version".
    static let unsupportedVersion = UnsupportedVersion()

    struct UnsupportedVersion: HTTPResponseError {
        var status: Int { 400 }
        var response: HTTPResponse {
            HTTPResponse(status: 400, headers: [("Content-Type", "application/json")],
                         body: Array("{\"error\":\"unsupported protocol version\",\"supportedVersions\":[1]}".utf8))
        }
    }

    /// A batch the reader refused, as its answer.
    static func batch(_ error: PulsBatchError) -> any HTTPResponseError {
        switch error {
        case let .malformed(problem): HTTPError(400, problem)
        case let .tooLarge(problem): HTTPError(413, problem)
        case .unsupportedVersion: unsupportedVersion
        }
    }
}
