import EfferentSQLite
import EfferentCore

/// HealthKit's own totals, as the phone sends them (aggregate lines, §4.5), taken as the
/// archive's hour and day totals where they fit (documents/protocol.md, "Live sync from a
/// phone"). HealthKit de-duplicates overlapping sources itself; with `deviceFilter` `all` its sum
/// is the figure the Health app shows, so it is preferred to one computed from raw samples.
public enum PhoneTotals {
    /// One bucket that is a total, mapped to its metric and wire unit. Instants are Unix seconds.
    public struct Bucket: Sendable, Equatable {
        public let metric: String
        public let unit: String?
        public let start: Int64
        public let end: Int64
        /// A day bucket (else an hour).
        public let isDay: Bool
        /// nil: HealthKit holds no samples in the bucket.
        public let value: Double?
    }

    /// Whether a bucket can stand for a total: a sum over all devices, exactly one hour or one day.
    static func isTotal(_ identity: PulsAggregate.Identity) -> Bool {
        identity.function == "sum" && identity.deviceFilter == "all" && identity.intervalValue == 1
            && (identity.intervalUnit == "hour" || identity.intervalUnit == "day")
    }

    /// The totals of one local day `[start, end)` for the metrics the phone's buckets cover:
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
    /// The phone's total buckets that start within `[start, end)` (Unix seconds), each mapped to its
    /// metric as a raw sample of its type would be; a bucket of a type that is no total, or in a
    /// unit with no exact conversion, is left out (its raw samples decide).
    public func phoneTotals(from start: Int64, to end: Int64) throws -> [PhoneTotals.Bucket] {
        let rows = try serialized {
            try db.statement("""
                SELECT type, interval_unit, bucket_start, bucket_end, value, unit FROM phone_aggregate
                WHERE func = 'sum' AND device_filter = 'all' AND interval_value = 1 AND interval_unit IN ('hour', 'day')
                AND bucket_start >= ? AND bucket_start < ? AND stale = 0
                """).rows([.real(Double(start) * 1000), .real(Double(end) * 1000)]) { row in
                (row.text(0), row.text(1) == "day", row.double(2) / 1000, row.double(3) / 1000, row.isNull(4) ? nil : row.double(4),
                 row.optionalText(5))
            }
        }
        return rows.compactMap { type, isDay, bucketStart, bucketEnd, value, unit in
            let sample = SourceRecord(kind: .quantity, type: type, source: "", start: bucketStart, end: bucketEnd, value: value ?? 0, unit: unit)
            guard case let .success(mapped) = MetricMapping.map(sample), mapped.target.isTotal,
                  bucketStart == bucketStart.rounded(.down), bucketEnd == bucketEnd.rounded(.down) else { return nil }
            return PhoneTotals.Bucket(metric: mapped.target.metric, unit: mapped.target.unit, start: Int64(bucketStart), end: Int64(bucketEnd),
                                      isDay: isDay, value: value == nil ? nil : mapped.value)
        }
    }
}
