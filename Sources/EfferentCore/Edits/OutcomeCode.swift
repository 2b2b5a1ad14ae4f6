/// The closed vocabulary of what happened to an edit item (protocol §8).
public enum OutcomeCode: String, CaseIterable, Sendable {
    case unknownMetric
    case badUnit
    case badRange
    /// Health write access denied for that type.
    case unauthorized
    /// A delete of an id never written.
    case notFound
    case healthRefused
    case badSignature
    case cannotOpen
    case malformed
    /// Legacy, from a retired approval-gate build: read, never written.
    case awaitingApproval
    /// Legacy, as `awaitingApproval`.
    case declined
    case replayed
}
