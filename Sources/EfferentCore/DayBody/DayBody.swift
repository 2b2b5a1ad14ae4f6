/// The uncompressed bytes of one day: what the writer fingerprints, compresses and seals, and
/// what a reader gets back after opening and inflating (protocol §3).
///
/// Built from events it is the canonical layout 2 of decision A.5; read from outside it may be
/// layout 2 or layout 1, and `decoded()` tells which.
public struct DayBody: Equatable, Sendable {
    public let bytes: [UInt8]

    /// Wraps bytes read from outside; nothing is checked until `decoded()`.
    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The canonical layout-2 body of `events` (in any order), carrying `timeZone` as the
    /// top-level `tz` key when given (§3.1, decisions A.4 and A.5). Identical content gives
    /// identical bytes; no events give exactly `{"series":[],"v":2}`.
    public init(events: some Sequence<DayEvent>, timeZone: String? = nil) {
        self.init(events: Array(events), timeZone: timeZone)
    }

    /// As `init(events:timeZone:)` for events already in an array: a caller in another module
    /// reaches the generic initialiser unspecialised, which copied every event (five strings,
    /// each retained) through the type's witness table before encoding.
    public init(events: [DayEvent], timeZone: String? = nil) {
        self.bytes = DayBodyEncoder.encode(events, timeZone: timeZone)
    }

    /// The day this body holds, read strictly (§3.2 rule 1, §3.3).
    public func decoded() throws(DayBodyError) -> DecodedDay {
        try DayBodyDecoder.decode(bytes)
    }

    /// The day with only the series whose metric `keeping` accepts (layout 1 lines are returned
    /// whole; the caller filters them). The other series' columns are stepped over unread, so
    /// ask this only of a body that has decoded whole before (a mirrored day).
    public func decoded(keeping: @escaping (String) -> Bool) throws(DayBodyError) -> DecodedDay {
        try DayBodyDecoder.decode(bytes, keeping: keeping)
    }
}
