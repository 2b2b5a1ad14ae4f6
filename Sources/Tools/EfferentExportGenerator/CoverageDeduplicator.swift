/// De-duplication of one cumulative type across sources — the semantics the truths follow.
///
/// - Samples of one type from several sources are never summed twice.
/// - Sources rank Watch (a source named "…Watch…" or a device of model `Watch`) above iPhone
///   above every other app.
/// - A moment covered by a sample of a higher-ranked source is counted from that source only:
///   lower-ranked samples contribute nothing for it.
/// - A lower-ranked sample that is partly covered counts in proportion to its uncovered time
///   (`value × uncovered / duration`, prorated linearly); an instantaneous sample counts whole
///   unless its instant lies inside a higher-ranked sample (half-open `[start, end)`).
/// - Samples of one source never overlap each other here, so within a rank they simply add.
/// - A sample belongs to the local day its start falls on (none crosses midnight).
struct CoverageDeduplicator {
    /// How the lower-ranked samples fared, for the truths' overlap tally.
    struct Tally: Sendable, Equatable {
        var fullyCovered = 0
        var partlyCovered = 0
        var uncovered = 0
    }

    /// The de-duplicated sum, in the samples' fixed-point unit, and the tally.
    static func total(_ samples: [(sample: Sample, priority: Int)]) -> (sum: Double, tally: Tally) {
        var tally = Tally()
        var sum = 0.0
        let ranks = Set(samples.map(\.priority)).sorted()
        var covered = [(Int64, Int64)]() // sorted, merged intervals of every higher rank so far
        for rank in ranks {
            let mine = samples.filter { $0.priority == rank }.map(\.sample)
            for sample in mine {
                if covered.isEmpty {
                    sum += Double(sample.value)
                    if rank != ranks[0] { tally.uncovered += 1 }
                    continue
                }
                let duration = sample.end - sample.start
                let overlap = duration == 0
                    ? (covered.contains { $0.0 <= sample.start && sample.start < $0.1 } ? 1 : 0)
                    : covered.reduce(Int64(0)) { $0 + max(0, min($1.1, sample.end) - max($1.0, sample.start)) }
                let whole = duration == 0 ? 1 : duration
                if overlap == 0 {
                    sum += Double(sample.value)
                    tally.uncovered += 1
                } else if overlap >= whole {
                    tally.fullyCovered += 1
                } else {
                    sum += Double(sample.value) * Double(whole - overlap) / Double(whole)
                    tally.partlyCovered += 1
                }
            }
            covered = merge(covered + mine.map { ($0.start, $0.end) })
        }
        return (sum, tally)
    }

    private static func merge(_ intervals: [(Int64, Int64)]) -> [(Int64, Int64)] {
        var out = [(Int64, Int64)]()
        for interval in intervals.sorted(by: { $0.0 < $1.0 }) {
            if let last = out.last, interval.0 <= last.1 {
                out[out.count - 1].1 = max(last.1, interval.1)
            } else {
                out.append(interval)
            }
        }
        return out
    }
}
