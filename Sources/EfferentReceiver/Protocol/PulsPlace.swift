/// Where an object stands in a batch, for messages: `line 4 (sample 3)`, `line 4 (sample 3)
/// workout`, `line 4 (sample 3) workout event 2`. Spelled out only when a message needs it: a
/// batch of a thousand good lines builds no text (building it per line was 3 % of a receiver's time).
indirect enum PulsPlace: CustomStringConvertible, Sendable {
    /// Line `number`, the `ordinal`-th line of its kind.
    case line(number: Int, kind: PulsLineKind, ordinal: Int)
    case text(String)
    /// The object under `key` of the one at `place`.
    case member(PulsPlace, key: String)
    /// The `index`-th (from 1) item named `item` of the one at `place`.
    case item(PulsPlace, item: StaticString, index: Int)

    var description: String {
        switch self {
        case let .line(number, kind, ordinal): "line \(number) (\(kind.name) \(ordinal))"
        case let .text(text): text
        case let .member(place, key): "\(place) \(key)"
        case let .item(place, item, index): "\(place) \(item) \(index)"
        }
    }
}
