/// One event of an expanded layout-2 day: its id and its fields (protocol §3.2 rules 2–4).
///
/// It points at its row of the series' columns and builds the id and the event when asked:
/// expanding a day numbers its ids, and a reader that only counts, filters by metric or writes
/// lines straight from the columns never pays for a string per row.
public struct ExpandedEvent: Equatable, Sendable {
    let columns: DaySeries.Columns
    private(set) var row: Int32
    /// The `#n` of an id that occurs more than once in the day; 0 for none.
    private(set) var number: Int32

    init(columns: DaySeries.Columns, row: Int, number: Int32) {
        self.columns = columns
        self.row = Int32(truncatingIfNeeded: row)
        self.number = number
    }

    /// Points this event at another row of the same series.
    mutating func move(to row: Int, number: Int32) {
        self.row = Int32(truncatingIfNeeded: row)
        self.number = number
    }

    /// `<k>:<metric>:<ISO start>`, `:h`/`:d` when bucketed, and `#n` when the id occurs more
    /// than once in the day.
    ///
    /// Written straight into the string's storage at its exact length: one allocation per id,
    /// where a byte buffer then a copy of it cost two (a reader builds an id for every row).
    public var id: String {
        let metric = columns.key.metric
        let bucket = columns.key.bucket
        let start = columns.starts[Int(row)]
        let prefix = columns.key.kind == .total ? 4 : 3
        let suffix = number > 0 ? 1 + Self.digitCount(number) : 0
        let length = prefix + metric.utf8.count + 1 + ISOInstant.length + (bucket == nil ? 0 : 2) + suffix
        return String(utf8Capacity: length) { out in
            if prefix == 4 { out.append(UInt8(ascii: "a")); out.append(UInt8(ascii: "g")); out.append(UInt8(ascii: "g")) } else { out.append(UInt8(ascii: "h")); out.append(UInt8(ascii: "k")) }
            out.append(UInt8(ascii: ":"))
            let name = metric.utf8Span.span
            for index in name.indices { out.append(name[index]) }
            out.append(UInt8(ascii: ":"))
            ISOInstant.write(start, into: &out)
            switch bucket {
            case .hour: out.append(UInt8(ascii: ":")); out.append(UInt8(ascii: "h"))
            case .day: out.append(UInt8(ascii: ":")); out.append(UInt8(ascii: "d"))
            case nil: break
            }
            if number > 0 {
                out.append(UInt8(ascii: "#"))
                JSONWriter.integer(Int64(number), into: &out)
            }
        }
    }

    /// The decimal digits of a positive `n`.
    private static func digitCount(_ n: Int32) -> Int {
        var count = 1, rest = n
        while rest >= 10 { rest /= 10; count += 1 }
        return count
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

extension String {
    /// A string of at most `capacity` bytes of UTF-8, appended by `body` straight into the string's
    /// own storage: one allocation, where a byte array then a string of it cost two (a reader
    /// builds an id for every row). Every write goes through the bounds-checked `OutputSpan`.
    // unsafe: the only unchecked step is handing String's uninitialized storage (exactly `capacity`
    // bytes, which bound every write) to that OutputSpan and reading back how many it initialized;
    // String validates the UTF-8 after. Audited site "an id written into String's own storage"
    // (documents/design.md, Memory safety); fuzz-day builds every id of every day it accepts.
    @inline(__always)
    init(utf8Capacity capacity: Int, _ body: (inout OutputSpan<UInt8>) -> Void) {
        self = unsafe String(unsafeUninitializedCapacity: capacity) { buffer in
            var out = unsafe OutputSpan(buffer: buffer, initializedCount: 0)
            body(&out)
            return unsafe out.finalize(for: buffer)
        }
    }
}
