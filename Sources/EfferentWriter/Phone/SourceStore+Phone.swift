import EfferentSQLite
import EfferentCore
import Foundation

/// What the writer offers a phone's receiver (Puls Sync Protocol v1 §6): a run to stamp its
/// records with, a reader that maps a batch's lines as an import maps them, and the batch's
/// records and day marks inside the receiver's own transaction (`PhoneBatchRecords`). The
/// receiver's own state (paired phones, samples by UUID, batches taken) is EfferentReceiver's.
extension SourceStore {
    /// The import run a receiver's records are stamped with (`import_run`, format `pulshealth-receive`).
    public func beginPhoneRun(source: String) throws -> Int64 {
        try serialized {
            // A backfill's batches rewrite the same index pages (UUIDs are random) one transaction
            // after another: checkpoint every ~40 MB of log, as an import does, not every 4 MB.
            try checkpointEvery(megabytes: 40)
            try db.statement("INSERT INTO import_run (source, format, full, started) VALUES (?, 'pulshealth-receive', 0, ?)")
                .run([.text(source), .real(Date().timeIntervalSince1970)])
            return db.lastInsertRowID
        }
    }

    /// A reader for one batch: its records are mapped as an import maps them and held for the
    /// batch's transaction. `earlierWorkout` finds a workout earlier batches brought (by lower-case
    /// UUID), whose source its route and series lines are filed under.
    public func batchReader(run: Int64, limits: PulsLimits = PulsLimits(),
                            earlierWorkout: ((String) throws -> SourceRecord?)? = nil) -> PulsBatchReader {
        PulsBatchReader(session: ImportSession(store: self, run: run, full: false, holding: true), limits: limits, earlierWorkout: earlierWorkout)
    }

    /// The writer's half of `batch`, for use inside `transaction` only (its statements are the
    /// transaction's): records stored under run `run`, their days marked by `finish()`.
    public func phoneRecords(of batch: PulsBatch, run: Int64) throws -> PhoneBatchRecords {
        try serialized { try PhoneBatchRecords(store: self, db: db, batch: batch, run: run) }
    }
}
