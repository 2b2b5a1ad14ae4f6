/// Why a whole edit, an edit name or an outcome was refused (protocol §8).
///
/// The writer answers a
/// refused edit as one failed item 0 with `code`.
public enum EditError: Error, Equatable, Sendable, CustomStringConvertible {
    case malformedName
    case itemCount(Int)
    /// Item `index` (0-based) broke a rule of §8 when packing.
    case item(index: Int, EditItemError)
    case compression
    /// The packed edit could not be sealed to the reading public key.
    case sealing
    case tooLarge
    case notJSON
    /// The plaintext is JSON but not `{"v":1,"items":[…]}` with items of §8's shape.
    case shape(String)
    case malformedOutcome(String)

    /// The word the writer answers for an edit it cannot unpack.
    public var code: OutcomeCode {
        if case let .item(_, problem) = self { return problem.code }
        return .malformed
    }

    public var description: String {
        switch self {
        case .malformedName: "an edit name is 13 digits, a dash and 8 base32 characters"
        case let .itemCount(n): "an edit carries 1 to 500 items, and this one has \(n)"
        case let .item(index, problem): "item \(index): \(problem)"
        case .compression: "the edit is not a raw deflate stream"
        case .sealing: "the edit could not be sealed to this archive's reading key; check the handoff"
        case .tooLarge: "the edit inflates past 1 MiB; send fewer items at a time"
        case .notJSON: "the edit's plaintext is not JSON"
        case let .shape(what): "the edit is not shaped as protocol §8 says: \(what)"
        case let .malformedOutcome(what): "malformed outcome: \(what)"
        }
    }
}
