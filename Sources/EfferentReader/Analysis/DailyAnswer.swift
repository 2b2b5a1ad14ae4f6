import EfferentCore

/// `phone_data_daily` (§10.3, decision A.9): one row per day. A total gives one column, its day
/// bucket; a reading gives three, the minimum, mean and maximum of its values that day (a reading
/// belongs to the local day its start falls on, §4.2).
public struct DailyAnswer: Answer {
    /// What one column holds.
    public struct Column: Sendable, Equatable {
        public enum Statistic: String, Sendable { case sum, min, mean, max }
        /// `steps`, or `heartRate.min` / `.mean` / `.max`.
        public let name: String
        public let metric: String
        public let statistic: Statistic
    }

    public let metrics: [String]
    public let range: DayRange
    /// The unit each metric's events carry (the catalogue's when none was seen).
    public let units: [String: String]
    public let columns: [Column]
    /// `values[d][c]`: column `c` on the range's day `d`, `nil` when the archive holds none.
    public let values: [[Double?]]

    /// Refuses a metric with no numbers (naming what to use instead) and a name neither the
    /// protocol nor the range knows; any range is answered (the MCP tools page long ones).
    public init(from source: EventSource, metrics: [String], range: DayRange) throws {
        guard !metrics.isEmpty else { throw AnswerError.noMetrics }
        for metric in metrics where MetricCatalogue.withoutValues.contains(metric) { throw AnswerError.noNumbers(metric: metric) }
        self.metrics = metrics
        self.range = range
        let wanted = Set(metrics)
        let events = try range.readEvents(from: source, matching: { wanted.contains($0) })
        let seen = Set(events.map(\.event.metric))
        for metric in metrics where !seen.contains(metric) && HealthCatalogue.describe(metric) == nil && !MetricCatalogue.totals.contains(metric) {
            throw AnswerError.unknownMetric(metric)
        }
        // One pass over the events, not one per metric: an export asks for every metric at once.
        var bucketed = Set<String>()
        for item in events where item.event.bucket != nil { bucketed.insert(item.event.metric) }
        let totals = Set(metrics.filter { MetricCatalogue.isTotal($0) || bucketed.contains($0) })
        var columns = [Column]()
        for metric in metrics where !columns.contains(where: { $0.metric == metric }) {
            if totals.contains(metric) {
                columns.append(Column(name: metric, metric: metric, statistic: .sum))
            } else {
                for statistic in [Column.Statistic.min, .mean, .max] {
                    columns.append(Column(name: "\(metric).\(statistic.rawValue)", metric: metric, statistic: statistic))
                }
            }
        }
        var sums = [[Double?]](repeating: [Double?](repeating: nil, count: columns.count), count: range.dayCount)
        var readings = [String: [Int: [Double]]]()
        var units: [String: String] = [:]
        let clock = LocalClock()
        let firstColumn = Dictionary(columns.enumerated().map { ($1.metric, $0) }, uniquingKeysWith: { first, _ in first })
        for item in events {
            guard let value = item.event.value else { continue }
            let metric = item.event.metric
            if totals.contains(metric) {
                // A day total is filed under the day it sums (§4.1), so the archive day names the row.
                guard item.event.bucket == .day, range.contains(item.day), let index = firstColumn[metric] else { continue }
                let row = Int(item.day.daysSinceEpoch - range.since.daysSinceEpoch)
                sums[row][index] = (sums[row][index] ?? 0) + value
            } else {
                let day = try clock.day(of: item.event.start, in: item.timeZone)
                guard range.contains(day) else { continue }
                readings[metric, default: [:]][Int(day.daysSinceEpoch - range.since.daysSinceEpoch), default: []].append(value)
            }
            if let unit = item.event.unit, units[metric] == nil { units[metric] = unit }
        }
        for (index, column) in columns.enumerated() where column.statistic != .sum {
            for (row, values) in readings[column.metric] ?? [:] {
                switch column.statistic {
                case .min: sums[row][index] = values.min()
                case .max: sums[row][index] = values.max()
                default: sums[row][index] = Distribution.round3(values.reduce(0, +) / Double(values.count))
                }
            }
        }
        for metric in metrics where units[metric] == nil { units[metric] = MetricCatalogue.unit(of: metric) }
        self.units = units
        self.columns = columns
        self.values = sums
    }

    /// The values of one metric's column (its sum, or the mean of a reading) per day, for charts.
    public func series(of metric: String) -> [Double?] {
        let index = columns.firstIndex { $0.metric == metric && ($0.statistic == .sum || $0.statistic == .mean) }
        return values.map { row in index.flatMap { row[$0] } }
    }

    public var emptyNote: String? {
        guard values.allSatisfy({ $0.allSatisfy { $0 == nil } }) else { return nil }
        return "no \(Self.list(metrics)) between \(range.since) and \(range.until)"
    }

    /// `steps`, `steps or activeEnergy`, `a, b or c`.
    static func list(_ names: [String]) -> String {
        names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " or " + names.last!
    }

    public var json: JSONValue {
        .object(["units": .object(units.mapValues(JSONValue.string)),
                 "columns": .array(table.columns.map(JSONValue.string)),
                 "rows": .array(table.rows.map(JSONValue.array))])
    }

    public var table: AnswerTable {
        AnswerTable(columns: ["day"] + columns.map(\.name),
                    rows: zip(range.days, values).map { day, row in
                        [.string(day.description)] + row.map { $0.map(JSONValue.number) ?? .null }
                    },
                    display: [.plain] + columns.map { ColumnDisplay.measurement(units[$0.metric], metric: $0.metric) })
    }
}
