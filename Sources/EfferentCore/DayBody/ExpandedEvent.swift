/// One event of an expanded layout-2 day: its id and its fields (protocol §3.2 rules 2–4).
public struct ExpandedEvent: Equatable, Sendable {
    /// `<k>:<metric>:<ISO start>`, `:h`/`:d` when bucketed, and `#n` when the id occurs more
    /// than once in the day.
    public let id: String
    public let event: DayEvent

    init(id: String, event: DayEvent) {
        self.id = id
        self.event = event
    }

    /// §3.2 rules 3–4: `<k>:<metric>:` + ISO start + `:h`/`:d` + `#n` when `number` > 0, built in
    /// one buffer (a decade expands to about a million ids).
    static func id(prefix: [UInt8], start: Int64, suffix: StaticString, number: Int32) -> String {
        var writer = JSONWriter(reservingCapacity: prefix.count + 32)
        for byte in prefix { writer.raw(byte: byte) }
        ISOInstant.write(start, into: &writer)
        writer.raw(suffix)
        if number > 0 {
            writer.raw(byte: UInt8(ascii: "#"))
            writer.integer(Int64(number))
        }
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// One compact NDJSON line with keys sorted by their bytes, raw UTF-8, `\n`-terminated:
    /// `activity, bucket, day, duration, end, id, metric, source, stage, start, unit, v, value`
    /// (§3.2 rule 5; `day` only in the range mode).
    func writeLine(day: CalendarDay?, into writer: inout JSONWriter) {
        writer.raw(byte: UInt8(ascii: "{"))
        if let activity = event.activity {
            writer.raw("\"activity\":")
            writer.string(activity)
            writer.raw(byte: UInt8(ascii: ","))
        }
        if let bucket = event.bucket {
            writer.raw("\"bucket\":")
            writer.string(bucket.rawValue)
            writer.raw(byte: UInt8(ascii: ","))
        }
        if let day {
            writer.raw("\"day\":")
            writer.string(day.description)
            writer.raw(byte: UInt8(ascii: ","))
        }
        if let duration = event.duration {
            writer.raw("\"duration\":")
            DayBodyEncoder.number(duration, into: &writer)
            writer.raw(byte: UInt8(ascii: ","))
        }
        writer.raw("\"end\":\"")
        ISOInstant.write(event.end, into: &writer)
        writer.raw("\",\"id\":")
        writer.string(id)
        writer.raw(",\"metric\":")
        writer.string(event.metric)
        if let source = event.source {
            writer.raw(",\"source\":")
            writer.string(source)
        }
        if let stage = event.stage {
            writer.raw(",\"stage\":")
            writer.string(stage)
        }
        writer.raw(",\"start\":\"")
        ISOInstant.write(event.start, into: &writer)
        writer.raw(byte: UInt8(ascii: "\""))
        if let unit = event.unit {
            writer.raw(",\"unit\":")
            writer.string(unit)
        }
        writer.raw(",\"v\":1")
        if let value = event.value {
            writer.raw(",\"value\":")
            DayBodyEncoder.number(value, into: &writer)
        }
        writer.raw("}\n")
    }
}
