/// One event of an expanded layout-2 day: its id and its fields (protocol §3.2 rules 2–4).
///
/// It points at its row of the series' columns and builds the id and the event when asked:
/// expanding a day numbers its ids, and a reader that only counts, filters by metric or writes
/// lines straight from the columns never pays for a string per row.
public struct ExpandedEvent: Equatable, Sendable {
    let columns: DaySeries.Columns
    let row: Int32
    /// The `#n` of an id that occurs more than once in the day; 0 for none.
    let number: Int32

    init(columns: DaySeries.Columns, row: Int, number: Int32) {
        self.columns = columns
        self.row = Int32(truncatingIfNeeded: row)
        self.number = number
    }

    /// `<k>:<metric>:<ISO start>`, `:h`/`:d` when bucketed, and `#n` when the id occurs more
    /// than once in the day.
    public var id: String {
        var writer = JSONWriter(reservingCapacity: columns.key.metric.utf8.count + 40)
        writeID(into: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    public var event: DayEvent { columns.event(at: Int(row)) }

    public static func == (a: ExpandedEvent, b: ExpandedEvent) -> Bool {
        a.id == b.id && a.event == b.event
    }

    /// §3.2 rules 3–4, unescaped: `<k>:<metric>:` + ISO start + `:h`/`:d` + `#n` when `number` > 0.
    func writeID(into writer: inout JSONWriter) {
        let key = columns.key
        writer.raw(key.kind == .total ? "agg:" : "hk:")
        writer.text(key.metric)
        writer.raw(byte: UInt8(ascii: ":"))
        ISOInstant.write(columns.starts[Int(row)], into: &writer)
        switch key.bucket {
        case .hour: writer.raw(":h")
        case .day: writer.raw(":d")
        case nil: break
        }
        if number > 0 {
            writer.raw(byte: UInt8(ascii: "#"))
            writer.integer(Int64(number))
        }
    }

    /// One compact NDJSON line with keys sorted by their bytes, raw UTF-8, `\n`-terminated:
    /// `activity, bucket, day, duration, end, id, metric, source, stage, start, unit, v, value`
    /// (§3.2 rule 5; `day` only in the range mode). Written from the columns, with no event or
    /// id string in between.
    func writeLine(day: CalendarDay?, into writer: inout JSONWriter) {
        let key = columns.key, row = Int(row)
        writer.raw(byte: UInt8(ascii: "{"))
        if let activity = columns.activities?[row] {
            writer.raw("\"activity\":")
            writer.string(activity)
            writer.raw(byte: UInt8(ascii: ","))
        }
        if let bucket = key.bucket {
            writer.raw("\"bucket\":")
            writer.string(bucket.rawValue)
            writer.raw(byte: UInt8(ascii: ","))
        }
        if let day {
            writer.raw("\"day\":")
            writer.string(day.description)
            writer.raw(byte: UInt8(ascii: ","))
        }
        if let duration = columns.duration(at: row) {
            writer.raw("\"duration\":")
            DayBodyEncoder.number(duration, into: &writer)
            writer.raw(byte: UInt8(ascii: ","))
        }
        writer.raw("\"end\":\"")
        ISOInstant.write(columns.ends[row], into: &writer)
        writer.raw("\",\"id\":")
        if JSONWriter.needsEscape(key.metric) {
            writer.string(id)
        } else {
            writer.raw(byte: UInt8(ascii: "\""))
            writeID(into: &writer)
            writer.raw(byte: UInt8(ascii: "\""))
        }
        writer.raw(",\"metric\":")
        writer.string(key.metric)
        if let source = key.source {
            writer.raw(",\"source\":")
            writer.string(source)
        }
        if let stage = columns.stages?[row] {
            writer.raw(",\"stage\":")
            writer.string(stage)
        }
        writer.raw(",\"start\":\"")
        ISOInstant.write(columns.starts[row], into: &writer)
        writer.raw(byte: UInt8(ascii: "\""))
        if let unit = key.unit {
            writer.raw(",\"unit\":")
            writer.string(unit)
        }
        writer.raw(",\"v\":1")
        if let value = columns.value(at: row) {
            writer.raw(",\"value\":")
            DayBodyEncoder.number(value, into: &writer)
        }
        writer.raw("}\n")
    }
}
