/// Writes events as the canonical bytes of layout 2 (protocol §3.1, decisions A.4 and A.5).
///
/// It writes straight into one byte buffer: a decade of days is about a million events, and a
/// `JSONValue` tree per day would cost more than the writing itself.
enum DayBodyEncoder {
    /// The canonical layout-2 bytes of `events`, in any order, with the time zone as the
    /// top-level `tz` key between `series` and `v` when one is given (decision A.4).
    static func encode(_ input: some Sequence<DayEvent>, timeZone: String?) -> [UInt8] {
        let events = Array(input)
        let series = group(events)
        var writer = JSONWriter(reservingCapacity: 64 + series.count * 96 + events.count * 24)
        writer.raw("{\"series\":[")
        for (index, one) in series.enumerated() {
            if index > 0 { writer.raw(byte: UInt8(ascii: ",")) }
            write(one.key, rows: one.rows.map { events[$0] }, into: &writer)
        }
        writer.raw("]")
        if let timeZone {
            writer.raw(",\"tz\":")
            writer.string(timeZone)
        }
        writer.raw(",\"v\":2}")
        return writer.bytes
    }

    /// Series keys in canonical order, each with the indices of its rows in canonical order
    /// (decision A.5). Indices, not events, are sorted: an event is a large value to move.
    static func group(_ events: [DayEvent]) -> [(key: DaySeries.Key, rows: [Int])] {
        // Events usually arrive in runs of one series, so the hash table is consulted only when
        // the key changes from the previous event's.
        var keys = [DaySeries.Key]()
        var members = [[Int]]()
        var slots = [DaySeries.Key: Int]()
        var current = -1
        for index in events.indices {
            let key = DaySeries.Key(of: events[index])
            if current < 0 || keys[current] != key {
                if let slot = slots[key] {
                    current = slot
                } else {
                    current = keys.count
                    slots[key] = current
                    keys.append(key)
                    members.append([])
                }
            }
            members[current].append(index)
        }
        return zip(keys, members).sorted { $0.0 < $1.0 }.map { key, rows in
            (key, rows.sorted { a, b in
                let x = events[a], y = events[b]
                if x.start != y.start { return x.start < y.start }
                if x.end != y.end { return x.end < y.end }
                return CanonicalOrder.rowPrecedes(x, y)
            })
        }
    }

    /// One series object with its keys in sorted order:
    /// `activity, bucket, d, duration, k, metric, source, stage, t, t0, unit, value` (§3.1).
    static func write(_ key: DaySeries.Key, rows: [DayEvent], into writer: inout JSONWriter) {
        var first = true
        func name(_ text: StaticString) {
            if !first { writer.raw(byte: UInt8(ascii: ",")) }
            first = false
            writer.raw(text)
        }
        writer.raw(byte: UInt8(ascii: "{"))
        if rows.contains(where: { $0.activity != nil }) {
            name("\"activity\":")
            textColumn(rows.map(\.activity), into: &writer)
        }
        if let bucket = key.bucket {
            name("\"bucket\":")
            writer.string(bucket.rawValue)
        }
        name("\"d\":")
        writer.raw(byte: UInt8(ascii: "["))
        for (index, row) in rows.enumerated() {
            if index > 0 { writer.raw(byte: UInt8(ascii: ",")) }
            writer.integer(row.end - row.start)
        }
        writer.raw(byte: UInt8(ascii: "]"))
        if rows.contains(where: { $0.duration != nil }) {
            name("\"duration\":")
            numberColumn(rows.map(\.duration), into: &writer)
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
            textColumn(rows.map(\.stage), into: &writer)
        }
        name("\"t\":[")
        var previous = rows.first?.start ?? 0
        for (index, row) in rows.enumerated() {
            if index > 0 { writer.raw(byte: UInt8(ascii: ",")) }
            writer.integer(row.start - previous)
            previous = row.start
        }
        writer.raw(byte: UInt8(ascii: "]"))
        name("\"t0\":")
        writer.integer(rows.first?.start ?? 0)
        if let unit = key.unit {
            name("\"unit\":")
            writer.string(unit)
        }
        if rows.contains(where: { $0.value != nil }) {
            name("\"value\":")
            numberColumn(rows.map(\.value), into: &writer)
        }
        writer.raw(byte: UInt8(ascii: "}"))
    }

    private static func textColumn(_ cells: [String?], into writer: inout JSONWriter) {
        writer.raw(byte: UInt8(ascii: "["))
        for (index, cell) in cells.enumerated() {
            if index > 0 { writer.raw(byte: UInt8(ascii: ",")) }
            if let text = cell { writer.string(text) } else { writer.raw("null") }
        }
        writer.raw(byte: UInt8(ascii: "]"))
    }

    private static func numberColumn(_ cells: [Double?], into writer: inout JSONWriter) {
        writer.raw(byte: UInt8(ascii: "["))
        for (index, cell) in cells.enumerated() {
            if index > 0 { writer.raw(byte: UInt8(ascii: ",")) }
            if let n = cell { number(n, into: &writer) } else { writer.raw("null") }
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
