import EfferentSQLite
import EfferentCore

/// Where totals changed in one transaction: per metric, the spans (Unix seconds, half-open) of
/// total records added or removed, merged as they come (records arrive in time order), so the
/// supplied totals covering them can be judged stale in the same transaction (protocol.md,
/// "Aggregates as totals": a supplied total stands only while nothing it covers has changed).
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
    /// Appends `[start, end)`, widening the last span instead where the gap between them is under
    /// an hour: no supplied total (an hour or a day) fits in such a gap, so the totals met are
    /// the same, and a batch's samples make a few spans rather than one each.
    mutating func merge(_ start: Int64, _ end: Int64) {
        if let last = self.last, start >= last.start, start < last.end + 3600 {
            self[count - 1].end = Swift.max(last.end, end)
        } else {
            append((start, end))
        }
    }
}

extension SourceStore {
    /// Whether any supplied total is stored (otherwise nothing can go stale, and an import need
    /// not note where its totals changed).
    static func holdsSuppliedTotals(_ db: SQLiteConnection) throws -> Bool {
        try db.statement("SELECT EXISTS (SELECT 1 FROM supplied_total)").first { $0.int64(0) == 1 } ?? false
    }

    /// Marks stale every supplied total that meets a span of `changes` for its metric, inside the
    /// caller's transaction. A stale total is read by no day (`suppliedTotals`) until it is
    /// supplied again. The changes' own days are marked by the caller.
    static func staleTotals(_ changes: TotalChanges, db: SQLiteConnection) throws {
        guard !changes.isEmpty, try holdsSuppliedTotals(db) else { return }
        // The fresh totals meeting a span, found through the index on their starts: a total is at
        // most a day (25 hours across a clock change) wide, so its start lies within that reach
        // before the span's.
        let meeting = try db.statement("""
            SELECT type, unit, width, start FROM supplied_total WHERE start > ? AND start < ? AND end > ? AND stale = 0
            """)
        let stale = try db.statement("UPDATE supplied_total SET stale = 1 WHERE type = ? AND width = ? AND start = ?")
        // The metric a raw sample of a total's type and unit maps to, as `suppliedTotals` maps it.
        var metrics = [String: String?]()
        func metric(_ type: String, _ unit: String?) -> String? {
            let key = type + "\u{0}" + (unit ?? "")
            if let known = metrics[key] { return known }
            let sample = SourceRecord(kind: .quantity, type: type, source: "", start: 0, end: 0, value: 0, unit: unit)
            let found: String? = if case let .success(mapped) = MetricMapping.map(sample), mapped.target.isTotal { mapped.target.metric } else { nil }
            metrics[key] = .some(found)
            return found
        }
        for (changed, spans) in changes.spans {
            for span in spans {
                let totals = try meeting.rows([.real(Double(span.start - 90_000)), .real(Double(span.end)), .real(Double(span.start))]) {
                    ($0.text(0), $0.optionalText(1), $0.text(2), $0.double(3))
                }
                for (type, unit, width, start) in totals where metric(type, unit) == changed {
                    try stale.run([.text(type), .text(width), .real(start)])
                }
            }
        }
    }

    /// The rule for one record an edit (or its undo) adds or removes, inside the caller's transaction.
    func staleTotals(metric: String, total: Bool, start: Int64, end: Int64) throws {
        guard total else { return }
        var changes = TotalChanges()
        changes.add(metric: metric, start: start, end: end)
        try Self.staleTotals(changes, db: db)
    }
}
