import EfferentSQLite
import EfferentCore

/// Where totals changed in one transaction: per metric, the spans (Unix seconds, half-open) of
/// total records added or removed, merged as they come (records arrive in time order), so the
/// phone's buckets covering them can be judged stale in the same transaction (protocol.md,
/// "Aggregates as totals": a bucket stands only while nothing it covers has changed).
struct TotalChanges {
    private(set) var spans: [String: [(start: Int64, end: Int64)]] = [:]

    var isEmpty: Bool { spans.isEmpty }

    /// A total record of `metric` over `[start, end)` was added or removed; an instant one covers its second.
    mutating func add(metric: String, start: Int64, end: Int64) {
        let end = max(end, start + 1)
        spans[metric, default: []].merge(start, end)
    }

    mutating func formUnion(_ other: TotalChanges) {
        for (metric, list) in other.spans {
            for span in list { spans[metric, default: []].merge(span.start, span.end) }
        }
    }
}

private extension Array where Element == (start: Int64, end: Int64) {
    /// Appends `[start, end)`, widening the last span instead where the two meet.
    mutating func merge(_ start: Int64, _ end: Int64) {
        if let last = self.last, start >= last.start, start <= last.end {
            self[count - 1].end = Swift.max(last.end, end)
        } else {
            append((start, end))
        }
    }
}

extension SourceStore {
    /// Whether any bucket that can stand for a total is stored (otherwise nothing can go stale,
    /// and an import need not note where its totals changed).
    static func holdsTotalBuckets(_ db: SQLiteConnection) throws -> Bool {
        try db.statement("""
            SELECT EXISTS (SELECT 1 FROM phone_aggregate WHERE func = 'sum' AND device_filter = 'all' AND interval_value = 1
                           AND interval_unit IN ('hour', 'day'))
            """).first { $0.int64(0) == 1 } ?? false
    }

    /// Marks stale every bucket that can stand for a total and meets a span of `changes` for its
    /// metric, inside the caller's transaction. A stale bucket is read by no day (`phoneTotals`)
    /// until the phone sends that bucket again. The changes' own days are marked by the caller.
    static func staleBuckets(_ changes: TotalChanges, db: SQLiteConnection) throws {
        guard !changes.isEmpty, try holdsTotalBuckets(db) else { return }
        // The types stored buckets name, by the metric a raw sample of that type and unit maps to.
        var types = [String: Set<String>]()
        for (type, unit) in try db.statement("""
            SELECT DISTINCT type, unit FROM phone_aggregate WHERE func = 'sum' AND device_filter = 'all' AND interval_value = 1
            AND interval_unit IN ('hour', 'day')
            """).rows([], { ($0.text(0), $0.optionalText(1)) }) {
            let sample = SourceRecord(kind: .quantity, type: type, source: "", start: 0, end: 0, value: 0, unit: unit)
            guard case let .success(mapped) = MetricMapping.map(sample), mapped.target.isTotal else { continue }
            types[mapped.target.metric, default: []].insert(type)
        }
        // A bucket is at most a day (25 hours across a clock change) wide: its start is looked up
        // in that reach before the span, through the index on the total buckets' starts.
        let stale = try db.statement("""
            UPDATE phone_aggregate SET stale = 1 WHERE type = ? AND func = 'sum' AND device_filter = 'all' AND interval_value = 1
            AND interval_unit IN ('hour', 'day') AND bucket_start > ? AND bucket_start < ? AND bucket_end > ? AND stale = 0
            """)
        for (metric, spans) in changes.spans {
            guard let named = types[metric] else { continue }
            for type in named {
                for span in spans {
                    try stale.run([.text(type), .real(Double(span.start - 90_000) * 1000), .real(Double(span.end) * 1000),
                                   .real(Double(span.start) * 1000)])
                }
            }
        }
    }

    /// The rule for one record an edit (or its undo) adds or removes, inside the caller's transaction.
    func staleBuckets(metric: String, total: Bool, start: Int64, end: Int64) throws {
        guard total else { return }
        var changes = TotalChanges()
        changes.add(metric: metric, start: start, end: end)
        try Self.staleBuckets(changes, db: db)
    }
}
