import EfferentSQLite
import Foundation
import EfferentCore

/// One write transaction of the writer's store, lent to a library that keeps tables of its own in
/// the same file (the phone's receiver) for the length of `SourceStore.commit` (GRDB's
/// `DatabaseWriter.write { db in }`): the records it had a holding session map (`HeldRecords`)
/// stored by the rules an import follows, each naming the caller's sample it came from; those of
/// a sample taken away again; a day of rings replaced; HealthKit's own totals supplied — and the
/// caller's own statements on its own tables. All of it commits with the marks of every day that
/// changed, or none of it does. Nothing here outlives the transaction: used after `commit`
/// returns, it stops the process rather than write outside one.
public final class RecordTransaction {
    private let store: SourceStore
    private let db: SQLiteConnection
    private let held: HeldRecords
    private let rows: RecordInserter
    /// Days changed by something other than an added record (a replaced ring, a removal, a total).
    private var marked = Set<String>()
    /// Where this transaction's removals took totals away.
    private var removedTotals = TotalChanges()
    /// Totals supplied, stored by `finish` after every change of this transaction has made older
    /// ones stale (a batch never makes its own totals stale: the phone computed them together).
    private var supplied: [SuppliedTotal] = []
    private var open = true
    /// Records added to the store so far (a sample may be many: a workout's parts, an ECG's voltages).
    public private(set) var added = 0

    init(store: SourceStore, db: SQLiteConnection, held: HeldRecords, run: Int64) throws {
        self.store = store
        self.db = db
        self.held = held
        rows = try RecordInserter(db: db, run: run, existing: .ignored, phone: true)
    }

    private func checkOpen() {
        precondition(open, "a RecordTransaction was used after the commit that lent it had returned")
    }

    // MARK: The caller's own tables

    /// A statement of the caller's on its own tables, inside this transaction only.
    public func statement(_ sql: String) throws -> SQLiteStatement {
        checkOpen()
        return try db.statement(sql)
    }

    /// Rows the caller's last statement changed.
    public var changes: Int {
        checkOpen()
        return db.changes
    }

    // MARK: The writer's records

    /// Stores the held records at `positions`, each insert-if-absent by its identity (A.6), or
    /// met with an export's row of the same sample (A.14); `sample` is the caller's row they
    /// belong to (`removeRecords(ofSample:)` takes them with it), nil for a ring day's.
    /// `repeatsSamples`: they repeat readings other samples bring on their own (a workout's
    /// series), so an export's row one of those samples met stands for them too.
    public func insert(_ positions: Range<Int>, sample: Int64?, repeatsSamples: Bool = false) throws {
        checkOpen()
        for index in positions where try rows.insert(held.records[index], sample: sample, repeatsSample: repeatsSamples) { added += 1 }
    }

    /// An ECG (`kind` `ecg`) or a heartbeat series (`heartbeatSeries`) an export brought first is
    /// met whole (decision A.14): true when the export's rows now stand for the sample, whose own
    /// records at `positions` are then not stored.
    public func adoptWhole(_ positions: Range<Int>, kind: String, sample: Int64) throws -> Bool {
        checkOpen()
        return try rows.adoptWhole(held.records[positions], kind: kind, sample: sample)
    }

    /// The ring records of the local day `localDate` go (an omitted ring leaves none behind); the
    /// day's new ones come by `insert`, and the day is marked.
    public func replaceRings(on localDate: String) throws {
        checkOpen()
        if let day = CalendarDay(localDate) {
            let (start, end) = store.zone.bounds(of: day)
            try db.statement("""
                DELETE FROM record WHERE start >= ? AND start < ? AND origin = 0 AND metric >= 'activitySummary.' AND metric < 'activitySummary/'
                """).run([.integer(start), .integer(end)])
        }
        marked.insert(localDate)
    }

    /// Apple's three ring figures per day `efferent check` compares with, from the held records'
    /// ring lines: the last line of a day wins.
    public func storeRingFigures() throws {
        checkOpen()
        try ImportSession.upsert(held.ringFigures, db: db)
    }

    /// Every record the caller's sample `sample` made goes. The days they were on are sealed again
    /// (and the next, where a total reached past midnight).
    public func removeRecords(ofSample sample: Int64) throws {
        checkOpen()
        let days = try db.statement("SELECT day, max(total) FROM record WHERE sample = ? GROUP BY day")
        for (day, total) in try days.rows([.integer(sample)], { ($0.text(0), $0.int64(1) == 1) }) {
            marked.insert(day)
            if total, let next = CalendarDay(day)?.next { marked.insert(next.description) }
        }
        let totals = try db.statement("SELECT metric, start, end FROM record WHERE sample = ? AND total = 1")
        for (metric, start, end) in try totals.rows([.integer(sample)], { ($0.text(0), $0.int64(1), $0.int64(2)) }) {
            removedTotals.add(metric: metric, start: start, end: end)
        }
        try db.statement("DELETE FROM record WHERE sample = ?").run([.integer(sample)])
    }

    /// A total computed outside the archive (HealthKit's own, de-duplicated across sources) that
    /// stands for the archive's own over its hour or day (`SuppliedTotals`), replacing what that
    /// hour or day held; stored when the caller's body has returned.
    public func supply(_ total: SuppliedTotal) {
        checkOpen()
        supplied.append(total)
    }

    /// After the caller's body: the supplied totals stored before that this transaction's changes
    /// fall inside stand no more; its own supplied totals come after, fresh, each replacing what
    /// its hour or day held (a null value clearing it), each marking its day. Then every day that
    /// changed is marked. Returns how many days were marked.
    func finish() throws -> Int {
        var changes = rows.totalChanges ?? TotalChanges()
        changes.formUnion(removedTotals)
        try SourceStore.staleTotals(changes, db: db)
        if !supplied.isEmpty {
            let upsert = try db.statement("""
                INSERT INTO supplied_total (type, width, start, end, value, unit, stale) VALUES (?, ?, ?, ?, ?, ?, 0)
                ON CONFLICT (type, width, start) DO UPDATE SET end = excluded.end, value = excluded.value, unit = excluded.unit, stale = 0
                """)
            let zone = store.zone
            for total in supplied {
                try upsert.run([.text(total.type), .text(total.isDay ? "day" : "hour"), .real(total.start), .real(total.end),
                                total.value.map { .real($0) } ?? .null, total.unit.map { .text($0) } ?? .null])
                marked.insert(zone.day(of: total.start).description)
            }
        }
        let days = rows.touched.union(marked)
        try store.mark(days)
        return days.count
    }

    func close() { open = false }
}

extension SourceStore {
    /// The `import_run.format` of runs whose records are held for a caller's commits (named when
    /// the phone's receiver was their one caller; stores made since have it). Rows only such runs
    /// stored are all claimed by a caller's sample, so no record of theirs is an export's twin.
    static let heldRunFormat = "pulshealth-receive"

    /// The import run records held for a caller's transactions are stamped with (`import_run`;
    /// never a whole export, so it removes nothing).
    public func beginHeldRun(source: String) throws -> Int64 {
        try serialized {
            // A phone's backfill rewrites the same index pages batch after batch: checkpoint every
            // ~40 MB of log, as an import does, not every 4 MB.
            try checkpointEvery(megabytes: 40)
            try db.statement("INSERT INTO import_run (source, format, full, started) VALUES (?, ?, 0, ?)")
                .run([.text(source), .text(Self.heldRunFormat), .real(Date().timeIntervalSince1970)])
            return db.lastInsertRowID
        }
    }

    /// A session that maps, checks and identifies what a reader gives it exactly as an import
    /// does, and holds it (`ImportSession.takeHeld`) for one `commit` instead of writing it.
    public func holdingSession(run: Int64) -> ImportSession {
        ImportSession(store: self, run: run, full: false, holding: true)
    }

    /// What a `commit` returned: the body's value, the records added and the days marked.
    public struct Committed<Value> {
        public let value: Value
        public let recordsAdded: Int
        public let daysMarked: Int
    }

    /// The one write the writer lends: `records` (held under run `run`) and whatever `body` does
    /// with them and with its own tables through the transaction, committed in one transaction
    /// with the marks of every day that changed, or rolled back whole when `body` throws (and the
    /// error rethrown). The store is held throughout, so the caller's own lock, if it has one,
    /// is always taken inside this one.
    public func commit<Value>(_ records: HeldRecords, run: Int64, _ body: (RecordTransaction) throws -> Value) throws -> Committed<Value> {
        try serialized {
            try db.write {
                var records = records
                // Read before another caller's zone re-cut the store: its days are cut again here.
                if records.zone != currentZone.identifier { records.refile(in: currentZone) }
                let transaction = try RecordTransaction(store: self, db: db, held: records, run: run)
                defer { transaction.close() }
                let value = try body(transaction)
                let days = try transaction.finish()
                return Committed(value: value, recordsAdded: transaction.added, daysMarked: days)
            }
        }
    }
}
