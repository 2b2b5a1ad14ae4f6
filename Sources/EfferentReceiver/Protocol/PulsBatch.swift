import EfferentCore
import EfferentWriter

/// One phone batch read whole and checked, ready for its one transaction: the lines by kind, each
/// with the records it maps to (decision A.6/A.9, exactly what an import of the same lines makes).
public struct PulsBatch: Sendable {
    /// A line and the run of `records` it mapped to.
    public struct Mapped<Line: Sendable>: Sendable {
        public let line: Line
        let records: Range<Int>
    }

    public let header: PulsHeader
    public internal(set) var samples: [Mapped<PulsSample>] = []
    public internal(set) var deletions: [PulsDeletion] = []
    public internal(set) var routes: [Mapped<PulsPoints>] = []
    public internal(set) var series: [Mapped<PulsPoints>] = []
    /// Distinct buckets, the last line of each winning (§6.4).
    public internal(set) var aggregates: [PulsAggregate] = []
    /// Distinct days, the last line of each winning (§6.5).
    public internal(set) var summaries: [Mapped<PulsActivitySummary>] = []
    public internal(set) var profile: PulsProfile?
    /// What the lines map to, in line order, held for the batch's one transaction (`SourceStore.commit`).
    var records = HeldRecords()
    /// What the lines held that the archive leaves out, with counts.
    public internal(set) var leftOut: [LeftOut: Int] = [:]
    /// The body's bytes once inflated.
    public internal(set) var bytes = 0
    /// SHA-256 of those bytes: a replayed batch ID with other content is told apart (§6.1).
    public internal(set) var digest: [UInt8] = []

    init(header: PulsHeader) { self.header = header }

    /// Every type a line names (for `/v1/stats`), activity summaries under their synthetic identifier.
    public var types: Set<String> {
        var types = Set(samples.map(\.line.type))
        types.formUnion(aggregates.map(\.identity.type))
        if !summaries.isEmpty { types.insert("HKActivitySummaryTypeIdentifier") }
        return types
    }
}
