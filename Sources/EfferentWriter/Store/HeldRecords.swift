import EfferentClient
import EfferentCore

/// Records mapped, checked and identified exactly as an import makes them (decisions A.6, A.9),
/// held for one transaction of the caller's (`SourceStore.commit`) instead of written in an
/// import's batches: what a holding session (`SourceStore.holdingSession`) read, taken out whole.
/// The caller names them by their position, in the order they were read.
public struct HeldRecords: Sendable {
    var records: [ImportSession.Pending]
    /// Apple's three ring figures per day, for `efferent check`.
    var ringFigures: [ActivitySummaryRecord]
    /// The zone the records' days were cut in when they were read.
    var zone: String

    /// None: what a caller commits when it stores nothing of the writer's.
    public init() {
        records = []
        ringFigures = []
        zone = ""
    }

    init(records: [ImportSession.Pending], ringFigures: [ActivitySummaryRecord], zone: String) {
        self.records = records
        self.ringFigures = ringFigures
        self.zone = zone
    }

    public var count: Int { records.count }

    /// Files the records under their days in `zone`, as a re-cut files stored ones: records read
    /// while another caller's zone pinned the archive are committed after that re-cut, under the
    /// new cut. Ring figures stay on their own local date, over its bounds in the new zone, as a
    /// re-cut leaves them (their identity names the date, so it stays).
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
}
