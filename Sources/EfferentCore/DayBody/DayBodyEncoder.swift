/// Writes events as the canonical bytes of layout 2 (protocol §3.1, decisions A.4 and A.5).
///
/// It writes straight into one byte buffer: a decade of days is about a million events, and a
/// `JSONValue` tree per day would cost more than the writing itself.
enum DayBodyEncoder {
    /// The canonical layout-2 bytes of `events`, in any order, with the time zone as the
    /// top-level `tz` key between `series` and `v` when one is given (decision A.4).
    static func encode(_ events: [DayEvent], timeZone: String?) -> [UInt8] {
        let series = group(events)
        var writer = JSONWriter(reservingCapacity: 64 + series.count * 96 + events.count * 24)
        writer.raw("{\"series\":[")
        for (index, one) in series.enumerated() {
            if index > 0 { writer.raw(byte: UInt8(ascii: ",")) }
            write(one.key, rows: one.rows, of: events, into: &writer)
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
        // Events usually arrive in runs of one series, or cycle through a few (the seven fields of
        // a GPS fix): the previous event's series and the one that followed it last time are
        // compared field by field, and the hash table is consulted only when neither holds it.
        var keys = [DaySeries.Key]()
        var members = [[Int]]()
        var following = [Int]()
        var slots = [DaySeries.Key: Int]()
        var current = -1
        for index in events.indices {
            var slot = -1
            if current >= 0 {
                if holds(keys, current, events, index) {
                    slot = current
                } else if following[current] >= 0, holds(keys, following[current], events, index) {
                    slot = following[current]
                }
            }
            if slot < 0 {
                let key = DaySeries.Key(of: events[index])
                if let known = slots[key] {
                    slot = known
                } else {
                    slot = keys.count
                    slots[key] = slot
                    keys.append(key)
                    members.append([])
                    following.append(-1)
                }
            }
            if current >= 0, current != slot { following[current] = slot }
            current = slot
            members[slot].append(index)
        }
        return zip(keys, members).sorted { $0.0 < $1.0 }.map { key, rows in
            // Rows usually come in order already (a store reads them so): check before sorting.
            var inOrder = true
            for position in rows.indices.dropFirst() where rowPrecedes(rows[position], rows[position - 1], in: events) {
                inOrder = false
                break
            }
            return (key, inOrder ? rows : rows.sorted { rowPrecedes($0, $1, in: events) })
        }
    }

    /// `keys[key].holds(events[event])`, field by field where they lie: passing the key and the
    /// event whole copied both out of their arrays, eight strings retained and released for
    /// every event (most of what encoding a day of GPS fixes cost).
    @inline(__always)
    private static func holds(_ keys: [DaySeries.Key], _ key: Int, _ events: [DayEvent], _ event: Int) -> Bool {
        keys[key].kind == events[event].kind && keys[key].bucket == events[event].bucket
            && CanonicalOrder.sameBytes(keys[key].metric, events[event].metric)
            && CanonicalOrder.sameBytes(keys[key].unit, events[event].unit) && CanonicalOrder.sameBytes(keys[key].source, events[event].source)
    }

    /// Whether row `a` goes before row `b` (decision A.5), reading the fields in place.
    @inline(__always)
    private static func rowPrecedes(_ a: Int, _ b: Int, in events: [DayEvent]) -> Bool {
        let x = events[a].start, y = events[b].start
        if x != y { return x < y }
        let p = events[a].end, q = events[b].end
        if p != q { return p < q }
        return CanonicalOrder.rowPrecedes(events[a], events[b])
    }

    /// One series object with its keys in sorted order:
    /// `activity, bucket, d, duration, k, metric, source, stage, t, t0, unit, value` (§3.1).
    static func write(_ key: DaySeries.Key, rows: [Int], of events: [DayEvent], into writer: inout JSONWriter) {
        var first = true
        func name(_ text: StaticString) {
            if !first { writer.raw(byte: UInt8(ascii: ",")) }
            first = false
            writer.raw(text)
        }
        writer.raw(byte: UInt8(ascii: "{"))
        if rows.contains(where: { events[$0].activity != nil }) {
            name("\"activity\":")
            textColumn(rows, of: events, { $0.activity }, into: &writer)
        }
        if let bucket = key.bucket {
            name("\"bucket\":")
            writer.string(bucket.rawValue)
        }
        name("\"d\":[")
        writer.elements(rows.count) { index, out in JSONWriter.integer(events[rows[index]].end - events[rows[index]].start, into: &out) }
        writer.raw(byte: UInt8(ascii: "]"))
        if rows.contains(where: { events[$0].duration != nil }) {
            name("\"duration\":")
            numberColumn(rows, of: events, { $0.duration }, into: &writer)
        }
        name("\"k\":")
        writer.string(key.kind.rawValue)
        name("\"metric\":")
        writer.string(key.metric)
        if let source = key.source {
            name("\"source\":")
            writer.string(source)
        }
        if rows.contains(where: { events[$0].stage != nil }) {
            name("\"stage\":")
            textColumn(rows, of: events, { $0.stage }, into: &writer)
        }
        name("\"t\":[")
        var previous = rows.first.map { events[$0].start } ?? 0
        let t0 = previous
        writer.elements(rows.count) { index, out in
            let start = events[rows[index]].start
            defer { previous = start }
            JSONWriter.integer(start - previous, into: &out)
        }
        writer.raw(byte: UInt8(ascii: "]"))
        name("\"t0\":")
        writer.integer(t0)
        if let unit = key.unit {
            name("\"unit\":")
            writer.string(unit)
        }
        if rows.contains(where: { events[$0].value != nil }) {
            name("\"value\":")
            numberColumn(rows, of: events, { $0.value }, into: &writer)
        }
        writer.raw(byte: UInt8(ascii: "}"))
    }

    @inline(__always)
    private static func textColumn(_ rows: [Int], of events: [DayEvent], _ cell: (DayEvent) -> String?, into writer: inout JSONWriter) {
        writer.raw(byte: UInt8(ascii: "["))
        for (index, row) in rows.enumerated() {
            if index > 0 { writer.raw(byte: UInt8(ascii: ",")) }
            if let text = cell(events[row]) { writer.string(text) } else { writer.raw("null") }
        }
        writer.raw(byte: UInt8(ascii: "]"))
    }

    @inline(__always)
    private static func numberColumn(_ rows: [Int], of events: [DayEvent], _ cell: (DayEvent) -> Double?, into writer: inout JSONWriter) {
        writer.raw(byte: UInt8(ascii: "["))
        // Every `DayEvent` holds finite numbers only (its `init` refuses others).
        writer.elements(rows.count) { index, out in
            guard let n = cell(events[rows[index]]) else {
                for byte in "null".utf8 { out.append(byte) }
                return
            }
            JSONWriter.number(n, into: &out)
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
