import EfferentSQLite
import EfferentCore
import EfferentWriter

/// The writes of one phone batch, inside the transaction `ReceiverStore.commit` holds: each line
/// kind by its storage rule (§6.2–6.7) into the receiver's tables, its records through the
/// writer (`PhoneBatchRecords`); deletions after the inserts, buckets after both (a batch never
/// makes its own buckets stale), and every day that changed marked by the writer.
struct ReceiverBatchWriter {
    let db: SQLiteConnection
    let batch: PulsBatch
    let records: PhoneBatchRecords
    let index: PhoneSampleIndex

    func write(_ counts: inout ReceiverStore.PhoneBatchCounts) throws {
        try samples(&counts)
        counts.routePoints = try points(batch.routes, table: "phone_route_point")
        counts.seriesPoints = try points(batch.series, table: "phone_series_point")
        try summaries(&counts)
        try profile()
        // After every insert, so a batch that adds and deletes one UUID ends with it deleted (§6.3).
        try deletions(&counts)
        let (buckets, days) = try records.finish()
        counts.aggregateSamples = buckets
        counts.days = days
        counts.records = records.added
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
            if sample.kind == "ecg" || sample.kind == "heartbeatSeries", try records.adoptWhole(mapped, sample: sid) {
                continue
            }
            try records.insert(mapped, sample: sid)
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
            try records.insert(mapped, sample: workout)
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
            try records.replaceRings(mapped)
            counts.activitySummaries += 1
        }
        try records.storeRingFigures()
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
            guard let (sid, present) = try index.find(deletion.uuid) else { continue }
            try records.removeRecords(ofSample: sid)
            try db.statement("DELETE FROM phone_route_point WHERE workout = ?").run([uuid])
            try db.statement("DELETE FROM phone_series_point WHERE workout = ?").run([uuid])
            try db.statement("DELETE FROM phone_sample WHERE sid = ?").run([.integer(sid)])
            try index.removed(deletion.uuid)
            if present { counts.deleted += 1 }
        }
    }
}
