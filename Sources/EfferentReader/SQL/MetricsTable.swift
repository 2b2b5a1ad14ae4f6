import EfferentCore
import EfferentSQLite

/// The `metrics` table, rebuilt from the per-day tallies in `series_days` after every change: a
/// metric's kind and unit are those most of its events carry (ties to the alphabetically first
/// unit, as the overview chooses), its days those holding any of its events.
enum MetricsTable {
    static func rebuild(_ db: SQLiteConnection) throws {
        struct Tally { var kinds: [String: Int] = [:]; var units: [String: Int] = [:] }
        var tallies = [String: Tally]()
        let byUnit = try db.statement("""
            SELECT s.metric, s.kind, s.unit, sum(d.events) FROM series_days d JOIN series s ON s.series_id = d.series_id
            GROUP BY s.metric, s.kind, s.unit
            """)
        for (metric, kind, unit, count) in try byUnit.rows([], { ($0.text(0), $0.text(1), $0.optionalText(2), Int($0.int64(3))) }) {
            tallies[metric, default: Tally()].kinds[kind, default: 0] += count
            if let unit { tallies[metric, default: Tally()].units[unit, default: 0] += count }
        }
        try db.execute("DELETE FROM metrics")
        let spans = try db.statement("""
            SELECT s.metric, min(d.day), max(d.day), count(DISTINCT d.day), sum(d.events)
            FROM series_days d JOIN series s ON s.series_id = d.series_id GROUP BY s.metric
            """)
        let insert = try db.statement("INSERT INTO metrics VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)")
        for (metric, first, last, days, events) in try spans.rows([], { ($0.text(0), $0.text(1), $0.text(2), $0.int64(3), $0.int64(4)) }) {
            let tally = tallies[metric] ?? Tally()
            func most(_ counts: [String: Int]) -> String? { counts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.first?.key }
            try insert.run([.text(metric), .text(most(tally.kinds) ?? "record"), most(tally.units).map(SQLiteValue.text) ?? .null,
                            .text(MetricCatalogue.humanName(of: metric)), .text(first), .text(last), .integer(days), .integer(events),
                            MetricCatalogue.note(for: metric).map(SQLiteValue.text) ?? .null])
        }
    }
}
