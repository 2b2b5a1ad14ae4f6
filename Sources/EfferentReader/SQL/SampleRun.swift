import EfferentClient
import EfferentCore

/// One day's run of a sample series (`RecordParts.isSampleSeries`) as the JSON text of its
/// `sample_runs` row, and the SQL the `events` view reads it back with.
///
/// Each event is an array: `[start, value]` when it is an instant at the run's UTC offset — nearly
/// every sample — else `[start, value, end, start_offset, end_offset]`. Values are written in
/// Swift's shortest round-trip form with a fraction or exponent, so SQLite reads each back as the
/// same REAL an `event_rows` row holds; a missing value is `null`.
enum SampleRun {
    /// Whether `events` of `metric` are stored as a run: sample series whose events carry nothing
    /// but instants and values (anything else keeps its rows in `event_rows`; `DayEvent` admits
    /// only finite values, which JSON can hold).
    static func packs(_ metric: String, _ events: [DayEvent]) -> Bool {
        guard RecordParts.isSampleSeries(metric) else { return false }
        return events.allSatisfy { event in
            event.stage == nil && event.activity == nil && event.duration == nil
        }
    }

    /// A run ready for its `sample_runs` row.
    struct Encoded: Sendable {
        let offset: Int64
        let text: String
    }

    /// For each run of `day`, its row when it is stored as a run (nil when its events keep their
    /// rows): made with the window, off the thread that inserts.
    static func encoded(_ day: ExportWindow.Day, clock: LocalClock) throws -> [Encoded?] {
        let zone = try clock.zone(day.timeZone)
        var text = [UInt8]()
        return day.runs.map { run in
            guard packs(run.key.metric, run.events) else { return nil }
            let offset = encode(run.events, zone: zone, into: &text)
            return Encoded(offset: offset, text: String(decoding: text, as: UTF8.self))
        }
    }

    /// The run's UTC offset (its first event's) and its events as JSON text, written into `text`
    /// (emptied first, so one buffer serves every run of a day).
    static func encode(_ events: [DayEvent], zone: ZoneCalendar, into text: inout [UInt8]) -> Int64 {
        text.removeAll(keepingCapacity: true)
        let offset = events.first.map { zone.offset(at: Double($0.start)) } ?? 0
        text.append(UInt8(ascii: "["))
        for (index, event) in events.enumerated() {
            if index > 0 { text.append(UInt8(ascii: ",")) }
            let startOffset = zone.offset(at: Double(event.start))
            let endOffset = event.end == event.start ? startOffset : zone.offset(at: Double(event.end))
            text.append(UInt8(ascii: "["))
            text.append(contentsOf: String(event.start).utf8)
            text.append(UInt8(ascii: ","))
            if let value = event.value { text.append(contentsOf: value.description.utf8) } else { text.append(contentsOf: "null".utf8) }
            if event.end != event.start || startOffset != offset {
                // Three appends, not a loop over an array literal: that allocated an array for
                // each of the decade's 4.5 million route fields.
                text.append(UInt8(ascii: ","))
                text.append(contentsOf: String(event.end).utf8)
                text.append(UInt8(ascii: ","))
                text.append(contentsOf: String(startOffset).utf8)
                text.append(UInt8(ascii: ","))
                text.append(contentsOf: String(endOffset).utf8)
            }
            text.append(UInt8(ascii: "]"))
        }
        text.append(UInt8(ascii: "]"))
        return offset
    }

    /// The SQL for field `index` of the event `json_each` names `e` (NULL where the short form
    /// leaves it out). `json_extract` rather than `->>`, which SQLite gained only in 3.38.
    static func column(_ index: Int) -> String { "json_extract(e.value, '$[\(index)]')" }
}
