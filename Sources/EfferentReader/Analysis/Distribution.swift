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

    /// The summary of the list holding each `counts` value as many times as it says (ascending
    /// values, each counted once at least), without making the list: the same figures to the bit
    /// as `init(_:)` over it, which sorts it and adds it up in that order. `nil` when empty.
    init?(counts: [MirrorDigest.ValueCount]) {
        guard !counts.isEmpty else { return nil }
        var total = 0.0, count = 0
        for item in counts {
            total = Self.add(item.value, times: item.count, to: total)
            count += item.count
        }
        n = count
        func value(at rank: Int) -> Double {
            var seen = 0
            for item in counts {
                seen += item.count
                if rank < seen { return item.value }
            }
            return counts[counts.count - 1].value
        }
        func percentile(_ p: Double) -> Double {
            let rank = p * Double(count - 1)
            let low = Int(rank.rounded(.down))
            let high = Swift.min(low + 1, count - 1)
            let a = value(at: low), b = value(at: high)
            return a + (b - a) * (rank - Double(low))
        }
        min = Distribution.round3(counts[0].value)
        max = Distribution.round3(counts[counts.count - 1].value)
        p10 = Distribution.round3(percentile(0.1))
        median = Distribution.round3(percentile(0.5))
        p90 = Distribution.round3(percentile(0.9))
        mean = Distribution.round3(total / Double(count))
        sum = Distribution.round3(total)
    }

    /// `total` with `value` added `times` times, one addition after another as a sorted list is
    /// summed: at once when every partial sum is a whole number below 2^53, where each addition is
    /// exact and so is their product (heart rate, steps); otherwise one at a time.
    static func add(_ value: Double, times: Int, to total: Double) -> Double {
        let product = value.magnitude * Double(times)
        if value == value.rounded(), total == total.rounded(), product < 9_007_199_254_740_992, total.magnitude + product < 9_007_199_254_740_992 {
            return total + value * Double(times)
        }
        var sum = total
        for _ in 0..<times { sum += value }
        return sum
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
