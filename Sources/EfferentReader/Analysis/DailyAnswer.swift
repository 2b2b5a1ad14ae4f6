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
        let wanted = Set(metrics)
        // One pass over the events, a window of days at a time, not one per metric: an export asks
        // for every metric at once, and a decade never sits in memory. Whether a metric is a total
        // is known only at the end (any bucket makes it one), so each is folded both ways.
        var folds = [Fold](), foldIndex = [String: Int]()
        let clock = LocalClock()
        let rows = range.dayCount
        try range.forEachWindow(of: source, matching: { wanted.contains($0) }) { events in
            for item in events {
                let metric = item.event.metric
                let f: Int
                if let known = foldIndex[metric] { f = known } else {
                    f = folds.count
                    foldIndex[metric] = f
                    folds.append(Fold(rows: rows))
                }
                if item.event.bucket != nil { folds[f].bucketed = true }
                guard let value = item.event.value else { continue }
                // A day total is filed under the day it sums (§4.1), so the archive day names the row.
                if item.event.bucket == .day, range.contains(item.day) {
                    let row = Int(item.day.daysSinceEpoch - range.since.daysSinceEpoch)
                    folds[f].sums[row] = (folds[f].sums[row] ?? 0) + value
                    if folds[f].unitAsTotal == nil { folds[f].unitAsTotal = item.event.unit }
                }
                // A reading belongs to the local day its start falls on (§4.2).
                guard !MetricCatalogue.isTotal(metric) else { continue }
                let day: CalendarDay
                do { day = try clock.day(of: item.event.start, in: item.timeZone) } catch {
                    if folds[f].failure == nil { folds[f].failure = error }
                    continue
                }
                guard range.contains(day) else { continue }
                let row = Int(day.daysSinceEpoch - range.since.daysSinceEpoch)
                if folds[f].readings[row]?.add(value) == nil { folds[f].readings[row] = Reading(min: value, max: value, sum: value, count: 1) }
                if folds[f].unitAsReading == nil { folds[f].unitAsReading = item.event.unit }
            }
        }
        try self.init(metrics: metrics, range: range, folds: foldIndex.mapValues { folds[$0] })
    }

    /// A reading's figures on one day.
    struct Reading {
        var min: Double, max: Double, sum: Double, count: Int
        mutating func add(_ value: Double) {
            min = Swift.min(min, value)
            max = Swift.max(max, value)
            sum += value
            count += 1
        }
    }

    /// One metric folded both ways, a row per day of the range.
    struct Fold {
        var sums: [Double?]
        var readings: [Reading?]
        var bucketed = false
        var unitAsTotal: String?
        var unitAsReading: String?
        /// A reading's day that could not be told (an unknown zone): thrown if it is a reading.
        var failure: Error?

        init(rows: Int) {
            sums = Array(repeating: nil, count: rows)
            readings = Array(repeating: nil, count: rows)
        }
    }

    /// The answer from each metric's fold (the events' or the index's); `folds` holds the
    /// metrics seen on the days read.
    init(metrics: [String], range: DayRange, folds: [String: Fold]) throws {
        self.metrics = metrics
        self.range = range
        let rows = range.dayCount
        func folded(_ metric: String) -> Fold? { folds[metric] }
        for metric in metrics where folds[metric] == nil && HealthCatalogue.describe(metric) == nil && !MetricCatalogue.totals.contains(metric) {
            throw AnswerError.unknownMetric(metric)
        }
        let totals = Set(metrics.filter { MetricCatalogue.isTotal($0) || folded($0)?.bucketed == true })
        var columns = [Column]()
        for metric in metrics where !columns.contains(where: { $0.metric == metric }) {
            if totals.contains(metric) {
                columns.append(Column(name: metric, metric: metric, statistic: .sum))
            } else {
                if let failure = folded(metric)?.failure { throw failure }
                for statistic in [Column.Statistic.min, .mean, .max] {
                    columns.append(Column(name: "\(metric).\(statistic.rawValue)", metric: metric, statistic: statistic))
                }
            }
        }
        var values = [[Double?]](repeating: [Double?](repeating: nil, count: columns.count), count: rows)
        var units: [String: String] = [:]
        for (index, column) in columns.enumerated() {
            guard let fold = folded(column.metric) else { continue }
            for row in 0..<rows {
                switch column.statistic {
                case .sum: values[row][index] = fold.sums[row]
                case .min: values[row][index] = fold.readings[row]?.min
                case .max: values[row][index] = fold.readings[row]?.max
                case .mean: values[row][index] = fold.readings[row].map { Distribution.round3($0.sum / Double($0.count)) }
                }
            }
            if units[column.metric] == nil, let unit = column.statistic == .sum ? fold.unitAsTotal : fold.unitAsReading { units[column.metric] = unit }
        }
        for metric in metrics where units[metric] == nil { units[metric] = MetricCatalogue.unit(of: metric) }
        self.units = units
        self.columns = columns
        self.values = values
    }

    /// The values of one metric's column (its sum, or the mean of a reading) per day, for charts.
    public func series(of metric: String) -> [Double?] {
        let index = columns.firstIndex { $0.metric == metric && ($0.statistic == .sum || $0.statistic == .mean) }
        return values.map { row in index.flatMap { row[$0] } }
    }

    public var emptyNote: String? {
        guard values.allSatisfy({ $0.allSatisfy { $0 == nil } }) else { return nil }
        return "no \(Self.list(metrics)) \(range.phrase)"
    }

    /// `steps`, `steps or activeEnergy`, `a, b or c`.
    static func list(_ names: [String]) -> String {
        names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " or " + names.last!
    }

    /// The table's columns and rows, built here without the table's display (a page of 400 days
    /// is most of what `/api/v1/daily` spends).
    public var json: JSONValue {
        var rows = [JSONValue]()
        rows.reserveCapacity(values.count)
        var day = range.since
        // One buffer for every day's text (a day's ten bytes make a string held inline, so a
        // row's day costs no allocation).
        var text = day.ascii
        for row in values.prefix(range.dayCount) {
            var cells = [JSONValue]()
            cells.reserveCapacity(row.count + 1)
            Self.write(day, into: &text)
            cells.append(.string(String(decoding: text, as: UTF8.self)))
            for value in row { cells.append(value.map(JSONValue.number) ?? .null) }
            rows.append(.array(cells))
            day = day.next
        }
        return .object(["units": .object(units.mapValues(JSONValue.string)),
                        "columns": .array((["day"] + columns.map(\.name)).map(JSONValue.string)),
                        "rows": .array(rows)])
    }

    /// `YYYY-MM-DD` of `day` over the ten bytes of `text` (as `CalendarDay.ascii` writes it).
    private static func write(_ day: CalendarDay, into text: inout [UInt8]) {
        func digit(_ value: Int) -> UInt8 { UInt8(truncatingIfNeeded: 0x30 + value % 10) }
        text[0] = digit(day.year / 1000)
        text[1] = digit(day.year / 100)
        text[2] = digit(day.year / 10)
        text[3] = digit(day.year)
        text[5] = digit(day.month / 10)
        text[6] = digit(day.month)
        text[8] = digit(day.day / 10)
        text[9] = digit(day.day)
    }

    public var table: AnswerTable {
        AnswerTable(columns: ["day"] + columns.map(\.name),
                    rows: zip(range.days, values).map { day, row in
                        [.string(day.description)] + row.map { $0.map(JSONValue.number) ?? .null }
                    },
                    display: [.plain] + columns.map { ColumnDisplay.measurement(units[$0.metric], metric: $0.metric) })
    }
}
