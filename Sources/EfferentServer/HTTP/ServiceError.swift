import EfferentCore
import EfferentHTTP

/// A refusal the service answers: a status and one sentence a person can act on (decision A.8),
/// rendered as `{"error": "<sentence>"}`. Nothing in it names a key, a token or a plaintext.
public struct ServiceError: HTTPResponseError, Equatable, CustomStringConvertible {
    public let status: Int
    public let message: String
    /// The service clock, carried by refusals for time so a signer can learn its offset (§6).
    public var now: Int64?
    /// Seconds to wait, for 429 answers.
    public var retryAfter: Int?

    public init(_ status: Int, _ message: String, now: Int64? = nil, retryAfter: Int? = nil) {
        self.status = status
        self.message = message
        self.now = now
        self.retryAfter = retryAfter
    }

    public var description: String { "\(status) \(message)" }

    public var response: HTTPResponse {
        HTTPError.render(status: status, message: message, members: now.map { [("now", $0)] } ?? [],
                         headers: retryAfter.map { [("Retry-After", String($0))] } ?? [])
    }

    // The protocol's own sentences (§6, §7), in one place.
    static let malformedBucket = ServiceError(400, "malformed bucket id")
    static let badSignature = ServiceError(403, "signature does not match the request")
    static let anotherWriter = ServiceError(403, "this bucket already belongs to another writer")
    static let notClaimed = ServiceError(403, "this bucket has not been claimed")
    static let claimFirst = ServiceError(403, "claim the bucket first")
    static let unsignedRead = ServiceError(401, "this archive answers only reads signed with its read key")
    static let foreignReadKey = ServiceError(403, "that is not this archive's read key")
    static let noSuchDay = ServiceError(404, "no such day")
    static let noSuchEdit = ServiceError(404, "no such edit")
    static let noSuchOutcome = ServiceError(404, "no such outcome")
    static let editApplied = ServiceError(410, "this edit has been applied")
    /// Names the deployment's own ceiling (512 MiB unless the operator set another).
    static func bucketFull(_ quota: Quota) -> ServiceError {
        let ceiling = quota.bucketBytes % (1 << 20) == 0 ? "\(quota.bucketBytes >> 20) MiB" : "\(quota.bucketBytes) bytes"
        return ServiceError(507, "this bucket has been handed all the \(ceiling) it may ever hold; its operator can raise the ceiling")
    }
    static let serviceFull = ServiceError(507, "this service has been handed all the bytes its operator allows; ask the operator to raise the ceiling")
    static let storeUnavailable = ServiceError(503, "the archive's database cannot be reached just now; try again shortly",
                                               retryAfter: 5)

    static func signedHeaders(_ error: SignedHeaderError) -> ServiceError {
        if case let .clock(_, now) = error { return ServiceError(400, error.description, now: now) }
        return ServiceError(400, error.description)
    }
}
