import EfferentCore

/// How `statistics` groups days (§10.3).
public enum Grouping: String, Sendable, CaseIterable {
    case day, week, month, year

    /// Refuses anything but day, week, month or year.
    public init(name: String) throws(AnswerError) {
        guard let grouping = Grouping(rawValue: name) else { throw .unknownGrouping(name) }
        self = grouping
    }

    /// The group a day falls in: the day itself, its ISO week's Monday, `YYYY-MM`, or `YYYY`.
    public func group(of day: CalendarDay) -> String {
        switch self {
        case .day: return day.description
        case .week:
            // 1970-01-01 was a Thursday: Monday is index 0.
            let weekday = Int(((day.daysSinceEpoch + 3) % 7 + 7) % 7)
            return day.adding(days: -weekday).description
        case .month: return String(day.description.prefix(7))
        case .year: return String(day.description.prefix(4))
        }
    }
}

/// `phone_data_statistics` (§10.3): a distribution per group, over daily totals or individual
/// readings.
public struct StatisticsAnswer: Answer {
    public let metric: String
    public let range: DayRange
    public let unit: String?
    public let groupBy: Grouping
    /// Whether the values are daily totals (one per day) rather than individual readings.
    public let overDailyTotals: Bool
    /// By group name, ascending.
    public let rows: [(group: String, distribution: Distribution)]

    /// A total is summarised over its day buckets, a reading over each event's value; a reading
    /// belongs to the local day its start falls on (§4.2). Every metric with numbers is accepted
    /// (decision A.9): a total by the catalogue or by its events' buckets.
    public init(from source: EventSource, metric: String, range: DayRange, groupBy: Grouping = .month) throws {
        guard !MetricCatalogue.withoutValues.contains(metric) else { throw AnswerError.noStatistics(metric: metric) }
        // Read a window of days at a time, keeping numbers rather than events (a decade of heart
        // rate is millions of readings). Whether the metric is a total is known only at the end
        // (any bucket makes it one), so both foldings are kept until then.
        let catalogueTotal = MetricCatalogue.isTotal(metric)
        let clock = LocalClock()
        var fold = Fold()
        try range.forEachWindow(of: source, matching: { $0 == metric }) { events in
            for item in events {
                fold.seen = true
                if item.event.bucket != nil { fold.bucketed = true }
                guard let value = item.event.value else { continue }
                if item.event.bucket == .day, range.contains(item.day) {
                    fold.dailyTotals[item.day, default: 0] += value
                    if fold.unitAsTotal == nil { fold.unitAsTotal = item.event.unit }
                }
                guard !catalogueTotal else { continue }
                let day: CalendarDay
                do { day = try clock.day(of: item.event.start, in: item.timeZone) } catch {
                    if fold.failure == nil { fold.failure = error }
                    continue
                }
                guard range.contains(day) else { continue }
                fold.readingsByGroup[groupBy.group(of: day), default: []].append(value)
                if fold.unitAsReading == nil { fold.unitAsReading = item.event.unit }
            }
        }
        try self.init(metric: metric, range: range, groupBy: groupBy, fold: fold)
    }

    /// What the days read come to, both ways.
    struct Fold {
        var seen = false, bucketed = false
        var unitAsTotal: String?, unitAsReading: String?
        /// Readings by group, in any order (a distribution sorts them).
        var readingsByGroup: [String: [Double]] = [:]
        /// Readings by group as each value with how many readings have it, ascending (the index's
        /// value counts, never made into a list: a decade of heart rate is millions of readings).
        var readingCountsByGroup: [String: [MirrorDigest.ValueCount]] = [:]
        var dailyTotals: [CalendarDay: Double] = [:]
        var failure: Error?
    }

    /// The answer from a fold (the events' or the index's).
    init(metric: String, range: DayRange, groupBy: Grouping, fold: Fold) throws {
        self.metric = metric
        self.range = range
        self.groupBy = groupBy
        if !fold.seen, HealthCatalogue.describe(metric) == nil, !MetricCatalogue.totals.contains(metric) {
            throw AnswerError.unknownMetric(metric)
        }
        let isTotal = MetricCatalogue.isTotal(metric) || fold.bucketed
        overDailyTotals = isTotal
        if !isTotal, let failure = fold.failure { throw failure }
        let unit = isTotal ? fold.unitAsTotal : fold.unitAsReading
        var byGroup: [String: [Double]] = isTotal ? [:] : fold.readingsByGroup
        if isTotal {
            for (day, total) in fold.dailyTotals { byGroup[groupBy.group(of: day), default: []].append(total) }
        }
        self.unit = unit ?? MetricCatalogue.unit(of: metric)
        var rows = byGroup.keys.map { ($0, Distribution(byGroup[$0]!)!) }
        if !isTotal {
            for (group, counts) in fold.readingCountsByGroup { if let distribution = Distribution(counts: counts) { rows.append((group, distribution)) } }
        }
        self.rows = rows.sorted { $0.0 < $1.0 }
    }

    public var emptyNote: String? { rows.isEmpty ? "no \(metric) \(range.phrase)" : nil }

    public var json: JSONValue {
        var members: [String: JSONValue] = [
            "metric": .string(metric), "unit": unit.map(JSONValue.string) ?? .null,
            "over": .string(overDailyTotals ? "daily totals, one value per day" : "individual readings"),
            "groupBy": .string(groupBy.rawValue),
            "rows": .array(rows.map { row in
                var object = row.distribution.json()
                object["group"] = .string(row.group)
                return .object(object)
            }),
        ]
        if let note = MetricCatalogue.note(for: metric) { members["unitNote"] = .string(note) }
        return .object(members)
    }

    public static let columns = ["group", "n", "min", "p10", "median", "mean", "p90", "max", "sum"]

    /// A sum of readings (heart rate, weight) means nothing: the table shows one only for totals.
    public var table: AnswerTable {
        let columns = overDailyTotals ? Self.columns : Self.columns.filter { $0 != "sum" }
        let value = ColumnDisplay.measurement(unit, metric: metric)
        return AnswerTable(columns: columns, rows: rows.map { row in
            let object = row.distribution.json()
            return [.string(row.group)] + columns.dropFirst().map { object[$0]! }
        }, display: [.plain, .whole] + Array(repeating: value, count: columns.count - 2))
    }
}
