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
        // Two ids can only be equal when kind, metric, bucket and start are: count collisions on
        // (group of those three, start) integers rather than on the id strings.
        var groups = [GroupKey: Int32]()
        var seriesGroup = [Int32]()
        seriesGroup.reserveCapacity(series.count)
        for one in series {
            let key = GroupKey(kind: one.key.kind, metric: one.key.metric, bucket: one.key.bucket)
            if let known = groups[key] {
                seriesGroup.append(known)
            } else {
                let next = Int32(groups.count)
                groups[key] = next
                seriesGroup.append(next)
            }
        }
        var counts = [Moment: Int32]()
        for (index, one) in series.enumerated() {
            for event in one.events { counts[Moment(group: seriesGroup[index], start: event.start), default: 0] += 1 }
        }
        var numbered = [Moment: Int32]()
        var out = [ExpandedEvent]()
        out.reserveCapacity(series.reduce(0) { $0 + $1.events.count })
        for (index, one) in series.enumerated() {
            let prefix = Array((one.key.kind.rawValue + ":" + one.key.metric + ":").utf8)
            let suffix: StaticString = one.key.bucket == .hour ? ":h" : one.key.bucket == .day ? ":d" : ""
            for event in one.events {
                let moment = Moment(group: seriesGroup[index], start: event.start)
                var number: Int32 = 0
                if let count = counts[moment], count > 1 {
                    number = numbered[moment, default: 0] + 1
                    numbered[moment] = number
                }
                out.append(ExpandedEvent(id: ExpandedEvent.id(prefix: prefix, start: event.start, suffix: suffix, number: number),
                                         event: event))
            }
        }
        return out
    }

    private struct GroupKey: Hashable {
        let kind: DayEvent.Kind
        let metric: String
        let bucket: DayEvent.Bucket?
    }

    private struct Moment: Hashable {
        let group: Int32
        let start: Int64
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
