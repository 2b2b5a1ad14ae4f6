import EfferentSQLite
import EfferentClient
import EfferentCore

/// Changing the zone days are cut in (decision A.4): every record is filed again under its
/// local day in the new zone, and every day the ledger knows goes again.
extension SourceStore {
    /// The meta key holding the zone the records' days were cut in: the store's own word, which a
    /// profile whose save was interrupted after a re-cut is brought back in line with.
    static let zoneKey = "zone"

    /// Re-files every record under its local day in `zone`, in one transaction, and marks every
    /// day of the ledger to be rebuilt: each body names its zone, so each one changes, and a day
    /// the new cut leaves without records goes as an empty day, replacing what the archive held.
    /// Apple's ring figures stay on their own day (they are a local date, not an instant).
    /// Returns how many records moved to another day.
    @discardableResult
    public func recut(to zone: ZoneCalendar) throws -> Int {
        try serialized {
            let moved = try db.write { () throws -> Int in
                var moved = 0
                let span = try db.statement("SELECT min(start), max(start) FROM record WHERE metric NOT LIKE 'activitySummary.%'")
                    .first { row in row.isNull(0) ? nil : (row.int64(0), row.int64(1)) }.flatMap { $0 }
                if let (first, last) = span {
                    let update = try db.statement("""
                        UPDATE record SET day = ?1 WHERE start >= ?2 AND start < ?3 AND day <> ?1 AND metric NOT LIKE 'activitySummary.%'
                        """)
                    var day = zone.day(of: Double(first))
                    let lastDay = zone.day(of: Double(last))
                    while day <= lastDay {
                        let (start, end) = zone.bounds(of: day)
                        try update.run([.text(day.description), .integer(start), .integer(end)])
                        moved += db.changes
                        day = day.next
                    }
                }
                // Apple's ring figures stay on their date, over its bounds in the new zone, so the
                // store holds what an import in that zone would have stored (their identity names
                // the date, not the instants: decision A.6). They span their day's bounds in the
                // old zone, so each day's are found by that start through the (start, id) index —
                // one lookup a day, not a pass over every row (there is no index on the metric).
                let old = currentZone
                if let (first, last) = try db.statement("SELECT min(start), max(start) FROM record")
                    .first([], { row in row.isNull(0) ? nil : (row.int64(0), row.int64(1)) }).flatMap({ $0 }) {
                    // A row already there with the same start and identity is the same figure: it gives way.
                    let retime = try db.statement("""
                        UPDATE OR REPLACE record SET start = ?, end = ? WHERE start = ? AND end = ? AND origin = 0
                        AND metric >= 'activitySummary.' AND metric < 'activitySummary/'
                        """)
                    var day = old.day(of: Double(first))
                    let lastDay = old.day(of: Double(last))
                    while day <= lastDay {
                        let was = old.bounds(of: day), now = zone.bounds(of: day)
                        if was != now { try retime.run([.integer(now.start), .integer(now.end), .integer(was.start), .integer(was.end)]) }
                        day = day.next
                    }
                }
                // What an agent's item displaced is put back under its day on undo: the new day.
                let displaced = try db.statement("SELECT rowid, start FROM edit_displaced").rows { ($0.int64(0), $0.int64(1)) }
                let refile = try db.statement("UPDATE edit_displaced SET day = ? WHERE rowid = ?")
                for (row, start) in displaced { try refile.run([.text(zone.day(of: Double(start)).description), .integer(row)]) }
                try db.statement("UPDATE day SET dirty = 1, attempts = 0").run([])
                try setMeta(Self.zoneKey, zone.identifier)
                return moved
            }
            adopt(zone)
            return moved
        }
    }
}
