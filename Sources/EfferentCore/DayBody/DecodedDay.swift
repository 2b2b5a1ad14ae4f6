/// What a day body holds once read: columnar series (layout 2) or event lines (layout 1)
/// (protocol §3.2 rule 1).
public enum DecodedDay: Equatable, Sendable {
    /// Layout 2: series in the order the body holds them.
    case columnar(ColumnarDay)
    /// Layout 1 (§3.3): the body's non-empty lines, unchanged and without their `\n`. An empty
    /// body is `.lines([])`, a day with no events.
    case lines([String])
}
