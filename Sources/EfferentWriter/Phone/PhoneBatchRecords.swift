import EfferentSQLite
import EfferentCore

/// The writer's half of one phone batch (Puls Sync Protocol v1 §6), inside the transaction the
/// receiver holds (`SourceStore.transaction`): the records its lines mapped to, stored by the
/// rules an import follows, the records of deleted samples taken away, HealthKit's buckets
/// upserted, and every day that changed marked. The receiver keeps its own rows (samples, points,
/// the batch's reservation) beside these, in the same transaction; nothing here outlives it.
public final class PhoneBatchRecords {
    private let store: SourceStore
    private let db: SQLiteConnection
    /// The batch, its records filed under the store's zone.
    private let batch: PulsBatch
    private let rows: RecordInserter
    /// Days changed by something other than an added record (a replaced ring, a deletion, a bucket).
    private var marked = Set<String>()
    /// Where this batch's deletions removed totals.
    private var removedTotals = TotalChanges()
    /// Records added to the store so far (a sample may be many: a workout's parts, an ECG's voltages).
    public private(set) var added = 0

    init(store: SourceStore, db: SQLiteConnection, batch: PulsBatch, run: Int64) throws {
        self.store = store
        self.db = db
        // Read before another batch's zone re-cut the store: its days are cut again here.
        var batch = batch
        if batch.zone != store.zone.identifier { batch.refile(in: store.zone) }
        self.batch = batch
        rows = try RecordInserter(db: db, run: run, existing: .ignored, phone: true)
    }

    /// Stores the records `line` mapped to, each insert-if-absent by its identity; `sample` is the
    /// receiver's row they belong to (its deletion takes them with it), nil for a ring day's.
    public func insert<Line>(_ line: PulsBatch.Mapped<Line>, sample: Int64?) throws {
        for index in line.records where try rows.insert(batch.records[index], sample: sample) { added += 1 }
    }

    /// An ECG or a heartbeat series an export brought first is met whole (decision A.14): true
    /// when the export's rows now stand for `line`, whose own records are then not stored.
    public func adoptWhole(_ line: PulsBatch.Mapped<PulsSample>, sample: Int64) throws -> Bool {
        try rows.adoptWhole(batch.records[line.records], kind: line.line.kind, sample: sample)
    }

    /// §6.5: the line is the whole day. The day's ring records are replaced by the line's: an
    /// omitted ring leaves none behind.
    public func replaceRings(_ line: PulsBatch.Mapped<PulsActivitySummary>) throws {
        if let day = CalendarDay(line.line.localDate) {
            let (start, end) = store.zone.bounds(of: day)
            try db.statement("""
                DELETE FROM record WHERE start >= ? AND start < ? AND origin = 0 AND metric >= 'activitySummary.' AND metric < 'activitySummary/'
                """).run([.integer(start), .integer(end)])
        }
        marked.insert(line.line.localDate)
        try insert(line, sample: nil)
    }

    /// Apple's three ring figures per day `efferent check` compares with: the last line of a day wins.
    public func storeRingFigures() throws {
        try ImportSession.upsert(batch.ringDays, db: db)
    }

    /// §6.3: every record sample `sample` made goes. The days they were on are sealed again (and
    /// the next, where a total reached past midnight).
    public func removeRecords(ofSample sample: Int64) throws {
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

    /// After every line's records and deletions: the buckets stored before this batch that its
    /// changes fall inside stand no more; this batch's own buckets (§6.4) come after, fresh (the
    /// phone computed them with its samples), each replacing what its identity held, a `null`
    /// clearing the value; a bucket that is a total marks its day. Then every day that changed is
    /// marked. Returns the buckets stored and the days marked.
    public func finish() throws -> (buckets: Int, days: Int) {
        var changes = rows.totalChanges ?? TotalChanges()
        changes.formUnion(removedTotals)
        try SourceStore.staleBuckets(changes, db: db)
        var buckets = 0
        if !batch.aggregates.isEmpty {
            let upsert = try db.statement("""
                INSERT INTO phone_aggregate (type, func, interval_value, interval_unit, device_filter, bucket_start, bucket_end, value, unit)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (type, func, interval_value, interval_unit, device_filter, bucket_start)
                DO UPDATE SET bucket_end = excluded.bucket_end, value = excluded.value, unit = excluded.unit, stale = 0
                """)
            let zone = store.zone
            for aggregate in batch.aggregates {
                let identity = aggregate.identity
                try upsert.run([.text(identity.type), .text(identity.function), .integer(identity.intervalValue), .text(identity.intervalUnit),
                                .text(identity.deviceFilter), .real(identity.bucketStart), .real(aggregate.bucketEnd),
                                aggregate.value.map { .real($0) } ?? .null, aggregate.unit.map { .text($0) } ?? .null])
                buckets += 1
                if PhoneTotals.isTotal(identity) { marked.insert(zone.day(of: identity.bucketStart / 1000).description) }
            }
        }
        let days = rows.touched.union(marked)
        try store.mark(days)
        return (buckets, days.count)
    }
}
