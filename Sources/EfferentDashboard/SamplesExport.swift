import EfferentCore
import EfferentHTTP
import EfferentReader
import EfferentSystem

/// A metric's samples over a range as CSV or JSON Lines, made a day at a time as the connection
/// pulls them: the rows `samples` gives (the same columns, every event overlapping the range's
/// local days), all of them, whatever their number.
///
/// The connection pulls one piece at a time, but from whichever worker thread is free, so what
/// moves between pieces is kept behind a lock (never contended).
final class SamplesExport: HTTPResponseStream {
    private struct Progress {
        let clock = LocalClock()
        /// The next archive day to read: from the day before `since`, as `samples` reads.
        var day: CalendarDay
        var started = false
    }

    private let source: MirrorSource
    private let metric: String
    private let range: DayRange
    private let format: AnswerFormat
    private let progress: Mutex<Progress>

    init(source: MirrorSource, metric: String, range: DayRange, format: AnswerFormat) {
        self.source = source
        self.metric = metric
        self.range = range
        self.format = format
        progress = Mutex(Progress(day: range.since.previous))
    }

    func next() throws -> [UInt8]? {
        try progress.withLock { try next(&$0) }
    }

    private func next(_ progress: inout Progress) throws -> [UInt8]? {
        let clock = progress.clock
        while progress.day <= range.until {
            let current = progress.day
            progress.day = current.next
            var kept = [ArchiveEvent]()
            for item in try source.events(from: current, through: current, metric: metric) where try clock.overlaps(item, range) { kept.append(item) }
            let ordered = kept.enumerated().sorted { a, b in
                (a.element.event.start, a.element.event.end, a.offset) < (b.element.event.start, b.element.event.end, b.offset)
            }.map(\.element)
            let table = AnswerTable(columns: SamplesAnswer.columns, rows: ordered.map { SamplesAnswer.row($0, clock: clock) })
            var text = format == .csv ? try table.csv() : try table.ndjson()
            // The CSV header goes out once, before the first day's rows.
            if format == .csv {
                if progress.started, let end = text.range(of: "\r\n") { text.removeSubrange(text.startIndex..<end.upperBound) }
                progress.started = true
            }
            if !text.isEmpty { return Array(text.utf8) }
        }
        if format == .csv, !progress.started {
            progress.started = true
            return Array(try AnswerTable(columns: SamplesAnswer.columns, rows: []).csv().utf8)
        }
        return nil
    }
}
