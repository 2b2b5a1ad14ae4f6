import EfferentSQLite
import EfferentCore
import EfferentWriter
import Foundation

/// A phone's batches into the store (Puls Sync Protocol v1 §6): each batch in one transaction
/// with its records and the marks of every day it changed (the writer's, lent for it), so a batch
/// is stored whole or not at all and its days go out with the next push.
extension ReceiverStore {
    /// What a batch changed, counted as the protocol's answer counts it (§7.1).
    public struct PhoneBatchCounts: Sendable, Equatable {
        public var accepted = 0
        public var deleted = 0
        public var duplicates = 0
        public var routePoints = 0
        public var seriesPoints = 0
        public var aggregateSamples = 0
        public var activitySummaries = 0
        /// The batch ID was taken before: nothing was done (§6.1).
        public var replayed = false
        /// A replay whose body differs from the one first stored under its batch ID (its lines
        /// were not stored: the ID is taken): a sender's bug worth a line in the log.
        public var replayDiffers = false
        /// Records added to the store (a sample may be many: a workout's parts, an ECG's voltages).
        public var records = 0
        /// Local days marked to be sealed again.
        public var days = 0

        public init() {}
    }

    /// The import run a receiver's records are stamped with (the writer's run of held records).
    public func beginPhoneRun(source: String) throws -> Int64 { try store.beginHeldRun(source: source) }

    /// A reader for one batch: its records are mapped as an import maps them and held for `commit`.
    public func batchReader(run: Int64, limits: PulsLimits = PulsLimits()) -> PulsBatchReader {
        PulsBatchReader(session: store.holdingSession(run: run), limits: limits) { [self] uuid in try earlierWorkout(uuid) }
    }

    /// A workout an earlier batch brought, as the reader files its route and series under it
    /// (read on the receiver's own connection: the batch being read is not in any transaction yet).
    func earlierWorkout(_ uuid: String) throws -> SourceRecord? {
        guard let key = PulsUUID(uuid) else { return nil }
        let index = try phoneSamples()
        return try serialized { db in
            guard let (sid, _) = try index.find(key, in: db) else { return nil }
            return try db.statement("SELECT type, source, device, start FROM phone_sample WHERE sid = ? AND present = 1 AND kind = 'workout'")
                .first([.integer(sid)]) { row in
                    SourceRecord(kind: .workout, type: row.text(0), source: row.optionalText(1) ?? "", deviceModel: row.optionalText(2),
                                 start: row.double(3) / 1000, end: row.double(3) / 1000)
                }
        }
    }

    /// Stores `batch` for the paired phone `token` in one transaction (§6): samples insert-if-absent
    /// by UUID, route and series points by their identities, aggregates and activity summaries
    /// upserted whole, the profile replaced, then the deletions; the batch ID reserved in the same
    /// transaction, so a replay does nothing. The transaction is the writer's (`SourceStore.commit`),
    /// which stores the batch's records and marks their days with it. Returns the counts once committed.
    public func commit(_ batch: PulsBatch, token: Int64, run: Int64, now: Double = Date().timeIntervalSince1970) throws -> PhoneBatchCounts {
        do {
            let committed = try store.commit(batch.records, run: run) { transaction in
                try inBatch(transaction) { samples in try write(batch, transaction, samples: samples, token: token, now: now) }
            }
            var counts = committed.value
            counts.records = committed.recordsAdded
            counts.days = committed.daysMarked
            return counts
        } catch {
            // The rollback took back rows the index's memory may already hold.
            serialized { _ in sampleIndex?.invalidate() }
            throw error
        }
    }

    /// The batch's writes and the phone's counters, in the transaction `commit` is lent.
    private func write(_ batch: PulsBatch, _ db: RecordTransaction, samples: PhoneSampleIndex, token: Int64, now: Double) throws -> PhoneBatchCounts {
        var counts = PhoneBatchCounts()
        let reserved = try db.statement("""
            INSERT OR IGNORE INTO phone_batch (batch_id, token, received, samples, accepted, digest) VALUES (?, ?, ?, ?, 0, ?)
            """)
        try reserved.run([.blob(batch.header.batchID.bytes), .integer(token), .real(now), .integer(Int64(batch.samples.count)),
                          batch.digest.isEmpty ? .null : .blob(batch.digest)])
        if db.changes == 0 {
            counts.replayed = true
            counts.duplicates = batch.samples.count
            // Batches stored before digests were kept have none, and are taken to be the same.
            let stored = try db.statement("SELECT digest FROM phone_batch WHERE batch_id = ?")
                .first([.blob(batch.header.batchID.bytes)]) { $0.isNull(0) ? nil : $0.blob(0) } ?? nil
            counts.replayDiffers = stored != nil && !batch.digest.isEmpty && stored != batch.digest
        } else {
            try ReceiverBatchWriter(db: db, batch: batch, index: samples).write(&counts)
            try db.statement("UPDATE phone_batch SET accepted = ? WHERE batch_id = ?")
                .run([.integer(Int64(counts.accepted)), .blob(batch.header.batchID.bytes)])
            try samples.mergeIfDue(in: db)
        }
        try recordBatch(batch, db: db, counts: counts, token: token, now: now)
        return counts
    }

    /// The paired phone's own figures: its last batch, and batches and samples per local day.
    private func recordBatch(_ batch: PulsBatch, db: RecordTransaction, counts: PhoneBatchCounts, token: Int64, now: Double) throws {
        try db.statement("UPDATE phone_token SET last_batch = ?, last_used = ? WHERE id = ?").run([.real(now), .real(now), .integer(token)])
        try db.statement("""
            INSERT INTO phone_device_day (token, day, batches, samples) VALUES (?, ?, 1, ?)
            ON CONFLICT (token, day) DO UPDATE SET batches = batches + 1, samples = samples + excluded.samples
            """).run([.integer(token), .text(store.zone.day(of: now).description), .integer(Int64(counts.accepted))])
        let type = try db.statement("""
            INSERT INTO phone_type (type, batches, last_batch) VALUES (?, 1, ?)
            ON CONFLICT (type) DO UPDATE SET batches = batches + 1, last_batch = excluded.last_batch
            """)
        // A replay stored nothing, so it is no batch of any type.
        guard !counts.replayed else { return }
        for name in batch.types.sorted() { try type.run([.text(name), .real(now * 1000)]) }
    }

    /// Remembers why the paired phone's last batch was refused (`efferent status`): a sentence
    /// naming a line and a field, never a value.
    public func recordPhoneError(_ sentence: String, token: Int64, now: Double = Date().timeIntervalSince1970) throws {
        try serialized { db in
            try db.statement("UPDATE phone_token SET last_error = ?, last_error_at = ? WHERE id = ?")
                .run([.text(sentence), .real(now), .integer(token)])
        }
    }

    /// The profile line last received, kept only here (never in a day, never uploaded).
    public func phoneProfile() throws -> PulsProfile? {
        try serialized { db in
            try db.statement("SELECT name, email, date_of_birth, biological_sex FROM phone_profile WHERE id = 1").first { row in
                PulsProfile(name: row.optionalText(0), email: row.optionalText(1), dateOfBirth: row.isNull(2) ? nil : row.double(2),
                            biologicalSex: row.optionalText(3))
            }
        }
    }

    /// Every ring field of a day the phone sent, as stored (the replace rule of §6.5 is visible here).
    public func phoneActivitySummary(_ localDate: String) throws -> (values: [Double?], moveMode: Int64?)? {
        try serialized { db in
            try db.statement("""
                SELECT move_kcal, move_goal_kcal, exercise_min, exercise_goal_min, stand_hours, stand_goal_hours, move_time_min,
                       move_time_goal_min, move_mode FROM phone_activity_summary WHERE local_date = ?
                """).first([.text(localDate)]) { row in
                ((0..<8).map { row.isNull(Int32($0)) ? nil : row.double(Int32($0)) }, row.isNull(8) ? nil : row.int64(8))
            }
        }
    }
}
