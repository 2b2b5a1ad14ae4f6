import EfferentSQLite
import EfferentCore

/// A total computed outside the archive over one hour or one day — HealthKit's own statistics,
/// de-duplicated across sources, as a phone's receiver hands them over (`RecordTransaction.supply`)
/// — which stands for the archive's own total of that hour or day where it fits (documents/
/// protocol.md, "Live sync from a phone"): its sum is the figure the Health app shows, so it is
/// preferred to one computed from raw samples. Instants are Unix seconds.
public struct SuppliedTotal: Sendable, Equatable {
    /// The HealthKit quantity type, as a raw sample of it names it.
    public let type: String
    public let unit: String?
    /// A day total (else an hour's).
    public let isDay: Bool
    public let start: Double
    public let end: Double
    /// nil: the hour or day holds no samples.
    public let value: Double?

    public init(type: String, unit: String?, isDay: Bool, start: Double, end: Double, value: Double?) {
        self.type = type
        self.unit = unit
        self.isDay = isDay
        self.start = start
        self.end = end
        self.value = value
    }
}

/// How a day's totals take the supplied ones (`DayBuilder`).
public enum SuppliedTotals {
    /// One supplied total mapped to its metric and wire unit.
    public struct Bucket: Sendable, Equatable {
        public let metric: String
        public let unit: String?
        public let start: Int64
        public let end: Int64
        /// A day total (else an hour).
        public let isDay: Bool
        /// nil: HealthKit holds no samples in the bucket.
        public let value: Double?
    }

    /// The totals of one local day `[start, end)` for the metrics the supplied totals cover:
    /// - the day total is the day bucket starting and ending exactly on the day's bounds; else
    ///   the sum of hour buckets when one starts on every hour of the day; else nil (raw samples
    ///   decide);
    /// - an hour total is the hour bucket starting and ending exactly on that hour; else nil.
    /// A bucket whose value is null counts as present and empty: no total is written for it.
    struct Day {
        var day: [String: Double?] = [:]
        var hours: [String: [Int64: Double?]] = [:]
        var units: [String: String?] = [:]
    }

    static func day(_ buckets: [Bucket], start: Int64, end: Int64, hours: [(start: Int64, end: Int64)]) -> Day {
        var result = Day()
        var hourly = [String: [Int64: Double?]]()
        for bucket in buckets {
            result.units[bucket.metric] = bucket.unit
            if bucket.isDay {
                if bucket.start == start && bucket.end == end { result.day[bucket.metric] = .some(bucket.value.map(rounded)) }
            } else if let hour = hours.first(where: { $0.start == bucket.start }), hour.end == bucket.end {
                hourly[bucket.metric, default: [:]][hour.start] = .some(bucket.value.map(rounded))
            }
        }
        for (metric, values) in hourly {
            result.hours[metric] = values
            guard result.day[metric] == nil, values.count == hours.count else { continue }
            let present = values.values.compactMap { $0 }
            result.day[metric] = .some(present.isEmpty ? nil : rounded(present.reduce(0, +)))
        }
        return result
    }

    /// Sums are kept to a millionth of the unit, as the archive's own (`TotalsCalculator`).
    static func rounded(_ value: Double) -> Double { (value * 1_000_000).rounded() / 1_000_000 }
}

extension SourceStore {
    /// The supplied totals that start within `[start, end)` (Unix seconds) and stand (none of what
    /// they cover changed since), each mapped to its metric as a raw sample of its type would be;
    /// one of a type that is no total, or in a unit with no exact conversion, is left out (its
    /// raw samples decide).
    public func suppliedTotals(from start: Int64, to end: Int64) throws -> [SuppliedTotals.Bucket] {
        let rows = try serialized {
            try db.statement("""
                SELECT type, width, start, end, value, unit FROM supplied_total WHERE start >= ? AND start < ? AND stale = 0
                """).rows([.real(Double(start)), .real(Double(end))]) { row in
                (row.text(0), row.text(1) == "day", row.double(2), row.double(3), row.isNull(4) ? nil : row.double(4), row.optionalText(5))
            }
        }
        return rows.compactMap { type, isDay, bucketStart, bucketEnd, value, unit in
            let sample = SourceRecord(kind: .quantity, type: type, source: "", start: bucketStart, end: bucketEnd, value: value ?? 0, unit: unit)
            guard case let .success(mapped) = MetricMapping.map(sample), mapped.target.isTotal,
                  bucketStart == bucketStart.rounded(.down), bucketEnd == bucketEnd.rounded(.down) else { return nil }
            return SuppliedTotals.Bucket(metric: mapped.target.metric, unit: mapped.target.unit, start: Int64(bucketStart), end: Int64(bucketEnd),
                                         isDay: isDay, value: value == nil ? nil : mapped.value)
        }
    }
}
