import EfferentCrypto
import EfferentSQLite
import EfferentClient
import EfferentCore
import Foundation

/// One import run streaming into the source store: records are mapped, given their identity
/// (decision A.6) and their day, and written in transactions of twenty thousand, each carrying the
/// marks of the days it touched. A run killed half-way leaves whole transactions behind; running
/// the import again adds what is missing and nothing twice.
///
/// Parsing and writing overlap: the reader's thread maps and hashes records while one writer
/// thread commits the previous batch (at most two batches wait, so memory stays bounded). Each
/// batch holds the store for its own transaction only.
public final class ImportSession: ExportSink, @unchecked Sendable {
    let store: SourceStore
    public let run: Int64
    let full: Bool
    private var pending: [Pending] = []
    private var spans: [String: (first: Int64, last: Int64)] = [:]
    private var summaries: [ActivitySummaryRecord] = []
    public private(set) var seen = 0
    public private(set) var added = 0
    public private(set) var removed = 0
    /// Records carried, by metric (decision A.9: the import names what it carried per kind).
    public var carried: [String: Int] {
        var all = counted
        if let current { all[current.metric, default: 0] += current.count }
        return all
    }
    private var counted: [String: Int] = [:]
    /// Records arrive in runs of one type: the run's count is added when the metric changes.
    private var current: (metric: String, count: Int)?
    private var totalMetrics = Set<String>()
    /// What the input held that did not become a record, with counts.
    public private(set) var notCarried: [LeftOut: Int] = [:]
    /// Records that did not become a record, whatever the reason.
    public var skipped: Int { notCarried.filter { !$0.key.isOnPurpose }.values.reduce(0, +) }
    private var identity = [UInt8]()
    static let batch = 20_000
    private let writer = DispatchQueue(label: "efferent.import.writer")
    private let slots = DispatchSemaphore(value: 2)
    private let inFlight = DispatchGroup()
    private var failure: Error?

    struct Pending {
        let id: Int64
        let record: SourceRecord
        let mapped: MetricMapping.Mapped
        let day: String
        let spillDay: String?
    }

    /// Local day names of instants, remembering the last day's bounds (records arrive in time order).
    private let days: DayNames
    /// The clock records are judged against (a record more than a year ahead is refused).
    private let now = Date().timeIntervalSince1970

    init(store: SourceStore, run: Int64, full: Bool) {
        days = DayNames(zone: store.zone)
        self.store = store
        self.run = run
        self.full = full
        identity.reserveCapacity(256)
    }

    public func record(_ record: SourceRecord) throws {
        let mapped: MetricMapping.Mapped
        switch MetricMapping.map(record) {
        case let .success(value): mapped = value
        case let .failure(reason):
            notCarried[reason, default: 0] += 1
            return
        }
        if let refusal = Plausibility.refusal(of: record, mapped: mapped, now: now) {
            notCarried[LeftOut(record.type, refusal), default: 0] += 1
            return
        }
        seen += 1
        if current?.metric == mapped.target.metric {
            current!.count += 1
        } else {
            if let current { counted[current.metric, default: 0] += current.count }
            current = (mapped.target.metric, 1)
            if mapped.target.isTotal { totalMetrics.insert(mapped.target.metric) }
        }
        let start = Int64(record.start.rounded(.down))
        let metric = mapped.target.metric
        let span = spans[metric]
        spans[metric] = (min(span?.first ?? start, start), max(span?.last ?? start, start))
        let day = days.day(of: record.start)
        // A total reaching past midnight counts on the next day too: that day is marked with it.
        var spill: String?
        if mapped.target.isTotal, record.end > record.start {
            let last = days.day(of: max(record.start, record.end - 1))
            if last != day { spill = last }
        }
        pending.append(Pending(id: identityOf(record), record: record, mapped: mapped, day: day, spillDay: spill))
        if pending.count >= Self.batch { try submit() }
    }

    /// Apple's ring figures are kept for `check` and carried as `activitySummary.*` records over
    /// their local day in the pinned zone (decision A.9); they have no source.
    public func activitySummary(_ summary: ActivitySummaryRecord) throws {
        summaries.append(summary)
        if summaries.count >= Self.batch { try submit() }
        guard let day = CalendarDay(summary.day) else { return }
        let (start, end) = store.zone.bounds(of: day)
        for (name, value) in summary.rings.sorted(by: { $0.key < $1.key }) {
            guard let part = RecordParts.activitySummary[name] else { continue }
            try record(SourceRecord(kind: .part, type: part.metric, source: "", start: Double(start), end: Double(end),
                                    value: value, unit: part.unit))
        }
    }

    /// What was carried per kind and what was not, for the import's last lines.
    public var summary: ImportSummary {
        ImportSummary(carried: Dictionary(uniqueKeysWithValues: carried.map { ($0.key, ($0.value, totalMetrics.contains($0.key))) }),
                      notCarried: notCarried)
    }

    public func leftOut(_ what: LeftOut) throws {
        notCarried[what, default: 0] += 1
    }

    /// Hands the buffered batch to the writer thread; throws the writer's first failure.
    func submit() throws {
        if let failure { throw failure }
        guard !pending.isEmpty || !summaries.isEmpty else { return }
        let records = pending, summaries = self.summaries
        pending = []
        pending.reserveCapacity(Self.batch)
        self.summaries = []
        slots.wait()
        inFlight.enter()
        writer.async { [self] in
            defer {
                slots.signal()
                inFlight.leave()
            }
            guard failure == nil else { return }
            do { try write(records, summaries) } catch { failure = error }
        }
    }

    /// Writes everything buffered and waits until it is committed.
    public func flush() throws {
        try submit()
        inFlight.wait()
        if let failure { throw failure }
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

    /// Writes one batch in one transaction, with the marks of the days it touched (writer thread),
    /// holding the store for the transaction only: a push on another thread goes on in between.
    private func write(_ pending: [Pending], _ summaries: [ActivitySummaryRecord]) throws {
        try store.serialized { try write(pending, summaries, db: store.db) }
    }

    private func write(_ pending: [Pending], _ summaries: [ActivitySummaryRecord], db: SQLiteConnection) throws {
        try db.write {
            let insert = try db.statement("""
                INSERT OR IGNORE INTO record (id, metric, total, source, device, start, end, value, unit, stage, activity, duration, day, origin, seen)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?)
                """)
            let touch = try db.statement("UPDATE record SET seen = ? WHERE start = ? AND id = ?")
            var touched = Set<String>()
            var lastTouched = ""
            for entry in pending {
                let mapped = entry.mapped
                insert.rewind()
                try insert.bind(1, .integer(entry.id))
                try insert.bind(2, .text(mapped.target.metric))
                try insert.bind(3, .integer(mapped.target.isTotal ? 1 : 0))
                try insert.bind(4, .text(entry.record.source))
                try insert.bind(5, entry.record.deviceModel.map { .text($0) } ?? .null)
                try insert.bind(6, .integer(Int64(entry.record.start.rounded(.down))))
                try insert.bind(7, .integer(Int64(entry.record.end.rounded(.down))))
                try insert.bind(8, mapped.value.map { .real($0) } ?? .null)
                try insert.bind(9, mapped.target.unit.map { .text($0) } ?? .null)
                try insert.bind(10, mapped.stage.map { .text($0) } ?? .null)
                try insert.bind(11, mapped.activity.map { .text($0) } ?? .null)
                try insert.bind(12, mapped.duration.map { .real($0) } ?? .null)
                try insert.bind(13, .text(entry.day))
                try insert.bind(14, .integer(run))
                while try insert.step() {}
                if db.changes == 1 {
                    added += 1
                    // Records come in runs of one day: the set is touched only when the day changes.
                    if entry.day != lastTouched {
                        touched.insert(entry.day)
                        lastTouched = entry.day
                    }
                    if let spill = entry.spillDay { touched.insert(spill) }
                } else {
                    try touch.run([.integer(run), .integer(Int64(entry.record.start.rounded(.down))), .integer(entry.id)])
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
    }

    /// Ends the run after the whole input was read. A full export (a whole Apple export) also
    /// deletes, within its own span and metrics, the imported records it no longer holds, and
    /// marks their days — in one transaction, so a run killed before here deletes nothing.
    public func finish() throws {
        try flush()
        try store.serialized { try finishRun(db: store.db) }
    }

    private func finishRun(db: SQLiteConnection) throws {
        try db.write {
            if full {
                // One pass over the imported rows this run did not see; those inside this export's
                // span of their metric are gone from Health.
                let unseen = try db.statement("SELECT rid, metric, start, day FROM record WHERE origin = 0 AND seen <> ?")
                    .rows([.integer(run)]) { ($0.int64(0), $0.text(1), $0.int64(2), $0.text(3)) }
                var gone = [Int64]()
                var days = Set<String>()
                for (rid, metric, start, day) in unseen {
                    guard let span = spans[metric], start >= span.first, start <= span.last else { continue }
                    gone.append(rid)
                    days.insert(day)
                }
                let delete = try db.statement("DELETE FROM record WHERE rid = ?")
                for rid in gone { try delete.run([.integer(rid)]) }
                removed += gone.count
                // A deleted total may have reached past midnight: the next day is rebuilt too
                // (an unchanged day comes out with the same fingerprint and is not sent).
                try store.mark(days.union(days.compactMap { CalendarDay($0)?.next.description }))
            }
            let span = try db.statement("INSERT OR REPLACE INTO import_span (run, metric, first, last) VALUES (?, ?, ?, ?)")
            for (metric, range) in spans { try span.run([.integer(run), .text(metric), .integer(range.first), .integer(range.last)]) }
            try db.statement("UPDATE import_run SET finished = ?, records = ?, added = ?, removed = ? WHERE id = ?")
                .run([.real(Date().timeIntervalSince1970), .integer(Int64(seen)), .integer(Int64(added)), .integer(Int64(removed)),
                      .integer(run)])
        }
    }
}

/// Names the local day of instants, re-using the last day's bounds so a run of records in one day
/// costs two comparisons each.
final class DayNames {
    let zone: ZoneCalendar
    private var start: Double = 1
    private var end: Double = 0
    private var name = ""

    init(zone: ZoneCalendar) { self.zone = zone }

    func day(of seconds: Double) -> String {
        if seconds >= start && seconds < end { return name }
        let day = zone.day(of: seconds)
        let bounds = zone.bounds(of: day)
        start = Double(bounds.start)
        end = Double(bounds.end)
        name = day.description
        return name
    }
}
