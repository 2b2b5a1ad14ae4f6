/// Sums one metric's samples into buckets without counting any moment twice (§4.1).
///
/// Sources are taken in priority order. A sample counts only for the time no higher-priority
/// source covers; a partly covered sample counts in proportion to its uncovered time, spread
/// evenly over that time (prorated), which is what Apple's own statistics do. Samples of one
/// source add up. An instant sample (start = end) counts where no higher source covers it.
public enum TotalsCalculator {
    public struct Sample: Sendable, Equatable {
        public let start: Int64
        public let end: Int64
        public let value: Double
        /// Lower is more trusted; equal ranks add up.
        public let rank: Int
        /// Ties between sources of one class are broken by name so they never overlap-count.
        public let source: String

        public init(start: Int64, end: Int64, value: Double, rank: Int, source: String) {
            self.start = start
            self.end = end
            self.value = value
            self.rank = rank
            self.source = source
        }
    }

    /// The total of each bucket `[start, end)`; `nil` where no sample reached the bucket (empty
    /// buckets are skipped, not sent as 0).
    public static func totals(of samples: [Sample], buckets: [(start: Int64, end: Int64)]) -> [Double?] {
        var sums = [Double?](repeating: nil, count: buckets.count)
        guard let first = buckets.first?.start, let last = buckets.last?.end else { return sums }
        var covered = IntervalSet()
        let groups = Dictionary(grouping: samples) { RankKey(rank: $0.rank, source: $0.source) }
        for key in groups.keys.sorted() {
            let group = groups[key] ?? []
            for sample in group {
                guard sample.value.isFinite else { continue }
                if sample.end <= sample.start {
                    guard sample.start >= first, sample.start < last, !covered.contains(sample.start),
                          let index = bucketIndex(sample.start, buckets) else { continue }
                    sums[index] = (sums[index] ?? 0) + sample.value
                    continue
                }
                let density = sample.value / Double(sample.end - sample.start)
                for piece in covered.uncovered(sample.start, sample.end) {
                    let lower = max(piece.start, first), upper = min(piece.end, last)
                    guard lower < upper else { continue }
                    for (index, bucket) in buckets.enumerated() where bucket.end > lower && bucket.start < upper {
                        let overlap = min(bucket.end, upper) - max(bucket.start, lower)
                        sums[index] = (sums[index] ?? 0) + density * Double(overlap)
                    }
                }
            }
            covered.insert(contentsOf: group.filter { $0.end > $0.start }.map { ($0.start, $0.end) })
        }
        // Sums of prorated doubles carry noise in the last bits; a millionth of a unit is kept.
        return sums.map { $0.map { ($0 * 1_000_000).rounded() / 1_000_000 } }
    }

    static func bucketIndex(_ moment: Int64, _ buckets: [(start: Int64, end: Int64)]) -> Int? {
        buckets.firstIndex { moment >= $0.start && moment < $0.end }
    }

    struct RankKey: Hashable, Comparable {
        let rank: Int
        let source: String
        static func < (a: RankKey, b: RankKey) -> Bool { (a.rank, a.source) < (b.rank, b.source) }
    }
}

/// Disjoint half-open intervals, kept sorted and merged.
struct IntervalSet {
    private(set) var intervals: [(start: Int64, end: Int64)] = []

    /// The index of the first interval ending after `moment` (binary search).
    private func firstEnding(after moment: Int64) -> Int {
        var low = 0, high = intervals.count
        while low < high {
            let middle = (low + high) / 2
            if intervals[middle].end <= moment { low = middle + 1 } else { high = middle }
        }
        return low
    }

    func contains(_ moment: Int64) -> Bool {
        let index = firstEnding(after: moment)
        return index < intervals.count && intervals[index].start <= moment
    }

    /// The parts of `[start, end)` no interval covers.
    func uncovered(_ start: Int64, _ end: Int64) -> [(start: Int64, end: Int64)] {
        var pieces = [(start: Int64, end: Int64)]()
        var cursor = start
        var index = firstEnding(after: start)
        while index < intervals.count, intervals[index].start < end {
            if intervals[index].start > cursor { pieces.append((cursor, intervals[index].start)) }
            cursor = max(cursor, intervals[index].end)
            if cursor >= end { break }
            index += 1
        }
        if cursor < end { pieces.append((cursor, end)) }
        return pieces
    }

    /// Adds many intervals at once: one sort and one merge.
    mutating func insert(contentsOf added: [(start: Int64, end: Int64)]) {
        guard !added.isEmpty else { return }
        let all = (intervals + added).sorted { $0.start < $1.start }
        var merged = [(start: Int64, end: Int64)]()
        merged.reserveCapacity(all.count)
        for interval in all {
            if let last = merged.last, interval.start <= last.end {
                merged[merged.count - 1].end = max(last.end, interval.end)
            } else {
                merged.append(interval)
            }
        }
        intervals = merged
    }
}
