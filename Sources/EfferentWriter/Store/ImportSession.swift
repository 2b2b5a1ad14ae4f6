import EfferentBindings
import EfferentClient
import EfferentCore
import Foundation

/// One import run streaming into the source store: records are mapped, given their identity
/// (decision A.6) and their day, and written in transactions of a few thousand, each carrying the
/// marks of the days it touched. A run killed half-way leaves whole transactions behind; running
/// the import again adds what is missing and nothing twice.
public final class ImportSession: ExportSink {
    let store: SourceStore
    public let run: Int64
    let full: Bool
    private var pending: [(id: Int64, record: SourceRecord, mapped: MetricMapping.Mapped, day: String)] = []
    private var spans: [String: (first: Int64, last: Int64)] = [:]
    private var summaries: [ActivitySummaryRecord] = []
    public private(set) var seen = 0
    public private(set) var added = 0
    public private(set) var skipped = 0
    public private(set) var removed = 0
    private var identity = [UInt8]()
    static let batch = 5000

    init(store: SourceStore, run: Int64, full: Bool) {
        self.store = store
        self.run = run
        self.full = full
        identity.reserveCapacity(256)
    }

    public func record(_ record: SourceRecord) throws {
        guard let mapped = MetricMapping.map(record) else {
            skipped += 1
            return
        }
        seen += 1
        let start = Int64(record.start.rounded(.down))
        let metric = mapped.target.metric
        let span = spans[metric]
        spans[metric] = (min(span?.first ?? start, start), max(span?.last ?? start, start))
        pending.append((identityOf(record), record, mapped, store.zone.day(of: record.start).description))
        if pending.count >= Self.batch { try flush() }
    }

    public func activitySummary(_ summary: ActivitySummaryRecord) throws {
        summaries.append(summary)
        if summaries.count >= Self.batch { try flush() }
    }

    /// Decision A.6: SHA-256 over type, source, start, end, value and unit (and category/activity),
    /// exactly as the export wrote them; the first 8 bytes make the row id.
    func identityOf(_ record: SourceRecord) -> Int64 {
        identity.removeAll(keepingCapacity: true)
        func text(_ value: String?) {
            if let value { identity.append(contentsOf: value.utf8) }
            identity.append(0)
        }
        func number(_ value: Double?) {
            let bits = value?.bitPattern ?? UInt64.max
            for shift in stride(from: 0, to: 64, by: 8) { identity.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        }
        text(record.type)
        text(record.source)
        number(record.start)
        number(record.end)
        number(record.value)
        text(record.unit)
        text(record.category)
        text(record.activity)
        let digest = Sodium.sha256(identity)
        return digest.prefix(8).reduce(Int64(0)) { $0 << 8 | Int64($1) }
    }

    /// Writes what is buffered in one transaction, with the marks of the days it touched.
    public func flush() throws {
        guard !pending.isEmpty || !summaries.isEmpty else { return }
        let db = store.db
        try db.write {
            let insert = try db.statement("""
                INSERT OR IGNORE INTO record (id, metric, total, source, device, start, end, value, unit, stage, activity, duration, day, origin, seen)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?)
                """)
            let touch = try db.statement("UPDATE record SET seen = ? WHERE id = ?")
            var touched = Set<String>()
            for entry in pending {
                let mapped = entry.mapped
                try insert.run([.integer(entry.id), .text(mapped.target.metric), .integer(mapped.target.isTotal ? 1 : 0),
                                .text(entry.record.source), entry.record.deviceModel.map { .text($0) } ?? .null,
                                .integer(Int64(entry.record.start.rounded(.down))), .integer(Int64(entry.record.end.rounded(.down))),
                                mapped.value.map { .real($0) } ?? .null, mapped.target.unit.map { .text($0) } ?? .null,
                                mapped.stage.map { .text($0) } ?? .null, mapped.activity.map { .text($0) } ?? .null,
                                mapped.duration.map { .real($0) } ?? .null, .text(entry.day), .integer(run)])
                if db.changes == 1 {
                    added += 1
                    touched.insert(entry.day)
                    // A total reaching past midnight counts on the next day too.
                    if mapped.target.isTotal, entry.record.end > entry.record.start {
                        let endDay = store.zone.day(of: max(entry.record.start, entry.record.end - 1)).description
                        if endDay != entry.day { touched.insert(endDay) }
                    }
                } else {
                    try touch.run([.integer(run), .integer(entry.id)])
                }
            }
            let summary = try db.statement("""
                INSERT INTO activity_summary (day, active_kcal, exercise_min, stand_hours) VALUES (?, ?, ?, ?)
                ON CONFLICT (day) DO UPDATE SET active_kcal = excluded.active_kcal, exercise_min = excluded.exercise_min,
                stand_hours = excluded.stand_hours
                """)
            for entry in summaries {
                try summary.run([.text(entry.day), entry.activeEnergyKilocalories.map { .real($0) } ?? .null,
                                 entry.exerciseMinutes.map { .real($0) } ?? .null, entry.standHours.map { .real($0) } ?? .null])
            }
            try store.mark(touched)
        }
        pending.removeAll(keepingCapacity: true)
        summaries.removeAll(keepingCapacity: true)
    }

    /// Ends the run after the whole input was read. A full export (a whole Apple export) also
    /// deletes, within its own span and metrics, the imported records it no longer holds, and
    /// marks their days — in one transaction, so a run killed before here deletes nothing.
    public func finish() throws {
        try flush()
        let db = store.db
        try db.write {
            if full {
                for (metric, span) in spans {
                    let bounds: [SQLiteValue] = [.text(metric), .integer(span.first), .integer(span.last), .integer(run)]
                    let days = try db.statement("""
                        SELECT DISTINCT day FROM record WHERE origin = 0 AND metric = ? AND start BETWEEN ? AND ? AND seen <> ?
                        """).rows(bounds) { $0.text(0) }
                    guard !days.isEmpty else { continue }
                    try db.statement("DELETE FROM record WHERE origin = 0 AND metric = ? AND start BETWEEN ? AND ? AND seen <> ?").run(bounds)
                    removed += db.changes
                    // A deleted total may have reached past midnight: the next day is rebuilt too
                    // (an unchanged day comes out with the same fingerprint and is not sent).
                    let following = days.compactMap { CalendarDay($0)?.next.description }
                    try store.mark(days + following)
                }
            }
            let span = try db.statement("INSERT OR REPLACE INTO import_span (run, metric, first, last) VALUES (?, ?, ?, ?)")
            for (metric, range) in spans { try span.run([.integer(run), .text(metric), .integer(range.first), .integer(range.last)]) }
            try db.statement("UPDATE import_run SET finished = ?, records = ?, added = ?, removed = ? WHERE id = ?")
                .run([.real(Date().timeIntervalSince1970), .integer(Int64(seen)), .integer(Int64(added)), .integer(Int64(removed)),
                      .integer(run)])
        }
    }
}
