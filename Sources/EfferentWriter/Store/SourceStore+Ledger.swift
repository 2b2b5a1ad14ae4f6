import EfferentSQLite
import EfferentCore
import Foundation

/// The ledger of days (§9.1, §9.5): which days must go, what was last accepted, how often each
/// was refused.
extension SourceStore {
    public static let maxAttempts = 5

    public struct LedgerDay: Sendable, Equatable {
        public let day: CalendarDay
        public let digest: [UInt8]?
        public let dirty: Bool
        public let bytes: Int?
        public let attempts: Int
        /// How often the day was marked: a push clears a mark only if this has not moved since it
        /// read the day (`accepted`, `unchanged`).
        public let marks: Int
        /// Why the day was last refused, when it was.
        public let refusal: String?
        /// The listing's upload time for the writer's own last upload of the day, when known.
        public let listed: String?
    }

    private static let ledgerColumns = "digest, dirty, bytes, attempts, marks, refusal, listed"

    private static func ledgerDay(_ day: CalendarDay, _ row: SQLiteStatement, from column: Int32) -> LedgerDay {
        LedgerDay(day: day, digest: row.optionalBlob(column), dirty: row.int64(column + 1) == 1,
                  bytes: row.isNull(column + 2) ? nil : Int(row.int64(column + 2)), attempts: Int(row.int64(column + 3)),
                  marks: Int(row.int64(column + 4)), refusal: row.optionalText(column + 5), listed: row.optionalText(column + 6))
    }

    /// Days waiting to go (dirty, fewer than 5 refusals), newest first.
    public func pendingDays() throws -> [CalendarDay] {
        try serialized {
            try db.statement("SELECT day FROM day WHERE dirty = 1 AND attempts < ? ORDER BY day DESC")
                .rows([.integer(Int64(Self.maxAttempts))]) { CalendarDay($0.text(0)) }.compactMap { $0 }
        }
    }

    /// Days refused five times: kept aside until the daily check retries them.
    public func parkedDays() throws -> [CalendarDay] {
        try serialized {
            try db.statement("SELECT day FROM day WHERE dirty = 1 AND attempts >= ? ORDER BY day")
                .rows([.integer(Int64(Self.maxAttempts))]) { CalendarDay($0.text(0)) }.compactMap { $0 }
        }
    }

    public func ledger(_ day: CalendarDay) throws -> LedgerDay? {
        try serialized {
            try db.statement("SELECT \(Self.ledgerColumns) FROM day WHERE day = ?").first([.text(day.description)]) { row in
                Self.ledgerDay(day, row, from: 0)
            }
        }
    }

    /// Every day the ledger knows, with what was last accepted.
    public func ledgerDays() throws -> [LedgerDay] {
        try serialized {
            try db.statement("SELECT day, \(Self.ledgerColumns) FROM day ORDER BY day").rows { row in
                Self.ledgerDay(CalendarDay(row.text(0)) ?? ProtocolLimits.earliestDay, row, from: 1)
            }
        }
    }

    /// Parked days with the reason each was last refused.
    public func parkedDaysWithReasons() throws -> [(day: CalendarDay, refusal: String?)] {
        try serialized {
            try db.statement("SELECT day, refusal FROM day WHERE dirty = 1 AND attempts >= ? ORDER BY day")
                .rows([.integer(Int64(Self.maxAttempts))]) { row in (CalendarDay(row.text(0)), row.optionalText(1)) }
                .compactMap { entry in entry.0.map { ($0, entry.1) } }
        }
    }

    /// The archive took `day` with this fingerprint and sealed size, built when the day had been
    /// marked `marks` times: it is clean until it changes — unless it was marked again meanwhile,
    /// when it stays marked (with the fingerprint the archive now holds) for the next push.
    public func accepted(_ day: CalendarDay, digest: [UInt8], bytes: Int, marks: Int) throws {
        try serialized {
            try db.statement("""
                UPDATE day SET digest = ?, bytes = ?, attempts = 0, refusal = NULL, listed = NULL, updated = ?,
                               dirty = CASE WHEN marks = ? THEN 0 ELSE dirty END
                WHERE day = ?
                """).run([.blob(digest), .integer(Int64(bytes)), .real(Date().timeIntervalSince1970), .integer(Int64(marks)),
                          .text(day.description)])
        }
    }

    /// A day rebuilt when it had been marked `marks` times came out as last accepted: nothing to
    /// send, and nothing to do unless it was marked again meanwhile.
    public func unchanged(_ day: CalendarDay, marks: Int) throws {
        try serialized {
            try db.statement("UPDATE day SET dirty = 0, attempts = 0 WHERE day = ? AND marks = ?")
                .run([.text(day.description), .integer(Int64(marks))])
        }
    }

    /// A 4xx counts an attempt against each day of the refused request (§9.5), with its sentence.
    public func countAttempt(_ days: [CalendarDay], refusal: String? = nil) throws {
        try serialized {
            try db.write {
                let statement = try db.statement("UPDATE day SET attempts = attempts + 1, refusal = coalesce(?, refusal) WHERE day = ?")
                for day in days { try statement.run([refusal.map(SQLiteValue.text) ?? .null, .text(day.description)]) }
            }
        }
    }

    /// Parks a day at once (five attempts' worth) with the reason: a day the writer cannot build
    /// or seal under the service's limit would be refused every time. The daily check un-parks it.
    public func park(_ day: CalendarDay, refusal: String) throws {
        try serialized {
            try db.statement("UPDATE day SET attempts = ?, refusal = ? WHERE day = ?")
                .run([.integer(Int64(Self.maxAttempts)), .text(refusal), .text(day.description)])
        }
    }

    /// Records the upload time the listing showed for days the writer itself just uploaded.
    public func listed(_ times: [(day: CalendarDay, uploaded: String)]) throws {
        try serialized {
            try db.write {
                let statement = try db.statement("UPDATE day SET listed = ? WHERE day = ?")
                for entry in times { try statement.run([.text(entry.uploaded), .text(entry.day.description)]) }
            }
        }
    }

    /// The archive lacks these days or holds them with the wrong size: forget the fingerprint so
    /// they go again even if unchanged, and un-park them (§9.6).
    public func markMissing(_ days: [CalendarDay]) throws {
        try serialized {
            try db.write {
                let statement = try db.statement("""
                    INSERT INTO day (day, dirty, attempts) VALUES (?, 1, 0)
                    ON CONFLICT (day) DO UPDATE SET digest = NULL, dirty = 1, attempts = 0
                    """)
                for day in days { try statement.run([.text(day.description)]) }
            }
        }
    }

    /// The longest run of days without a record the archive still holds as empty days (decision
    /// A.12): a longer gap is left out, so a stray reading dated 1900 costs its own day, not a
    /// century of empty ones.
    public static let longestFilledGap = 366

    /// Marks the days the ledger does not know yet that the archive holds empty (§9.4 first
    /// export, decision A.12): every day of a gap of at most `longestFilledGap` days between two
    /// days the ledger knows (from the earliest imported record's on), and every day from the
    /// newest imported record's through `through`. A day holding a record is always in the
    /// ledger: its record marked it.
    public func backfill(through last: CalendarDay) throws {
        try serialized {
            guard let first = try earliestDay(), first <= last else { return }
            // Agents' records before the earliest imported one stand alone (they never move the
            // start of the archive's run of days).
            let known = try db.statement("SELECT day FROM day WHERE day >= ? AND day <= ? ORDER BY day")
                .rows([.text(first.description), .text(last.description)]) { CalendarDay($0.text(0)) }.compactMap { $0 }
            guard !known.isEmpty, let newest = try latestDay(onOrBefore: last) else { return }
            try db.write {
                let statement = try db.statement("INSERT OR IGNORE INTO day (day, dirty, attempts) VALUES (?, 1, 0)")
                func fill(after start: CalendarDay, before end: CalendarDay) throws {
                    var day = start.next
                    while day < end {
                        try statement.run([.text(day.description)])
                        day = day.next
                    }
                }
                for (earlier, later) in zip(known, known.dropFirst())
                where later.daysSinceEpoch - earlier.daysSinceEpoch - 1 <= Int64(Self.longestFilledGap) {
                    try fill(after: earlier, before: later)
                }
                try statement.run([.text(newest.description)])
                try fill(after: newest, before: last.next)
            }
        }
    }

    /// Runs a closure in one write transaction of the writer's database, holding the connection
    /// for the whole of it: a transaction begun outside the lock let another thread's statements
    /// (a receiver's batch, an import) run inside it or begin one of their own within it.
    public func transaction<T>(_ body: () throws -> T) throws -> T { try serialized { try db.write(body) } }
}
