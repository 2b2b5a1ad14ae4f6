/// Half-open intervals of Unix seconds merged into their union: overlapping or touching
/// intervals become one, so time covered twice (two sources, one night) counts once.
public struct IntervalUnion: Sendable, Equatable {
    /// Disjoint, sorted, non-empty `[start, end)` intervals.
    public private(set) var intervals: [Range<Int64>]

    public init<S: Sequence>(_ spans: S) where S.Element == Range<Int64> {
        let sorted = spans.filter { !$0.isEmpty }.sorted { $0.lowerBound < $1.lowerBound }
        var merged: [Range<Int64>] = []
        for span in sorted {
            if let last = merged.last, span.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, span.upperBound)
            } else {
                merged.append(span)
            }
        }
        intervals = merged
    }

    /// Seconds covered.
    public var seconds: Int64 { intervals.reduce(0) { $0 + ($1.upperBound - $1.lowerBound) } }

    /// Hours covered, rounded to 3 decimals.
    public var hours: Double { Distribution.round3(Double(seconds) / 3600) }

    /// Groups of intervals whose gaps are at most `gap` seconds, each as its outer span.
    public func clusters(joiningGapsUpTo gap: Int64) -> [Range<Int64>] {
        var out: [Range<Int64>] = []
        for interval in intervals {
            if let last = out.last, interval.lowerBound - last.upperBound <= gap {
                out[out.count - 1] = last.lowerBound..<interval.upperBound
            } else {
                out.append(interval)
            }
        }
        return out
    }
}
