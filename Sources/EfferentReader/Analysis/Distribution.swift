import EfferentCore

/// The summary `statistics` and `sleep` give of a list of numbers: count, extremes, linear
/// percentiles (numpy's default), mean and sum, each rounded to 3 decimals.
public struct Distribution: Sendable, Equatable {
    public let n: Int
    public let min: Double
    public let p10: Double
    public let median: Double
    public let mean: Double
    public let p90: Double
    public let max: Double
    public let sum: Double

    /// `nil` for an empty list, which has no summary.
    public init?(_ values: [Double]) {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let total = sorted.reduce(0, +)
        n = sorted.count
        min = Distribution.round3(sorted[0])
        max = Distribution.round3(sorted[sorted.count - 1])
        p10 = Distribution.round3(Distribution.percentile(sorted, 0.1))
        median = Distribution.round3(Distribution.percentile(sorted, 0.5))
        p90 = Distribution.round3(Distribution.percentile(sorted, 0.9))
        mean = Distribution.round3(total / Double(sorted.count))
        sum = Distribution.round3(total)
    }

    /// The value at fraction `p` of a sorted list, interpolated linearly between the two
    /// neighbouring ranks: rank `p·(n−1)`.
    public static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        let rank = p * Double(sorted.count - 1)
        let low = Int(rank.rounded(.down))
        let high = Swift.min(low + 1, sorted.count - 1)
        return sorted[low] + (sorted[high] - sorted[low]) * (rank - Double(low))
    }

    /// Rounded half away from zero to 3 decimals.
    public static func round3(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }

    /// The answer's members; `withCount` adds `n`, `withSum` adds `sum`.
    public func json(withCount: Bool = true, withSum: Bool = true) -> [String: JSONValue] {
        var members: [String: JSONValue] = [
            "min": .number(min), "p10": .number(p10), "median": .number(median), "mean": .number(mean),
            "p90": .number(p90), "max": .number(max),
        ]
        if withCount { members["n"] = .number(Double(n)) }
        if withSum { members["sum"] = .number(sum) }
        return members
    }
}
