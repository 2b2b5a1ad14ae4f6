import EfferentCore
import EfferentSQLite

/// Inserts prepared records into the source store inside a transaction the caller holds, and
/// collects the days they touch so the caller marks them in that same transaction. An import's
/// batches and a receiver's phone batches store a record through here alike, so the same line
/// gives the same row whichever way it came (decision A.6).
final class RecordInserter {
    private let db: SQLiteConnection
    private let run: Int64
    private let existing: Existing
    private let statement: SQLiteStatement
    private let found: SQLiteStatement?
    /// Local days that gained a record (and, for a total reaching past midnight, the next day).
    private(set) var touched = Set<String>()
    private var lastTouched = ""
    /// The text bound to each parameter so far, by index (nil inside: NULL was bound). SQLite keeps
    /// a statement's bindings from row to row, and rows come in runs of one metric, source, unit
    /// and day: a value equal to the one bound is not bound (copied by SQLite) again.
    private var boundText = [String??](repeating: .none, count: 16)
    /// The `statement.clearings` that `boundText` holds for: another use of the same SQL clears
    /// the statement's bindings, and then `boundText` is forgotten.
    private var clearings: Int
    /// Where added totals lie, when the store holds supplied totals they could make stale (nil: none
    /// stored, and nothing is noted).
    private(set) var totalChanges: TotalChanges?
    /// Decision A.14, an import's side: finds a row a phone sample brought that no export record of
    /// this run has claimed yet and that is the same HealthKit sample (nil: the store holds none).
    private let phoneTwin: SQLiteStatement?
    /// Decision A.14, a phone's side: gives the sample an export row of the same HealthKit sample
    /// that no phone sample claims yet (nil: not a phone's inserter, or nothing was ever imported).
    private let exportTwin: SQLiteStatement?
    /// The same for a record that repeats a reading another sample brings (`insert`'s `repeatsSample`).
    private let repeatedTwin: SQLiteStatement?
    private let claimed: SQLiteStatement?
    /// Takes back the row an import's record just added when a phone row turns out to be its twin.
    private let takenBack: SQLiteStatement?
    /// Records that met the other door's row of the same sample instead of being inserted.
    private(set) var met = 0
    /// The export ECG whose parts come now (its source and span, from its `electrocardiogram`
    /// record, which comes before them), and whether a phone's sample stands for it.
    private var ecg: (source: String, start: Int64, end: Int64, covered: Bool)?

    /// What becomes of a record that is already stored.
    enum Existing {
        /// Nothing (a receiver's batch; an import that deletes nothing).
        case ignored
        /// Its row id is noted (a full export's run, which later removes what it did not find).
        case noted(SeenRows)
        /// Its row is stamped with the run (the same, for a store too large to note in memory).
        case stamped
    }

    /// Where two records are the same HealthKit sample (decision A.14): start and end to the whole
    /// second, metric, source, stage and activity equal, and the values equal or within the
    /// rounding an export's text introduces (six significant digits, plus the unit conversion's),
    /// or for a part kept to fixed decimals (a route fix's altitude, speed, course) one step of
    /// them, `?8`: the export's six decimals and the app's full value may round a step apart. An
    /// activity may also be one of `?9`'s (`,61,`): the app names some families of activities
    /// with one word (`snow_sports` for skiing and snowboarding too), filed under HealthKit's
    /// umbrella case, which meets the export's own case of the family, and the other way round.
    /// Looked up by start on the identity index; `?1`…`?7` are the record's fields.
    static let sameSample = """
        start = ?1 AND end = ?2 AND metric = ?3 AND source = ?4 AND stage IS ?5 AND (activity IS ?6 OR instr(?9, ',' || activity || ',') > 0)
        AND origin = 0
        AND (value IS ?7 OR abs(value - ?7) <= max(6e-6 * max(abs(value), abs(?7)), ?8))
        """

    /// One step of a part's fixed decimals (with room for a double's last bits), 0 for anything else.
    static func roundingStep(_ type: String) -> Double {
        guard let decimals = RecordParts.fixed[type]?.decimals else { return 0 }
        return 1.000001 / MetricMapping.powersOfTen[decimals]
    }

    /// `phone`: the inserter of a phone's batch, whose samples' records adopt the export rows of
    /// the same HealthKit samples; an import's inserter meets the rows phone samples brought.
    init(db: SQLiteConnection, run: Int64, existing: Existing, phone: Bool = false) throws {
        self.db = db
        self.run = run
        self.existing = existing
        totalChanges = try SourceStore.holdsSuppliedTotals(db) ? TotalChanges() : nil
        if phone {
            phoneTwin = nil
            // Only an import (not a run held for a receiver's commits) stores rows no UUID claims.
            let imported = try db.statement("SELECT EXISTS (SELECT 1 FROM import_run WHERE format <> ?)")
                .first([.text(SourceStore.heldRunFormat)]) { $0.int64(0) == 1 } ?? false
            // A row restored from the archive (`SourceStore.restoredSample`) is met as an export's is;
            // it keeps `matched` NULL, so the export it came from, imported again, still meets it.
            exportTwin = imported
                ? try db.statement("SELECT rid, 1 FROM record WHERE \(Self.sameSample) AND ifnull(sample, -1) = -1 LIMIT 1") : nil
            // For records that repeat readings samples bring on their own (a workout's series): an
            // export row no sample claims yet first, else one a sample of the same reading met already.
            repeatedTwin = imported ? try db.statement("""
                SELECT rid, ifnull(sample, -1) = -1 FROM record WHERE \(Self.sameSample) AND (ifnull(sample, -1) = -1 OR matched IS NOT NULL)
                ORDER BY ifnull(sample, -1) <> -1 LIMIT 1
                """) : nil
            claimed = imported
                ? try db.statement("UPDATE record SET sample = ?, matched = CASE WHEN sample = -1 THEN NULL ELSE seen END WHERE rid = ?") : nil
            takenBack = nil
        } else {
            exportTwin = nil
            repeatedTwin = nil
            // The partial index on sample answers at once; an archive fed only by exports pays nothing more.
            let phoneRows = try db.statement("SELECT EXISTS (SELECT 1 FROM record WHERE sample IS NOT NULL)").first { $0.int64(0) == 1 } ?? false
            phoneTwin = phoneRows
                ? try db.statement("SELECT rid FROM record WHERE \(Self.sameSample) AND sample IS NOT NULL AND matched IS NULL LIMIT 1")
                : nil
            // A restored row an export record meets becomes that export's row (no sample claims it),
            // seen by this run as a row it found by identity is.
            claimed = phoneRows ? try db.statement("""
                UPDATE record SET id = ?, matched = ?, sample = nullif(sample, -1), seen = CASE WHEN sample = -1 THEN ?2 ELSE seen END WHERE rid = ?
                """) : nil
            takenBack = phoneRows ? try db.statement("DELETE FROM record WHERE rid = ?") : nil
        }
        statement = try db.statement("""
            INSERT OR IGNORE INTO record (id, metric, total, source, device, start, end, value, unit, stage, activity, duration, day, origin,
                                          seen, sample)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)
            """)
        clearings = statement.clearings
        switch existing {
        case .ignored: found = nil
        // The identity index holds the rid: noting reads that index only, no row's page is written.
        case .noted: found = try db.statement("SELECT rid FROM record WHERE start = ? AND id = ?")
        case .stamped: found = try db.statement("UPDATE record SET seen = ? WHERE start = ? AND id = ?")
        }
    }

    /// Binds `text` to parameter `index` unless it is bound there already.
    @inline(__always)
    private func bind(_ index: Int32, text: String?) throws(SQLiteError) {
        let slot = Int(index)
        if case let .some(bound) = boundText[slot], bound == text { return }
        try statement.bind(index, text: text)
        boundText[slot] = .some(text)
    }

    /// Stores `entry` unless a record with its identity is there; returns whether it was added.
    /// `sample` is the phone sample it belongs to (its deletion takes the record with it);
    /// `repeatsSample`: the record repeats a reading another sample brings on its own (a point of
    /// a workout's series is also a sample of its type), so the export's row a sample of that
    /// reading met stands for it too.
    func insert(_ entry: ImportSession.Pending, sample: Int64? = nil, repeatsSample: Bool = false) throws -> Bool {
        let mapped = entry.mapped
        let start = Int64(entry.record.start.rounded(.down))
        if sample == nil, phoneTwin != nil, try coveredByPhone(entry, start: start) { return false }
        if let sample, let lookup = repeatsSample ? repeatedTwin : exportTwin, let claimed, let rid = try twin(lookup, entry, start: start) {
            // The export's row stands for this sample from now on: the UUID's deletion takes it (a
            // row a sample of the same reading met already stays that sample's: the reading is in
            // the archive once, as the export alone has it).
            let unclaimed = lookup.int64(1) == 1
            lookup.rewind()
            if unclaimed { try claimed.run([.integer(sample), .integer(rid)]) }
            met += 1
            return false
        }
        statement.rewind()
        if statement.clearings != clearings {
            boundText = [String??](repeating: .none, count: 16)
            clearings = statement.clearings
        }
        try statement.bind(1, integer: entry.id)
        try bind(2, text: mapped.target.metric)
        try statement.bind(3, integer: mapped.target.isTotal ? 1 : 0)
        try bind(4, text: entry.record.source)
        try bind(5, text: entry.record.deviceModel)
        try statement.bind(6, integer: start)
        try statement.bind(7, integer: Int64(entry.record.end.rounded(.down)))
        try statement.bind(8, real: mapped.value)
        try bind(9, text: mapped.target.unit)
        try bind(10, text: mapped.stage)
        try bind(11, text: mapped.activity)
        try statement.bind(12, real: mapped.duration)
        try bind(13, text: entry.day)
        try statement.bind(14, integer: run)
        try statement.bind(15, integer: sample)
        while try statement.step() {}
        guard db.changes == 1 else {
            switch existing {
            case .ignored: break
            case let .noted(seen):
                guard let found else { break }
                found.rewind()
                try found.bind(1, integer: start)
                try found.bind(2, integer: entry.id)
                if try found.step() { seen.insert(found.int64(0)) }
                found.rewind()
            case .stamped: try found?.run([.integer(run), .integer(start), .integer(entry.id)])
            }
            return false
        }
        // An export record new to the store may be a phone row's sample: the phone's row stands for
        // it and takes its identity, so the next import of it is found by that identity alone (the
        // usual re-import never looks for a twin), and no other record of the export meets that
        // row again. Looked for after the insert, which the usual re-import never gets past.
        if sample == nil, let phoneTwin, let claimed, let takenBack, let rid = try twin(phoneTwin, entry, start: start) {
            phoneTwin.rewind()
            try takenBack.run([.integer(db.lastInsertRowID)])
            try claimed.run([.integer(entry.id), .integer(run), .integer(rid)])
            if case let .noted(seen) = existing { seen.insert(rid) }
            met += 1
            return false
        }
        // Records come in runs of one day: the set is touched only when the day changes.
        if entry.day != lastTouched {
            touched.insert(entry.day)
            lastTouched = entry.day
        }
        if let spill = entry.spillDay { touched.insert(spill) }
        if totalChanges != nil, mapped.target.isTotal {
            totalChanges?.add(metric: mapped.target.metric, start: start, end: Int64(entry.record.end.rounded(.down)))
        }
        return true
    }

    // MARK: Samples met whole (decision A.14)

    /// An ECG and a heartbeat series are one sample the doors write as many records that no rule
    /// pairs one by one: the export names an ECG's device (`Watch6,1`) where the app names its
    /// source, and puts its voltages on the whole second it was recorded; it rounds each beat's
    /// rate to a whole number and its time to a centisecond. So such a sample is met whole. An
    /// export's record is not stored when a phone's sample of the same kind stands for it: an ECG
    /// recorded in the same second (two in one second cannot be taken), and its parts with it; a
    /// beat from the same source within a second of one of the phone's beats.
    private func coveredByPhone(_ entry: ImportSession.Pending, start: Int64) throws -> Bool {
        let metric = entry.mapped.target.metric
        if metric == RecordParts.electrocardiogram {
            let phone = try db.statement("SELECT 1 FROM record WHERE metric = ? AND start = ? AND origin = 0 AND sample IS NOT NULL LIMIT 1")
                .first([.text(metric), .integer(start)]) { _ in true } ?? false
            ecg = (entry.record.source, start, Int64(entry.record.end.rounded(.down)), phone)
            return phone
        }
        if metric.hasPrefix(RecordParts.electrocardiogram + ".") {
            if let ecg, ecg.source == entry.record.source, start >= ecg.start, start <= ecg.end { return ecg.covered }
            // Its ECG's record came in an earlier piece of the import (an inserter lasts one
            // piece): the stored ECG this part lies in, the phone's first when there is one.
            let found = try db.statement("""
                SELECT sample IS NOT NULL, start, end FROM record WHERE metric = ? AND origin = 0 AND start BETWEEN ? AND ? AND end >= ?
                ORDER BY sample IS NULL LIMIT 1
                """).first([.text(RecordParts.electrocardiogram), .integer(start - 120), .integer(start), .integer(start)]) {
                ($0.int64(0) == 1, $0.int64(1), $0.int64(2))
            }
            guard let (covered, from, to) = found else { return false }
            ecg = (entry.record.source, from, to, covered)
            return covered
        }
        if metric == RecordParts.heartbeat.metric {
            return try db.statement("""
                SELECT 1 FROM record WHERE metric = ? AND source = ? AND start BETWEEN ? AND ? AND origin = 0 AND sample IS NOT NULL LIMIT 1
                """).first([.text(metric), .text(entry.record.source), .integer(start - 1), .integer(start + 1)]) { _ in true } ?? false
        }
        return false
    }

    /// A phone's ECG or heartbeat series (`records`, the rows it maps to) meets the export's rows
    /// of the same sample whole: they stand, claimed by its UUID (whose deletion takes them), and
    /// its own records are not stored. Returns whether it met them.
    func adoptWhole(_ records: ArraySlice<ImportSession.Pending>, kind: String, sample: Int64) throws -> Bool {
        guard exportTwin != nil, let first = records.first else { return false }
        let start = Int64(records.lazy.map(\.record.start).min()!.rounded(.down))
        let end = Int64(records.lazy.map(\.record.end).max()!.rounded(.down))
        switch kind {
        case "ecg":
            let ecg = try db.statement("""
                SELECT source, start, end FROM record WHERE metric = ? AND start = ? AND origin = 0 AND ifnull(sample, -1) = -1 LIMIT 1
                """).first([.text(RecordParts.electrocardiogram), .integer(start)]) { ($0.text(0), $0.int64(1), $0.int64(2)) }
            guard let (source, from, to) = ecg else { return false }
            try db.statement("""
                UPDATE record SET sample = ?, matched = CASE WHEN sample = -1 THEN NULL ELSE seen END WHERE start BETWEEN ? AND ?
                AND source = ? AND origin = 0 AND ifnull(sample, -1) = -1 AND (metric = ? OR metric LIKE ?)
                """).run([.integer(sample), .integer(from), .integer(to), .text(source), .text(RecordParts.electrocardiogram),
                          .text(RecordParts.electrocardiogram + ".%")])
        case "heartbeatSeries":
            try db.statement("""
                UPDATE record SET sample = ?, matched = CASE WHEN sample = -1 THEN NULL ELSE seen END WHERE metric = ? AND source = ?
                AND start BETWEEN ? AND ? AND origin = 0 AND ifnull(sample, -1) = -1
                """).run([.integer(sample), .text(RecordParts.heartbeat.metric), .text(first.record.source), .integer(start - 1), .integer(end + 1)])
            guard db.changes > 0 else { return false }
        default:
            return false
        }
        met += 1
        return true
    }

    /// The row `statement` finds for `entry` (decision A.14's rule), if any.
    private func twin(_ statement: SQLiteStatement, _ entry: ImportSession.Pending, start: Int64) throws -> Int64? {
        let mapped = entry.mapped
        statement.rewind()
        try statement.bind(1, integer: start)
        try statement.bind(2, integer: Int64(entry.record.end.rounded(.down)))
        try statement.bind(3, text: mapped.target.metric)
        try statement.bind(4, text: entry.record.source)
        try statement.bind(5, text: mapped.stage)
        try statement.bind(6, text: mapped.activity)
        try statement.bind(7, real: mapped.value)
        try statement.bind(8, real: Self.roundingStep(entry.record.type))
        try statement.bind(9, text: mapped.activity.flatMap(WorkoutActivity.family))
        // Left stepped on the row found, for its other columns; the caller rewinds.
        guard try statement.step() else {
            statement.rewind()
            return nil
        }
        return statement.int64(0)
    }
}
