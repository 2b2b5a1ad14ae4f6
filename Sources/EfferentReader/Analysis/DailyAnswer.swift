import EfferentCore

/// `phone_data_daily` (§10.3): one row per day, one column per total, from the day buckets.
public struct DailyAnswer: Answer {
    public let metrics: [String]
    public let range: DayRange
    /// The unit each metric's events carry (the catalogue's when none was seen).
    public let units: [String: String]
    /// `values[d][m]`: metric `m` on the range's day `d`, `nil` when the archive holds none.
    public let values: [[Double?]]

    /// Refuses a metric that is not a total (naming the totals), and ranges over 400 days.
    public init(from source: EventSource, metrics: [String], range: DayRange) throws {
        guard !metrics.isEmpty else { throw AnswerError.noMetrics }
        for metric in metrics where !MetricCatalogue.totals.contains(metric) {
            throw AnswerError.notATotal(metric: metric, isRecord: MetricCatalogue.records.contains(metric))
        }
        if range.dayCount > DayRange.Limits.dailyMaximumDays {
            throw AnswerError.rangeTooLong(days: range.dayCount, limit: DayRange.Limits.dailyMaximumDays)
        }
        self.metrics = metrics
        self.range = range
        let column = Dictionary(metrics.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        var values = [[Double?]](repeating: [Double?](repeating: nil, count: metrics.count), count: range.dayCount)
        var units: [String: String] = [:]
        // A day total is filed under the day it sums (§4.1), so the archive day names the row.
        for item in try range.readEvents(from: source) where item.event.bucket == .day && range.contains(item.day) {
            guard let index = column[item.event.metric], let value = item.event.value else { continue }
            let row = Int(item.day.daysSinceEpoch - range.since.daysSinceEpoch)
            values[row][index] = (values[row][index] ?? 0) + value
            if let unit = item.event.unit, units[item.event.metric] == nil { units[item.event.metric] = unit }
        }
        for metric in metrics where units[metric] == nil { units[metric] = MetricCatalogue.units[metric] }
        self.units = units
        self.values = values
    }

    public var json: JSONValue {
        .object(["units": .object(units.mapValues(JSONValue.string)),
                 "columns": .array(table.columns.map(JSONValue.string)),
                 "rows": .array(table.rows.map(JSONValue.array))])
    }

    public var table: AnswerTable {
        AnswerTable(columns: ["day"] + metrics,
                    rows: zip(range.days, values).map { day, row in
                        [.string(day.description)] + row.map { $0.map(JSONValue.number) ?? .null }
                    })
    }
}
