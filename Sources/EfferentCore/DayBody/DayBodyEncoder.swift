/// Writes events as the canonical bytes of layout 2 (protocol §3.1, decisions A.4 and A.5).
///
/// It writes straight into one byte buffer: a decade of days is about a million events, and a
/// `JSONValue` tree per day would cost more than the writing itself.
enum DayBodyEncoder {
    /// The canonical layout-2 bytes of `events`, in any order, with the time zone as the
    /// top-level `tz` key between `series` and `v` when one is given (decision A.4).
    static func encode(_ events: some Sequence<DayEvent>, timeZone: String?) -> [UInt8] {
        let series = group(events)
        var writer = JSONWriter(reservingCapacity: 64 + series.reduce(0) { $0 + 96 + $1.events.count * 24 })
        writer.raw("{\"series\":[")
        for (index, one) in series.enumerated() {
            if index > 0 { writer.raw(byte: UInt8(ascii: ",")) }
            write(one, into: &writer)
        }
        writer.raw("]")
        if let timeZone {
            writer.raw(",\"tz\":")
            writer.string(timeZone)
        }
        writer.raw(",\"v\":2}")
        return writer.bytes
    }

    /// Series in canonical order, each with its rows in canonical order (decision A.5).
    static func group(_ events: some Sequence<DayEvent>) -> [DaySeries] {
        var groups = [DaySeries.Key: [DayEvent]]()
        for event in events { groups[DaySeries.Key(of: event), default: []].append(event) }
        return groups.keys.sorted().map { key in
            // `groups[key]` is always present: the keys come from the dictionary itself.
            DaySeries(key: key, events: (groups[key] ?? []).sorted(by: CanonicalOrder.rowPrecedes))
        }
    }

    /// One series object with its keys in sorted order:
    /// `activity, bucket, d, duration, k, metric, source, stage, t, t0, unit, value` (§3.1).
    static func write(_ series: DaySeries, into writer: inout JSONWriter) {
        let rows = series.events
        let key = series.key
        var first = true
        func name(_ text: StaticString) {
            if !first { writer.raw(byte: UInt8(ascii: ",")) }
            first = false
            writer.raw(text)
        }
        writer.raw(byte: UInt8(ascii: "{"))
        if rows.contains(where: { $0.activity != nil }) {
            name("\"activity\":")
            textColumn(rows, \.activity, into: &writer)
        }
        if let bucket = key.bucket {
            name("\"bucket\":")
            writer.string(bucket.rawValue)
        }
        name("\"d\":")
        integers(rows.lazy.map { $0.end - $0.start }, into: &writer)
        if rows.contains(where: { $0.duration != nil }) {
            name("\"duration\":")
            numberColumn(rows, \.duration, into: &writer)
        }
        name("\"k\":")
        writer.string(key.kind.rawValue)
        name("\"metric\":")
        writer.string(key.metric)
        if let source = key.source {
            name("\"source\":")
            writer.string(source)
        }
        if rows.contains(where: { $0.stage != nil }) {
            name("\"stage\":")
            textColumn(rows, \.stage, into: &writer)
        }
        let t0 = rows.first?.start ?? 0
        name("\"t\":")
        integers(rows.indices.lazy.map { $0 == 0 ? 0 : rows[$0].start - rows[$0 - 1].start }, into: &writer)
        name("\"t0\":")
        writer.integer(t0)
        if let unit = key.unit {
            name("\"unit\":")
            writer.string(unit)
        }
        if rows.contains(where: { $0.value != nil }) {
            name("\"value\":")
            numberColumn(rows, \.value, into: &writer)
        }
        writer.raw(byte: UInt8(ascii: "}"))
    }

    private static func integers(_ values: some Sequence<Int64>, into writer: inout JSONWriter) {
        writer.raw(byte: UInt8(ascii: "["))
        var first = true
        for value in values {
            if !first { writer.raw(byte: UInt8(ascii: ",")) }
            first = false
            writer.integer(value)
        }
        writer.raw(byte: UInt8(ascii: "]"))
    }

    private static func textColumn(_ rows: [DayEvent], _ field: KeyPath<DayEvent, String?>, into writer: inout JSONWriter) {
        writer.raw(byte: UInt8(ascii: "["))
        for (index, row) in rows.enumerated() {
            if index > 0 { writer.raw(byte: UInt8(ascii: ",")) }
            if let text = row[keyPath: field] { writer.string(text) } else { writer.raw("null") }
        }
        writer.raw(byte: UInt8(ascii: "]"))
    }

    private static func numberColumn(_ rows: [DayEvent], _ field: KeyPath<DayEvent, Double?>, into writer: inout JSONWriter) {
        writer.raw(byte: UInt8(ascii: "["))
        for (index, row) in rows.enumerated() {
            if index > 0 { writer.raw(byte: UInt8(ascii: ",")) }
            if let n = row[keyPath: field] { number(n, into: &writer) } else { writer.raw("null") }
        }
        writer.raw(byte: UInt8(ascii: "]"))
    }

    /// A finite number as decision A.5 writes it. Every `DayEvent` holds finite numbers only
    /// (its `init` refuses others), so `JSONWriter.number` cannot refuse one here.
    static func number(_ value: Double, into writer: inout JSONWriter) {
        do {
            try writer.number(value)
        } catch {
            assertionFailure("a DayEvent held a non-finite number")
            writer.raw("null")
        }
    }
}
