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
    /// Where added totals lie, when the store holds phone buckets they could make stale (nil: none
    /// stored, and nothing is noted).
    private(set) var totalChanges: TotalChanges?

    /// What becomes of a record that is already stored.
    enum Existing {
        /// Nothing (a receiver's batch; an import that deletes nothing).
        case ignored
        /// Its row id is noted (a full export's run, which later removes what it did not find).
        case noted(SeenRows)
        /// Its row is stamped with the run (the same, for a store too large to note in memory).
        case stamped
    }

    init(db: SQLiteConnection, run: Int64, existing: Existing) throws {
        self.db = db
        self.run = run
        self.existing = existing
        totalChanges = try SourceStore.holdsTotalBuckets(db) ? TotalChanges() : nil
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
    /// `sample` is the phone sample it belongs to (its deletion takes the record with it).
    func insert(_ entry: ImportSession.Pending, sample: Int64? = nil) throws -> Bool {
        let mapped = entry.mapped
        let start = Int64(entry.record.start.rounded(.down))
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
}
