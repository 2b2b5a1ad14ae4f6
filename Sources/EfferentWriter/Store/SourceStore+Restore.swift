import EfferentCore
import EfferentSQLite
import Foundation

/// A writer's store rebuilt from the archive's own days (a kit restored on a new machine): each
/// day's records as rows, its totals as the archive's (`archived_total`), and its ledger entry as
/// the archive holds it, so a push afterwards sends nothing.
///
/// A body carries what an export or a phone made of a sample (its metric, wire unit and value),
/// not the sample as the export wrote it, so a restored row cannot carry the export's identity
/// (decision A.6). It is met instead, by the rule two doors meet by (A.14, `RecordInserter.sameSample`):
/// a restored row stands as a phone's row no export has met yet (`sample` is `restoredSample`),
/// which the export's record of the same sample, imported again, meets and names with its own
/// identity; and as an export's row no phone claims yet, which a phone's backfilled sample meets.
/// Rings keep their identity (it is the date's, `ImportSession.ringRecord`). Records an agent
/// wrote come back as the agent's (`origin` 1) under an identity of their own: the agent's id
/// for them is not in the archive.
extension SourceStore {
    /// `record.sample` of a restored row no door has met yet (a phone sample's row ids are positive).
    public static let restoredSample: Int64 = -1
    /// `import_run.format` of a restore's run.
    static let restoreRunFormat = "archive-restore"

    /// Whether the store holds nothing yet: a restore goes only into an empty store.
    public func isEmpty() throws -> Bool {
        try serialized {
            let records = try db.statement("SELECT EXISTS (SELECT 1 FROM record)").first { $0.int64(0) == 1 } ?? false
            let days = try db.statement("SELECT EXISTS (SELECT 1 FROM day)").first { $0.int64(0) == 1 } ?? false
            return !records && !days
        }
    }

    /// The run a restore stamps its rows with.
    public func beginRestore(source: String) throws -> Int64 {
        try serialized {
            try checkpointEvery(megabytes: 40)
            try db.statement("INSERT INTO import_run (source, format, full, started) VALUES (?, ?, 0, ?)")
                .run([.text(source), .text(Self.restoreRunFormat), .real(Date().timeIntervalSince1970)])
            return db.lastInsertRowID
        }
    }

    /// Stores `days` as the archive holds them, in one transaction: their records, their totals and
    /// their ledger entries, each day clean with the archive's fingerprint, size and listed time.
    /// Returns the records stored.
    @discardableResult
    public func restore(_ days: [ArchiveDays.Day], run: Int64) throws -> Int {
        try serialized {
            try db.write {
                let zone = currentZone
                let row = try db.statement("""
                    INSERT OR IGNORE INTO record (id, metric, total, source, device, start, end, value, unit, stage, activity, duration, day,
                                                  origin, seen, sample)
                    VALUES (?, ?, 0, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
                let total = try db.statement("""
                    INSERT OR REPLACE INTO archived_total (metric, width, start, end, value, unit) VALUES (?, ?, ?, ?, ?, ?)
                    """)
                let ledger = try db.statement("""
                    INSERT INTO day (day, digest, dirty, updated, bytes, attempts, listed) VALUES (?, ?, 0, ?, ?, 0, ?)
                    ON CONFLICT (day) DO UPDATE SET digest = excluded.digest, dirty = 0, updated = excluded.updated, bytes = excluded.bytes,
                    attempts = 0, refusal = NULL, listed = excluded.listed
                    """)
                var identities = RecordIdentity()
                var stored = 0
                let now = Date().timeIntervalSince1970
                for day in days {
                    var rings = [String: Double]()
                    for event in day.records {
                        let id: Int64
                        var origin: Int64 = 0
                        var sample: Int64? = Self.restoredSample
                        var source = event.source ?? ""
                        if RecordParts.isSourceless(event.metric), let part = RecordParts.activitySummary.first(where: { $0.value.metric == event.metric }) {
                            // The ring's own identity: the next import of the same figure finds it.
                            id = ImportSession.ringRecord(part.value, value: event.value ?? 0, on: day.day, in: zone, identities: &identities).1
                            source = ""
                            sample = nil
                            rings[part.key] = event.value
                        } else {
                            if source == Self.agentSource { origin = 1; sample = nil }
                            id = identities.of(SourceRecord(kind: .part, type: event.metric, source: source, start: Double(event.start),
                                                            end: Double(event.end), value: event.value, unit: event.unit,
                                                            category: event.stage, activity: event.activity))
                        }
                        try row.run([.integer(id), .text(event.metric), .text(source), .integer(event.start), .integer(event.end),
                                     event.value.map { .real($0) } ?? .null, event.unit.map { .text($0) } ?? .null,
                                     event.stage.map { .text($0) } ?? .null, event.activity.map { .text($0) } ?? .null,
                                     event.duration.map { .real($0) } ?? .null, .text(day.day.description), .integer(origin), .integer(run),
                                     sample.map { .integer($0) } ?? .null])
                        stored += db.changes
                    }
                    if !rings.isEmpty {
                        try ImportSession.upsert([ActivitySummaryRecord(day: day.day.description, activeEnergyKilocalories: rings["activeEnergyBurned"],
                                                                        exerciseMinutes: rings["appleExerciseTime"], standHours: rings["appleStandHours"],
                                                                        rings: rings)], db: db)
                    }
                    for event in day.totals {
                        guard let value = event.value else { continue }
                        try total.run([.text(event.metric), .text(event.bucket == .hour ? "hour" : "day"), .integer(event.start), .integer(event.end),
                                       .real(value), event.unit.map { .text($0) } ?? .null])
                    }
                    try ledger.run([.text(day.day.description), .blob(day.fingerprint), .real(now), .integer(Int64(day.sealedBytes)),
                                    .text(day.listed)])
                }
                try db.statement("UPDATE import_run SET records = records + ?, added = added + ? WHERE id = ?")
                    .run([.integer(Int64(stored)), .integer(Int64(stored)), .integer(run)])
                return stored
            }
        }
    }

    /// The restore's run is done.
    public func finishRestore(run: Int64) throws {
        try serialized {
            try db.statement("UPDATE import_run SET finished = ? WHERE id = ?").run([.real(Date().timeIntervalSince1970), .integer(run)])
            try checkpointEvery(megabytes: 4)
        }
    }

    /// Whether a restore began here and did not finish.
    func hasUnfinishedRestore() throws -> Bool {
        try serialized {
            try db.statement("SELECT EXISTS (SELECT 1 FROM import_run WHERE format = ? AND finished IS NULL)")
                .first([.text(Self.restoreRunFormat)]) { $0.int64(0) == 1 } ?? false
        }
    }

    /// The archive's own totals (`archived_total`) whose buckets start in [start, end).
    func archivedTotals(from start: Int64, to end: Int64) throws -> [(metric: String, isDay: Bool, start: Int64, end: Int64, value: Double, unit: String?)] {
        try serialized {
            try db.statement("SELECT metric, width, start, end, value, unit FROM archived_total WHERE start >= ? AND start < ?")
                .rows([.integer(start), .integer(end)]) { row in
                    (row.text(0), row.text(1) == "day", row.int64(2), row.int64(3), row.double(4), row.optionalText(5))
                }
        }
    }
}
