/// Expansion of a layout-2 day into NDJSON events (protocol §3.2 rules 2–5).
extension ColumnarDay {
    /// Every row as an event with its id, in series order then row order; ids that occur more
    /// than once in the day get `#1`, `#2`, … in that order (§3.2 rule 4).
    public func expandedEvents() -> [ExpandedEvent] {
        let events = self.events
        let bases = events.map(ExpandedEvent.baseID(of:))
        var counts = [String: Int](minimumCapacity: bases.count)
        for base in bases { counts[base, default: 0] += 1 }
        var numbered = [String: Int]()
        var out = [ExpandedEvent]()
        out.reserveCapacity(events.count)
        for (event, base) in zip(events, bases) {
            guard let count = counts[base], count > 1 else {
                out.append(ExpandedEvent(id: base, event: event))
                continue
            }
            let n = numbered[base, default: 0] + 1
            numbered[base] = n
            out.append(ExpandedEvent(id: base + "#" + String(n), event: event))
        }
        return out
    }

    /// One compact, key-sorted line per event (§3.2 rule 5), with `"day":"YYYY-MM-DD"` added to
    /// every line when `day` is given (the range mode).
    public func ndjson(day: CalendarDay? = nil) -> [UInt8] {
        let expanded = expandedEvents()
        var writer = JSONWriter(reservingCapacity: expanded.count * 160)
        for event in expanded { event.writeLine(day: day, into: &writer) }
        return writer.bytes
    }
}
