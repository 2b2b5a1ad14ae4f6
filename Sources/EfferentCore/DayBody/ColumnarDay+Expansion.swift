/// Expansion of a layout-2 day into NDJSON events (protocol §3.2 rules 2–5).
extension ColumnarDay {
    /// Every row as an event with its id, in series order then row order; ids that occur more
    /// than once in the day get `#1`, `#2`, … in that order (§3.2 rule 4).
    public func expandedEvents() -> [ExpandedEvent] { expandedEvents(metric: nil) }

    /// The events of one metric only, numbered exactly as in the whole day: ids can only collide
    /// within one kind, metric and bucket, so the other series need not be expanded at all.
    public func expandedEvents(metric: String?) -> [ExpandedEvent] {
        expandedEvents(matching: metric.map { wanted in { $0 == wanted } })
    }

    /// The events of the metrics `matching` accepts (all when nil), numbered as in the whole day.
    public func expandedEvents(matching: ((String) -> Bool)?) -> [ExpandedEvent] {
        let series = matching.map { keep in self.series.filter { keep($0.key.metric) } } ?? self.series
        // Storage sized once and filled in place: a day with every type expands to 8,000 rows.
        return [ExpandedEvent](capacity: series.reduce(0) { $0 + $1.count }) { out in
            Self.forEach(in: series) { event in out.append(event) }
        }
    }

    /// Calls `body` with each event `expandedEvents(matching:)` would hold, in the same order and
    /// numbered alike, with no array in between: a reader that turns each event into something
    /// else (an `ArchiveEvent`, an NDJSON line) needs the events one at a time only.
    public func forEachExpanded(matching: ((String) -> Bool)? = nil, _ body: (ExpandedEvent) throws -> Void) rethrows {
        try Self.forEach(in: matching.map { keep in series.filter { keep($0.key.metric) } } ?? series, body)
    }

    /// The one walk both forms share, so the array and the visitor can never number apart.
    private static func forEach(in series: [DaySeries], _ body: (ExpandedEvent) throws -> Void) rethrows {
        let numbers = numbers(series)
        for (index, one) in series.enumerated() {
            // One event per series, moved from row to row: a new one per row would retain and
            // release the series' columns each time (29 million rows a decade with every type).
            var event = ExpandedEvent(columns: one.columns, row: 0, number: 0)
            if let numbered = numbers[index] {
                for row in 0..<one.count {
                    event.move(to: row, number: numbered[row])
                    try body(event)
                }
            } else {
                for row in 0..<one.count {
                    event.move(to: row, number: 0)
                    try body(event)
                }
            }
        }
    }

    /// Each series' `#n` per row, `nil` for a series none of whose ids repeats. Two ids can only
    /// be equal when kind, metric, bucket and start are, so collisions are counted within such a
    /// group; a group of one series in start order (every canonical body) has its repeats next
    /// to each other and needs no table at all.
    static func numbers(_ series: [DaySeries]) -> [[Int32]?] {
        var out = [[Int32]?](repeating: nil, count: series.count)
        for members in groups(series) {
            if members.count == 1, let numbered = runNumbers(series[members[0]].columns.starts) {
                out[members[0]] = numbered.isEmpty ? nil : numbered
                continue
            }
            // Several series (or rows out of start order): count each start over the group, then
            // number in series order, row order.
            var counts = [Int64: Int32]()
            for member in members { for start in series[member].columns.starts { counts[start, default: 0] += 1 } }
            guard counts.values.contains(where: { $0 > 1 }) else { continue }
            var numbered = [Int64: Int32]()
            for member in members {
                out[member] = series[member].columns.starts.map { start in
                    guard let count = counts[start], count > 1 else { return 0 }
                    let number = numbered[start, default: 0] + 1
                    numbered[start] = number
                    return number
                }
            }
        }
        return out
    }

    /// The indices of the series of each group (kind, metric, bucket), groups in order of first
    /// appearance. A canonical body holds its series sorted by key, so each group is a run of
    /// neighbours and found without hashing a metric; a body in another order takes a table.
    private static func groups(_ series: [DaySeries]) -> [[Int]] {
        var runs = [[Int]]()
        var first = 0
        for index in series.indices.dropFirst() {
            let a = series[index - 1].key, b = series[index].key
            if a.kind == b.kind, a.metric == b.metric, a.bucket == b.bucket { continue }
            guard groupFollows(a, b) else { return tabledGroups(series) }
            runs.append(Array(first..<index))
            first = index
        }
        if !series.isEmpty { runs.append(Array(first..<series.count)) }
        return runs
    }

    /// Whether the group of `b` comes after that of `a` (another group) in canonical order.
    private static func groupFollows(_ a: DaySeries.Key, _ b: DaySeries.Key) -> Bool {
        if a.kind != b.kind { return a.kind < b.kind }
        if a.metric != b.metric { return a.metric < b.metric }
        return CanonicalOrder.compare(a.bucket, b.bucket) ?? false
    }

    private static func tabledGroups(_ series: [DaySeries]) -> [[Int]] {
        var groups = [GroupKey: [Int]]()
        var order = [GroupKey]()
        for (index, one) in series.enumerated() {
            let key = GroupKey(kind: one.key.kind, metric: one.key.metric, bucket: one.key.bucket)
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(index)
        }
        return order.map { groups[$0] ?? [] }
    }

    /// The numbers of a series in start order: a run of equal starts gets 1, 2, …; an empty array
    /// when nothing repeats, `nil` when the starts are not in order.
    private static func runNumbers(_ starts: [Int64]) -> [Int32]? {
        let starts = starts.span
        var firstRepeat = -1
        for i in starts.indices.dropFirst() {
            if starts[i] < starts[i - 1] { return nil }
            if starts[i] == starts[i - 1], firstRepeat < 0 { firstRepeat = i - 1 }
        }
        guard firstRepeat >= 0 else { return [] }
        var numbers = [Int32](repeating: 0, count: starts.count)
        var out = numbers.mutableSpan
        var i = firstRepeat
        while i < starts.count {
            var j = i + 1
            while j < starts.count, starts[j] == starts[i] { j += 1 }
            if j - i > 1 { for k in i..<j { out[k] = Int32(k - i + 1) } }
            i = j
        }
        return numbers
    }

    private struct GroupKey: Hashable {
        let kind: DayEvent.Kind
        let metric: String
        let bucket: DayEvent.Bucket?
    }

    /// One compact, key-sorted line per event (§3.2 rule 5), with `"day":"YYYY-MM-DD"` added to
    /// every line when `day` is given (the range mode).
    public func ndjson(day: CalendarDay? = nil) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: series.reduce(0) { $0 + $1.count } * 160)
        forEachExpanded { $0.writeLine(day: day, into: &writer) }
        return writer.bytes
    }
}
