import EfferentSQLite
import EfferentClient
import EfferentCore
import Foundation
import EfferentSystem

/// One import run streaming into the source store: records are mapped, given their identity
/// (decision A.6) and their day, and written in transactions of twenty thousand, each carrying the
/// marks of the days it touched. A run killed half-way leaves whole transactions behind; running
/// the import again adds what is missing and nothing twice.
///
/// Parsing and writing overlap: the reader's thread maps and hashes records while one writer
/// thread commits the previous batch (at most two batches wait, so memory stays bounded). Each
/// batch holds the store for its own transaction only.
///
/// A session belongs to the thread that reads the input; what the writer thread touches is in
/// its `BatchWriter`, which the compiler checks as `Sendable`.
public final class ImportSession: ExportSink {
    let store: SourceStore
    public let run: Int64
    let full: Bool
    private var pending: [Pending] = []
    private var spans: [String: (first: Int64, last: Int64)] = [:]
    private var summaries: [ActivitySummaryRecord] = []
    public private(set) var seen = 0
    /// Records this run added (counted by the writer thread as it commits them).
    public var added: Int { batches.written.withLock { $0.added } }
    public private(set) var removed = 0
    /// Records carried, by metric (decision A.9: the import names what it carried per kind).
    public var carried: [String: Int] {
        var all = counted
        for run in runs { all[run.metric, default: 0] += run.count }
        return all
    }
    private var counted: [String: Int] = [:]
    /// Records arrive in runs of one type (or of a few, interleaved: a route fix's fields): a
    /// run's count and span are added to its metric's when it has not been seen for a while.
    private var runs: [(metric: String, count: Int, first: Int64, last: Int64)] = []
    /// What the current runs of one type and unit map to.
    private var mapping = MappingRun()
    private var totalMetrics = Set<String>()
    /// What the input held that did not become a record, with counts.
    public private(set) var notCarried: [LeftOut: Int] = [:]
    /// Records that did not become a record, whatever the reason.
    public var skipped: Int { notCarried.filter { !$0.key.isOnPurpose }.values.reduce(0, +) }
    private var identities = RecordIdentity()
    static let batch = 20_000
    /// A holding session (`SourceStore.holdingSession`) keeps everything it reads for its
    /// caller's one transaction (`SourceStore.commit`) instead of writing it in batches of its own.
    let holding: Bool
    /// Records read and kept so far (a holding session's lines own consecutive runs of them).
    public var heldCount: Int { pending.count }
    /// The writer thread and what it keeps.
    private let batches: BatchWriter

    struct Pending {
        let id: Int64
        var record: SourceRecord
        let mapped: MetricMapping.Mapped
        var day: String
        var spillDay: String?
    }

    /// Local day names of instants, remembering the last day's bounds (records arrive in time order).
    private let days: DayNames
    /// The clock records are judged against (a record more than a year ahead is refused).
    private let now = Date().timeIntervalSince1970

    init(store: SourceStore, run: Int64, full: Bool, holding: Bool = false) {
        days = DayNames(zone: store.zone)
        self.store = store
        self.run = run
        self.full = full
        self.holding = holding
        batches = BatchWriter(store: store, run: run, full: full)
        // The first batch fills its buffer without growing it (the next ones are reserved by `submit`).
        if !holding { pending.reserveCapacity(Self.batch) }
    }

    public func record(_ record: SourceRecord) throws {
        try take(record, identity: nil)
    }

    /// Maps, checks and buffers `record`; its row id is `identity` when given (a ring figure's,
    /// which names a date), else the record's own (decision A.6).
    private func take(_ record: SourceRecord, identity: Int64?) throws {
        // Decision A.11: a NUL in a source's name (or a device's) is replaced with U+FFFD rather
        // than refusing the reading: the name is a label, the reading is real. A NUL would end
        // the text in C and SQL copies of it, and would run two fields of the identity together.
        if record.source.utf8.contains(0) || record.deviceModel?.utf8.contains(0) == true {
            var cleaned = record
            cleaned.source = Self.withoutNUL(record.source)
            cleaned.deviceModel = record.deviceModel.map(Self.withoutNUL)
            return try take(cleaned, identity: identity)
        }
        let mapped: MetricMapping.Mapped
        switch mapping.map(record) {
        case let .success(value): mapped = value
        case let .failure(reason):
            notCarried[reason, default: 0] += 1
            return
        }
        if let refusal = Plausibility.refusal(of: record, mapped: mapped, now: now, limits: mapping.limits(for: mapped.target)) {
            notCarried[LeftOut(record.type, refusal), default: 0] += 1
            return
        }
        seen += 1
        let start = Int64(record.start.rounded(.down))
        if let index = runs.firstIndex(where: { $0.metric == mapped.target.metric }) {
            runs[index].count += 1
            runs[index].first = min(runs[index].first, start)
            runs[index].last = max(runs[index].last, start)
        } else {
            if runs.count == MappingRun.kept { close(runs.removeLast()) }
            runs.insert((mapped.target.metric, 1, start, start), at: 0)
            if mapped.target.isTotal { totalMetrics.insert(mapped.target.metric) }
        }
        let (day, spill) = Self.days(of: record, isTotal: mapped.target.isTotal, in: days)
        pending.append(Pending(id: identity ?? identityOf(record), record: record, mapped: mapped, day: day, spillDay: spill))
        if pending.count >= Self.batch { try submit() }
    }

    /// `text` with each NUL replaced by U+FFFD, the replacement character.
    static func withoutNUL(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0 == "\0" ? "\u{FFFD}" : $0 }))
    }

    /// Adds a run's count and span to its metric's.
    private func close(_ run: (metric: String, count: Int, first: Int64, last: Int64)) {
        counted[run.metric, default: 0] += run.count
        let span = spans[run.metric]
        spans[run.metric] = (min(span?.first ?? run.first, run.first), max(span?.last ?? run.last, run.last))
    }

    /// A record's local day, and the next day a total reaching past midnight counts on too (that
    /// day is marked with it).
    static func days(of record: SourceRecord, isTotal: Bool, in days: DayNames) -> (day: String, spill: String?) {
        let day = days.day(of: record.start)
        guard isTotal, record.end > record.start else { return (day, nil) }
        let last = days.day(of: max(record.start, record.end - 1))
        return (day, last != day ? last : nil)
    }

    /// The zone this session files records' days in.
    public var zone: ZoneCalendar { days.zone }

    /// Apple's ring figures are kept for `check` and carried as `activitySummary.*` records over
    /// their local day in the pinned zone (decision A.9); they have no source. Their identity is
    /// the date's, not the instants' (`ringRecord`): the instants depend on the zone the days are
    /// cut in, which the first import of an archive learns only after it has read its records.
    public func activitySummary(_ summary: ActivitySummaryRecord) throws {
        summaries.append(summary)
        if summaries.count >= Self.batch { try submit() }
        guard let day = CalendarDay(summary.day) else { return }
        for (name, value) in summary.rings.sorted(by: { $0.key < $1.key }) {
            guard let part = RecordParts.activitySummary[name] else { continue }
            // The session's own zone: the store's would wait for the lock the writer thread holds
            // through each batch's transaction.
            let (record, id) = Self.ringRecord(part, value: value, on: day, in: zone, identities: &identities)
            try take(record, identity: id)
        }
    }

    /// A ring figure's record over `day`'s local bounds in `zone`, and its row id: decision A.6's
    /// hash with the date in place of the instants (the day's bounds in UTC), so the same figure
    /// has the same identity whatever zone the archive's days are cut in — an import in the
    /// provisional zone, its re-cut and a later import in the pinned zone meet on one row.
    static func ringRecord(_ part: RecordParts.Part, value: Double, on day: CalendarDay, in zone: ZoneCalendar,
                           identities: inout RecordIdentity) -> (SourceRecord, Int64) {
        let (start, end) = zone.bounds(of: day)
        var record = SourceRecord(kind: .part, type: part.metric, source: "", start: Double(day.startUnixSeconds),
                                  end: Double(day.next.startUnixSeconds), value: value, unit: part.unit)
        let id = identities.of(record)
        record.start = Double(start)
        record.end = Double(end)
        return (record, id)
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
        try batches.throwFailure()
        guard !holding, !pending.isEmpty || !summaries.isEmpty else { return }
        let summaries = self.summaries
        self.summaries = []
        var next = batches.spare() ?? []
        next.reserveCapacity(Self.batch)
        swap(&next, &pending)
        batches.submit(next, summaries)
    }

    /// Whether `seconds` is an instant of the years 0001 to 9999.
    static func storable(_ seconds: Double) -> Bool { seconds.isFinite && seconds >= -62_135_596_800 && seconds < 253_402_300_800 }

    /// Forgets what was read from the `count`-th record on (a line that turned out unreadable).
    public func dropHeld(from count: Int) {
        if pending.count > count { pending.removeSubrange(count...) }
    }

    /// What a holding session read, for its caller's `commit`: its records and ring figures.
    public func takeHeld() -> HeldRecords {
        defer {
            pending = []
            summaries = []
        }
        return HeldRecords(records: pending, ringFigures: summaries, zone: zone.identifier)
    }

    /// Writes everything buffered and waits until it is committed.
    public func flush() throws {
        try submit()
        batches.waitUntilWritten()
        try batches.throwFailure()
    }

    /// Decision A.6: SHA-256 over type, source, start, end, value and unit (and category/activity),
    /// exactly as the export wrote them; the first 8 bytes make the row id (`RecordIdentity`).
    func identityOf(_ record: SourceRecord) -> Int64 { identities.of(record) }

    /// Apple's three ring figures `check` compares with, one row a day, replaced whole.
    static func upsert(_ summaries: [ActivitySummaryRecord], db: SQLiteConnection) throws {
        let summary = try db.statement("""
            INSERT INTO activity_summary (day, active_kcal, exercise_min, stand_hours) VALUES (?, ?, ?, ?)
            ON CONFLICT (day) DO UPDATE SET active_kcal = excluded.active_kcal, exercise_min = excluded.exercise_min,
            stand_hours = excluded.stand_hours
            """)
        for entry in summaries {
            try summary.run([.text(entry.day), entry.activeEnergyKilocalories.map { .real($0) } ?? .null,
                             entry.exerciseMinutes.map { .real($0) } ?? .null, entry.standHours.map { .real($0) } ?? .null])
        }
    }

    /// Ends the run after the whole input was read. A full export (a whole Apple export) also
    /// deletes, within its own span and metrics, the imported records it no longer holds, and
    /// marks their days — in one transaction, so a run killed before here deletes nothing.
    public func finish() throws {
        for run in runs { close(run) }
        runs = []
        try flush()
        removed += try batches.finishRun(spans: spans, seen: seen, zone: zone)
    }

}

/// The writer thread of an import: each batch committed in a transaction of its own, at most two
/// waiting, and the first failure kept for the reader's thread to throw.
private final class BatchWriter: Sendable {
    /// What the writer thread learns as it commits, read by the session once it has waited.
    struct Written {
        /// What a full export's run found already stored (made with its first batch's
        /// transaction); nil before, and for a store too large to note in memory (its rows are
        /// stamped instead).
        var found: SeenRows?
        var foundMade = false
        var added = 0
    }

    let store: SourceStore
    let run: Int64
    let full: Bool
    let written = Mutex(Written())
    private let failure = Mutex<(any Error)?>(nil)
    private let queue = DispatchQueue(label: "efferent.import.writer")
    private let slots = DispatchSemaphore(value: 2)
    private let inFlight = DispatchGroup()
    /// Batches' buffers the writer thread is done with, for the reader's thread to empty and fill
    /// again: emptying one (releasing each record's strings) is the reader's work then, not the
    /// writer's, which is the slower of the two on a zip's route fixes; and no batch allocates
    /// (and faults in) a fresh buffer of twenty thousand entries. A buffer is made only when none
    /// is spare, so there are never more than three: the one filling and two being written.
    private let spares = Mutex<[[ImportSession.Pending]]>([])

    init(store: SourceStore, run: Int64, full: Bool) {
        self.store = store
        self.run = run
        self.full = full
    }

    func throwFailure() throws {
        if let failure = failure.withLock({ $0 }) { throw failure }
    }

    /// A written batch's buffer, emptied, its capacity kept; waits while two batches are queued.
    func spare() -> [ImportSession.Pending]? {
        slots.wait()
        guard var reused = spares.withLock({ $0.popLast() }) else { return nil }
        reused.removeAll(keepingCapacity: true)
        return reused
    }

    /// Queues `records` (after `spare()` took a slot). The batch moves into a box the writer
    /// empties, so that once written its buffer has one owner again, and the spare can be reused
    /// in place rather than copied.
    func submit(_ records: [ImportSession.Pending], _ summaries: [ActivitySummaryRecord]) {
        let batch = Batch(records)
        inFlight.enter()
        queue.async { [self] in
            let records = batch.take()
            if failure.withLock({ $0 == nil }) {
                do { try write(records, summaries) } catch { failure.withLock { $0 = $0 ?? error } }
            }
            spares.withLock { $0.append(records) }
            slots.signal()
            inFlight.leave()
        }
    }

    func waitUntilWritten() { inFlight.wait() }

    /// The run's end, in one transaction: a full export's rows it no longer holds deleted (their
    /// days marked), its spans noted and the run closed; how many rows went.
    func finishRun(spans: [String: (first: Int64, last: Int64)], seen: Int, zone: ZoneCalendar) throws -> Int {
        try written.withLock { written in
            try store.serialized { try finishRun(db: store.db, spans: spans, seen: seen, zone: zone, found: written.found, added: written.added) }
        }
    }

    private func finishRun(db: SQLiteConnection, spans: [String: (first: Int64, last: Int64)], seen: Int, zone: ZoneCalendar,
                           found: SeenRows?, added: Int) throws -> Int {
        var removed = 0
        try db.write {
            if full, !spans.isEmpty {
                // One pass over the imported rows this run did not find; those inside this export's
                // span of their metric are gone from Health. A row a phone sample claims is not
                // among them: it leaves by its UUID's deletion only (decision A.14), so what only the
                // phone sent stays, and so does an export's row the phone adopted. Row by row, keeping only those: a
                // decade holds millions of rows, most of them outside any span or found. Rows this
                // run added carry it in `seen`, and are skipped by that even where SQLite gave one
                // the rid of a top row deleted meanwhile (a phone's deletion, an agent's edit).
                let rows: SQLiteStatement
                if let found {
                    rows = try db.statement("SELECT rid, metric, start, day, end, total FROM record WHERE origin = 0 AND sample IS NULL AND rid <= ? AND seen <> ?")
                    try rows.bind(1, integer: found.last)
                    try rows.bind(2, integer: run)
                } else {
                    rows = try db.statement("SELECT rid, metric, start, day, end, total FROM record WHERE origin = 0 AND sample IS NULL AND seen <> ?")
                    try rows.bind(1, integer: run)
                }
                var gone = [Int64]()
                var days = Set<String>()
                var changes = TotalChanges()
                while try rows.step() {
                    let rid = rows.int64(0)
                    if let found, found.contains(rid) { continue }
                    let start = rows.int64(2), metric = rows.text(1)
                    guard let span = spans[metric] else { continue }
                    if RecordParts.isSourceless(metric) {
                        // A ring figure names a date: it is inside the span when its day is, whatever
                        // zone its instants were cut in (one an earlier import stored in a provisional
                        // zone lies hours from the pinned zone's midnight).
                        let day = rows.text(3)
                        guard day >= zone.day(of: Double(span.first)).description, day <= zone.day(of: Double(span.last)).description else { continue }
                    } else {
                        guard start >= span.first, start <= span.last else { continue }
                    }
                    gone.append(rid)
                    days.insert(rows.text(3))
                    if rows.int64(5) == 1 { changes.add(metric: rows.text(1), start: start, end: rows.int64(4)) }
                }
                rows.rewind()
                let delete = try db.statement("DELETE FROM record WHERE rid = ?")
                for rid in gone { try delete.run([.integer(rid)]) }
                removed += gone.count
                // A supplied total covering a removed total no longer stands for it.
                try SourceStore.staleTotals(changes, db: db)
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
        return removed
    }

    /// Writes one batch in one transaction, with the marks of the days it touched (writer thread),
    /// holding the store for the transaction only: a push on another thread goes on in between.
    private func write(_ pending: [ImportSession.Pending], _ summaries: [ActivitySummaryRecord]) throws {
        try store.serialized { try written.withLock { try write(pending, summaries, db: store.db, written: &$0) } }
    }

    private func write(_ pending: [ImportSession.Pending], _ summaries: [ActivitySummaryRecord], db: SQLiteConnection,
                       written: inout Written) throws {
        try db.write {
            if full, !written.foundMade {
                written.foundMade = true
                written.found = SeenRows(last: try db.statement("SELECT coalesce(max(rid), 0) FROM record").first { $0.int64(0) } ?? 0)
            }
            let existing: RecordInserter.Existing = !full ? .ignored : written.found.map { .noted($0) } ?? .stamped
            let rows = try RecordInserter(db: db, run: run, existing: existing)
            // By index: a `for in` copies each entry out, retaining every string it holds.
            for index in pending.indices where try rows.insert(pending[index]) { written.added += 1 }
            if let changes = rows.totalChanges { try SourceStore.staleTotals(changes, db: db) }
            try ImportSession.upsert(summaries, db: db)
            try store.mark(rows.touched)
        }
    }

}

/// A batch on its way to the writer thread, which takes it out.
private final class Batch: Sendable {
    private let records: Mutex<[ImportSession.Pending]>
    init(_ records: consuming sending [ImportSession.Pending]) { self.records = Mutex(records) }
    func take() -> [ImportSession.Pending] {
        records.withLock { records in
            var taken = [ImportSession.Pending]()
            swap(&taken, &records)
            return taken
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
