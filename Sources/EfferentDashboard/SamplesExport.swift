import EfferentCore
import EfferentHTTP
import EfferentReader

/// A metric's samples over a range as CSV or JSON Lines, made a day at a time as the connection
/// pulls them: the rows `samples` gives (the same columns, every event overlapping the range's
/// local days), all of them, whatever their number.
final class SamplesExport: HTTPResponseStream, @unchecked Sendable {
    private let source: MirrorSource
    private let metric: String
    private let range: DayRange
    private let format: AnswerFormat
    private let clock = LocalClock()
    /// The next archive day to read: from the day before `since`, as `samples` reads.
    private var day: CalendarDay
    private var started = false

    init(source: MirrorSource, metric: String, range: DayRange, format: AnswerFormat) {
        self.source = source
        self.metric = metric
        self.range = range
        self.format = format
        day = range.since.previous
    }

    func next() throws -> [UInt8]? {
        while day <= range.until {
            let current = day
            day = day.next
            var kept = [ArchiveEvent]()
            for item in try source.events(from: current, through: current, metric: metric) where try clock.overlaps(item, range) { kept.append(item) }
            let ordered = kept.enumerated().sorted { a, b in
                (a.element.event.start, a.element.event.end, a.offset) < (b.element.event.start, b.element.event.end, b.offset)
            }.map(\.element)
            let table = AnswerTable(columns: SamplesAnswer.columns, rows: ordered.map { SamplesAnswer.row($0, clock: clock) })
            var text = format == .csv ? try table.csv() : try table.ndjson()
            // The CSV header goes out once, before the first day's rows.
            if format == .csv {
                if started, let end = text.range(of: "\r\n") { text.removeSubrange(text.startIndex..<end.upperBound) }
                started = true
            }
            if !text.isEmpty { return Array(text.utf8) }
        }
        if format == .csv, !started {
            started = true
            return Array(try AnswerTable(columns: SamplesAnswer.columns, rows: []).csv().utf8)
        }
        return nil
    }
}
