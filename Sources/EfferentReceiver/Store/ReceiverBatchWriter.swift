import EfferentSQLite
import EfferentCore
import EfferentWriter

/// The writes of one phone batch, inside the transaction the writer lends `ReceiverStore.commit`
/// (`RecordTransaction`): each line kind by its storage rule (§6.2–6.7) into the receiver's
/// tables, its records through the writer; deletions after the inserts, buckets after both (the
/// writer stores the totals among them after every change of the batch, so a batch never makes
/// its own totals stale), and every day that changed marked by the writer as the batch commits.
struct ReceiverBatchWriter {
    /// The writer's transaction: the records' operations, and this batch's own statements.
    let db: RecordTransaction
    let batch: PulsBatch
    let index: PhoneSampleIndex

    func write(_ counts: inout ReceiverStore.PhoneBatchCounts) throws {
        try samples(&counts)
        counts.routePoints = try points(batch.routes, table: "phone_route_point")
        counts.seriesPoints = try points(batch.series, table: "phone_series_point")
        try summaries(&counts)
        try profile()
        // After every insert, so a batch that adds and deletes one UUID ends with it deleted (§6.3).
        try deletions(&counts)
        counts.aggregateSamples = try aggregates()
    }

    /// §6.2: a UUID already stored is a duplicate, never an update and never a second row. A
    /// workout its route or series lines named first is completed, not duplicated.
    private func samples(_ counts: inout ReceiverStore.PhoneBatchCounts) throws {
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
            if let (existing, present) = try index.find(sample.uuid, in: db) {
                guard !present else {
                    counts.duplicates += 1
                    continue
                }
                sid = existing
                try complete.run([.text(sample.type), .text(sample.kind), .real(sample.start), source, device, .integer(sid)])
            } else {
                sid = try index.add(sample.uuid, in: db)
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
            if sample.kind == "ecg" || sample.kind == "heartbeatSeries", try db.adoptWhole(mapped.records, kind: sample.kind, sample: sid) {
                continue
            }
            try db.insert(mapped.records, sample: sid)
        }
    }

    /// §6.6: points insert-if-absent by (workout, t) or (workout, type, t); their records belong to
    /// the workout, which need not have arrived yet (§8.2) and takes them with it when deleted.
    private func points(_ lines: [PulsBatch.Mapped<PulsPoints>], table: String) throws -> Int {
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
            // A series' points are readings of their type the phone also sends as samples (§4.4).
            try db.insert(mapped.records, sample: workout, repeatsSamples: table == "phone_series_point")
        }
        return created
    }

    /// The workout's row, made as a placeholder (present = 0) when its points come first.
    private func workoutSample(_ uuid: PulsUUID) throws -> Int64 {
        if let (sid, _) = try index.find(uuid, in: db) { return sid }
        let sid = try index.add(uuid, in: db)
        try db.statement("INSERT INTO phone_sample (sid, uuid, type, kind, present) VALUES (?, ?, 'HKWorkoutTypeIdentifier', 'workout', 0)")
            .run([.integer(sid), .blob(uuid.bytes)])
        return sid
    }

    /// §6.5: the line is the whole day. The stored row is replaced, and so are the day's ring
    /// records (the writer's `replaceRings`): an omitted ring leaves none behind.
    private func summaries(_ counts: inout ReceiverStore.PhoneBatchCounts) throws {
        guard !batch.summaries.isEmpty else { return }
        let upsert = try db.statement("""
            INSERT OR REPLACE INTO phone_activity_summary (local_date, date, move_kcal, move_goal_kcal, exercise_min, exercise_goal_min,
                stand_hours, stand_goal_hours, move_time_min, move_time_goal_min, move_mode) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for mapped in batch.summaries {
            let summary = mapped.line
            try upsert.run([.text(summary.localDate), .real(summary.date)] + summary.values.map { $0.map { .real($0) } ?? .null }
                           + [summary.moveMode.map { .integer($0) } ?? .null])
            try db.replaceRings(on: summary.localDate)
            try db.insert(mapped.records, sample: nil)
            counts.activitySummaries += 1
        }
        try db.storeRingFigures()
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

    /// §6.3: the sample with that UUID goes, with every record it made (the writer's
    /// `removeRecords`, which marks their days) and, for a workout, its route and series points;
    /// an unknown UUID is a no-op.
    private func deletions(_ counts: inout ReceiverStore.PhoneBatchCounts) throws {
        guard !batch.deletions.isEmpty else { return }
        for deletion in batch.deletions {
            let uuid: SQLiteValue = .blob(deletion.uuid.bytes)
            guard let (sid, present) = try index.find(deletion.uuid, in: db) else { continue }
            try db.removeRecords(ofSample: sid)
            try db.statement("DELETE FROM phone_route_point WHERE workout = ?").run([uuid])
            try db.statement("DELETE FROM phone_series_point WHERE workout = ?").run([uuid])
            try db.statement("DELETE FROM phone_sample WHERE sid = ?").run([.integer(sid)])
            try index.removed(deletion.uuid, in: db)
            if present { counts.deleted += 1 }
        }
    }

    /// §6.4: each bucket replaces what its identity held, a `null` clearing the value. One that
    /// can stand for an archive total (`isTotal`) is supplied to the writer as HealthKit's own
    /// total of its hour or day. Returns the buckets stored.
    private func aggregates() throws -> Int {
        guard !batch.aggregates.isEmpty else { return 0 }
        let upsert = try db.statement("""
            INSERT INTO phone_aggregate (type, func, interval_value, interval_unit, device_filter, bucket_start, bucket_end, value, unit)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (type, func, interval_value, interval_unit, device_filter, bucket_start)
            DO UPDATE SET bucket_end = excluded.bucket_end, value = excluded.value, unit = excluded.unit
            """)
        for aggregate in batch.aggregates {
            let identity = aggregate.identity
            try upsert.run([.text(identity.type), .text(identity.function), .integer(identity.intervalValue), .text(identity.intervalUnit),
                            .text(identity.deviceFilter), .real(identity.bucketStart), .real(aggregate.bucketEnd),
                            aggregate.value.map { .real($0) } ?? .null, aggregate.unit.map { .text($0) } ?? .null])
            if Self.isTotal(identity) {
                db.supply(SuppliedTotal(type: identity.type, unit: aggregate.unit, isDay: identity.intervalUnit == "day",
                                        start: identity.bucketStart / 1000, end: aggregate.bucketEnd / 1000, value: aggregate.value))
            }
        }
        return batch.aggregates.count
    }

    /// Whether a bucket can stand for an archive total: HealthKit's de-duplicated sum over all
    /// devices, exactly one hour or one day (protocol.md, "Aggregates as totals").
    static func isTotal(_ identity: PulsAggregate.Identity) -> Bool {
        identity.function == "sum" && identity.deviceFilter == "all" && identity.intervalValue == 1
            && (identity.intervalUnit == "hour" || identity.intervalUnit == "day")
    }
}
