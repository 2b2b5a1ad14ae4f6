import EfferentSQLite
import EfferentCore

/// The writes of one phone batch, inside the transaction `SourceStore.commit` holds: each line
/// kind by its storage rule (§6.2–6.7), deletions after the inserts, buckets after both (a batch
/// never makes its own buckets stale), and every day that changed marked.
struct PhoneBatchWriter {
    let store: SourceStore
    let db: SQLiteConnection
    let batch: PulsBatch
    let rows: RecordInserter
    let index: PhoneSampleIndex
    /// Days changed by something other than an added record (a replaced ring, a deletion, a bucket).
    var marked = Set<String>()
    /// Where this batch's deletions removed totals.
    var removedTotals = TotalChanges()

    init(store: SourceStore, db: SQLiteConnection, batch: PulsBatch, run: Int64, samples: PhoneSampleIndex) throws {
        self.store = store
        self.db = db
        self.batch = batch
        index = samples
        rows = try RecordInserter(db: db, run: run, existing: .ignored, phone: true)
    }

    mutating func write(_ counts: inout SourceStore.PhoneBatchCounts) throws {
        try samples(&counts)
        counts.routePoints = try points(batch.routes, table: "phone_route_point", &counts)
        counts.seriesPoints = try points(batch.series, table: "phone_series_point", &counts)
        try summaries(&counts)
        try profile()
        // After every insert, so a batch that adds and deletes one UUID ends with it deleted (§6.3).
        try deletions(&counts)
        // The buckets stored before this batch that its changes fall inside stand no more; this
        // batch's own buckets come after, fresh: the phone computed them with its samples.
        var changes = rows.totalChanges ?? TotalChanges()
        changes.formUnion(removedTotals)
        try SourceStore.staleBuckets(changes, db: db)
        try aggregates(&counts)
        let days = rows.touched.union(marked)
        counts.days = days.count
        try store.mark(days)
    }

    private func insertRecords(_ range: Range<Int>, sample: Int64?, _ counts: inout SourceStore.PhoneBatchCounts) throws {
        for index in range where try rows.insert(batch.records[index], sample: sample) { counts.records += 1 }
    }

    /// §6.2: a UUID already stored is a duplicate, never an update and never a second row. A
    /// workout its route or series lines named first is completed, not duplicated.
    private func samples(_ counts: inout SourceStore.PhoneBatchCounts) throws {
        let insert = try db.statement("""
            INSERT INTO phone_sample (sid, uuid, type, kind, start, source, device, present) VALUES (?, ?, ?, ?, ?, ?, ?, 1)
            """)
        let complete = try db.statement("UPDATE phone_sample SET type = ?, kind = ?, start = ?, source = ?, device = ?, present = 1 WHERE sid = ?")
        for mapped in batch.samples {
            let sample = mapped.line
            // Only a workout's are read again (its route and series lines take them); the rest
            // live in the sample's records.
            let workout = sample.kind == "workout"
            let source: SQLiteValue = workout ? sample.source.map { .text($0) } ?? .null : .null
            let device: SQLiteValue = workout ? sample.device.map { .text($0) } ?? .null : .null
            let sid: Int64
            if let (existing, present) = try index.find(sample.uuid) {
                guard !present else {
                    counts.duplicates += 1
                    continue
                }
                sid = existing
                try complete.run([.text(sample.type), .text(sample.kind), .real(sample.start), source, device, .integer(sid)])
            } else {
                sid = try index.add(sample.uuid)
                // Bound one by one: no arrays built for each of a backfill's samples.
                insert.rewind()
                try insert.bind(1, .integer(sid))
                try insert.bind(2, .blob(sample.uuid.bytes))
                try insert.bind(3, .text(sample.type))
                try insert.bind(4, .text(sample.kind))
                try insert.bind(5, .real(sample.start))
                try insert.bind(6, source)
                try insert.bind(7, device)
                while try insert.step() {}
            }
            counts.accepted += 1
            // An ECG or a heartbeat series an export brought first is met whole (decision A.14).
            if sample.kind == "ecg" || sample.kind == "heartbeatSeries",
               try rows.adoptWhole(batch.records[mapped.records], kind: sample.kind, sample: sid) {
                continue
            }
            try insertRecords(mapped.records, sample: sid, &counts)
        }
    }

    /// §6.6: points insert-if-absent by (workout, t) or (workout, type, t); their records belong to
    /// the workout, which need not have arrived yet (§8.2) and takes them with it when deleted.
    private func points(_ lines: [PulsBatch.Mapped<PulsPoints>], table: String, _ counts: inout SourceStore.PhoneBatchCounts) throws -> Int {
        guard !lines.isEmpty else { return 0 }
        let insert = table == "phone_route_point"
            ? try db.statement("INSERT OR IGNORE INTO phone_route_point (workout, t) VALUES (?, ?)")
            : try db.statement("INSERT OR IGNORE INTO phone_series_point (workout, type, t) VALUES (?, ?, ?)")
        var created = 0
        for mapped in lines {
            let workout = try workoutSample(mapped.line.workout)
            for time in mapped.line.times {
                if let type = mapped.line.type {
                    try insert.run([.blob(mapped.line.workout.bytes), .text(type), .real(time)])
                } else {
                    try insert.run([.blob(mapped.line.workout.bytes), .real(time)])
                }
                created += db.changes
            }
            try insertRecords(mapped.records, sample: workout, &counts)
        }
        return created
    }

    /// The workout's row, made as a placeholder (present = 0) when its points come first.
    private func workoutSample(_ uuid: PulsUUID) throws -> Int64 {
        if let (sid, _) = try index.find(uuid) { return sid }
        let sid = try index.add(uuid)
        try db.statement("INSERT INTO phone_sample (sid, uuid, type, kind, present) VALUES (?, ?, 'HKWorkoutTypeIdentifier', 'workout', 0)")
            .run([.integer(sid), .blob(uuid.bytes)])
        return sid
    }

    /// §6.4: each bucket replaces what its identity held, a `null` clearing the value. A bucket that
    /// is a total (a de-duplicated sum over all devices, one hour or one day wide) marks its day.
    private mutating func aggregates(_ counts: inout SourceStore.PhoneBatchCounts) throws {
        guard !batch.aggregates.isEmpty else { return }
        let upsert = try db.statement("""
            INSERT INTO phone_aggregate (type, func, interval_value, interval_unit, device_filter, bucket_start, bucket_end, value, unit)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (type, func, interval_value, interval_unit, device_filter, bucket_start)
            DO UPDATE SET bucket_end = excluded.bucket_end, value = excluded.value, unit = excluded.unit, stale = 0
            """)
        for aggregate in batch.aggregates {
            let identity = aggregate.identity
            try upsert.run([.text(identity.type), .text(identity.function), .integer(identity.intervalValue), .text(identity.intervalUnit),
                            .text(identity.deviceFilter), .real(identity.bucketStart), .real(aggregate.bucketEnd),
                            aggregate.value.map { .real($0) } ?? .null, aggregate.unit.map { .text($0) } ?? .null])
            counts.aggregateSamples += 1
            if PhoneTotals.isTotal(identity) { marked.insert(store.zone.day(of: identity.bucketStart / 1000).description) }
        }
    }

    /// §6.5: the line is the whole day. The stored row is replaced, and so are the day's ring
    /// records: an omitted ring leaves none behind.
    private mutating func summaries(_ counts: inout SourceStore.PhoneBatchCounts) throws {
        guard !batch.summaries.isEmpty else { return }
        let upsert = try db.statement("""
            INSERT OR REPLACE INTO phone_activity_summary (local_date, date, move_kcal, move_goal_kcal, exercise_min, exercise_goal_min,
                stand_hours, stand_goal_hours, move_time_min, move_time_goal_min, move_mode) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let clear = try db.statement("""
            DELETE FROM record WHERE start >= ? AND start < ? AND origin = 0 AND metric >= 'activitySummary.' AND metric < 'activitySummary/'
            """)
        let zone = store.zone
        for mapped in batch.summaries {
            let summary = mapped.line
            try upsert.run([.text(summary.localDate), .real(summary.date)] + summary.values.map { $0.map { .real($0) } ?? .null }
                           + [summary.moveMode.map { .integer($0) } ?? .null])
            if let day = CalendarDay(summary.localDate) {
                let (start, end) = zone.bounds(of: day)
                try clear.run([.integer(start), .integer(end)])
            }
            marked.insert(summary.localDate)
            try insertRecords(mapped.records, sample: nil, &counts)
            counts.activitySummaries += 1
        }
        // Apple's three figures `efferent check` compares with: the last line of a day wins.
        try ImportSession.upsert(batch.ringDays, db: db)
    }

    /// §6.7: the snapshot replaces what was stored; it never becomes a record.
    private func profile() throws {
        guard let profile = batch.profile else { return }
        try db.statement("""
            INSERT OR REPLACE INTO phone_profile (id, name, email, date_of_birth, biological_sex, updated) VALUES (1, ?, ?, ?, ?, ?)
            """).run([profile.name.map { .text($0) } ?? .null, profile.email.map { .text($0) } ?? .null,
                      profile.dateOfBirth.map { .real($0) } ?? .null, profile.biologicalSex.map { .text($0) } ?? .null,
                      .real(batch.header.exportedAt / 1000)])
    }

    /// §6.3: the sample with that UUID goes, with every record it made and, for a workout, its
    /// route and series points and their records; an unknown UUID is a no-op. The days its
    /// records were on are sealed again (and the next, where a total reached past midnight).
    private mutating func deletions(_ counts: inout SourceStore.PhoneBatchCounts) throws {
        guard !batch.deletions.isEmpty else { return }
        let days = try db.statement("SELECT day, max(total) FROM record WHERE sample = ? GROUP BY day")
        let totals = try db.statement("SELECT metric, start, end FROM record WHERE sample = ? AND total = 1")
        for deletion in batch.deletions {
            let uuid: SQLiteValue = .blob(deletion.uuid.bytes)
            guard let (sid, present) = try index.find(deletion.uuid) else { continue }
            for (day, total) in try days.rows([.integer(sid)], { ($0.text(0), $0.int64(1) == 1) }) {
                marked.insert(day)
                if total, let next = CalendarDay(day)?.next { marked.insert(next.description) }
            }
            for (metric, start, end) in try totals.rows([.integer(sid)], { ($0.text(0), $0.int64(1), $0.int64(2)) }) {
                removedTotals.add(metric: metric, start: start, end: end)
            }
            try db.statement("DELETE FROM record WHERE sample = ?").run([.integer(sid)])
            try db.statement("DELETE FROM phone_route_point WHERE workout = ?").run([uuid])
            try db.statement("DELETE FROM phone_series_point WHERE workout = ?").run([uuid])
            try db.statement("DELETE FROM phone_sample WHERE sid = ?").run([.integer(sid)])
            try index.removed(deletion.uuid)
            if present { counts.deleted += 1 }
        }
    }
}
