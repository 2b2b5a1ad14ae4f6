import EfferentClient
import EfferentCore

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
    /// What the lines map to, in line order.
    var records: [ImportSession.Pending] = []
    /// Apple's three ring figures per day, for `efferent check`.
    var ringDays: [ActivitySummaryRecord] = []
    /// What the lines held that the archive leaves out, with counts.
    public internal(set) var leftOut: [LeftOut: Int] = [:]
    /// The body's bytes once inflated.
    public internal(set) var bytes = 0
    /// SHA-256 of those bytes: a replayed batch ID with other content is told apart (§6.1).
    public internal(set) var digest: [UInt8] = []
    /// The zone the records' days were cut in when the lines were read.
    var zone = ""

    init(header: PulsHeader) { self.header = header }

    /// Files the records under their days in `zone`, as a re-cut files stored ones: a batch read
    /// while another batch's zone pinned the archive is committed after that re-cut, under the new
    /// cut. Ring figures stay on their own local date, over its bounds in the new zone, as a re-cut
    /// leaves them (their identity names the date, so it stays).
    mutating func refile(in zone: ZoneCalendar) {
        let days = DayNames(zone: zone)
        for index in records.indices {
            let record = records[index]
            guard !record.mapped.target.metric.hasPrefix("activitySummary.") else {
                guard let day = CalendarDay(record.day) else { continue }
                let (start, end) = zone.bounds(of: day)
                records[index].record.start = Double(start)
                records[index].record.end = Double(end)
                continue
            }
            (records[index].day, records[index].spillDay) = ImportSession.days(of: record.record, isTotal: record.mapped.target.isTotal, in: days)
        }
        self.zone = zone.identifier
    }

    /// Every type a line names (for `/v1/stats`), activity summaries under their synthetic identifier.
    public var types: Set<String> {
        var types = Set(samples.map(\.line.type))
        types.formUnion(aggregates.map(\.identity.type))
        if !summaries.isEmpty { types.insert("HKActivitySummaryTypeIdentifier") }
        return types
    }
}
