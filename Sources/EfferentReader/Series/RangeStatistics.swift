import EfferentCore

/// What a chart's range adds up to: for a total, its days' total, mean day, lowest and highest
/// day; for a reading, the mean, minimum and maximum of every reading in it. Rounded to 3
/// decimals, as `statistics` rounds.
public struct RangeStatistics: Sendable, Equatable {
    public let isTotal: Bool
    /// Days with a total, or readings.
    public let count: Int
    public let mean: Double?
    public let min: Double?
    public let max: Double?
    /// Totals only: the sum over the range.
    public let total: Double?
    /// Totals only: the days holding the minimum and the maximum.
    public let minDay: CalendarDay?
    public let maxDay: CalendarDay?

    public init(_ values: DayValues) {
        isTotal = values.isTotal
        if values.isTotal {
            let days = values.totals.sorted { $0.key < $1.key }
            count = days.count
            let sum = days.reduce(0) { $0 + $1.value }
            total = days.isEmpty ? nil : Distribution.round3(sum)
            mean = days.isEmpty ? nil : Distribution.round3(sum / Double(days.count))
            let lowest = days.min { $0.value < $1.value }, highest = days.max { $0.value < $1.value }
            min = lowest.map { Distribution.round3($0.value) }
            max = highest.map { Distribution.round3($0.value) }
            minDay = lowest?.key
            maxDay = highest?.key
        } else {
            var merged: ValueSummary?
            for (_, summary) in values.readings.sorted(by: { $0.key < $1.key }) {
                if merged == nil { merged = summary } else { merged!.merge(summary) }
            }
            count = merged?.count ?? 0
            mean = merged.map { Distribution.round3($0.mean) }
            min = merged.map { Distribution.round3($0.min) }
            max = merged.map { Distribution.round3($0.max) }
            total = nil
            minDay = nil
            maxDay = nil
        }
    }

    public var json: JSONValue {
        func number(_ value: Double?) -> JSONValue { value.map(JSONValue.number) ?? .null }
        var members: [String: JSONValue] = [
            "over": .string(isTotal ? "daily totals" : "readings"), "count": .number(Double(count)),
            "mean": number(mean), "min": number(min), "max": number(max),
        ]
        if isTotal {
            members["total"] = number(total)
            members["minDay"] = minDay.map { .string($0.description) } ?? .null
            members["maxDay"] = maxDay.map { .string($0.description) } ?? .null
        }
        return .object(members)
    }
}
