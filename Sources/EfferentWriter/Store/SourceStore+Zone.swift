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
                // the date, not the instants: decision A.6). Found in one pass: there is no index
                // on the metric, and a re-cut is rare.
                let rings = try db.statement("""
                    SELECT rid, day, start, end FROM record WHERE origin = 0 AND metric >= 'activitySummary.' AND metric < 'activitySummary/'
                    """).rows { ($0.int64(0), $0.text(1), $0.int64(2), $0.int64(3)) }
                // A row already there with the same start and identity is the same figure: it gives way.
                let retime = try db.statement("UPDATE OR REPLACE record SET start = ?, end = ? WHERE rid = ?")
                for (rid, text, start, end) in rings {
                    guard let day = CalendarDay(text) else { continue }
                    let bounds = zone.bounds(of: day)
                    if bounds.start != start || bounds.end != end { try retime.run([.integer(bounds.start), .integer(bounds.end), .integer(rid)]) }
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
