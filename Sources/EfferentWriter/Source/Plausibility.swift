import EfferentCore
import Foundation

/// What a phone could have recorded, checked before a record enters the store, so one poisoned
/// record (a step count of 1.8e308, a reading dated 0001-01-01, a ten-year sleep) never blocks a
/// push or hangs the calendar: it is refused, by type and reason, in the import summary.
///
/// - instants: finite, from 1900-01-01 (the service's first day, §6) to a year after tomorrow,
///   and an end no earlier than the start;
/// - spans: a sleep stretch at most 48 h, a workout at most 7 days, a quantity at most 31 days,
///   any other category at most 400 days (a pregnancy runs 280);
/// - values: finite; totals (cumulative quantities) never negative and at most a ceiling per
///   unit that no single sample reaches; readings within bounds per metric where physiology
///   sets them, and otherwise within ±10¹² (`PhysicalBounds`, which agents' edits meet too).
enum Plausibility {
    /// 1900-01-01T00:00:00Z.
    static let earliest = Double(ProtocolLimits.earliestDay.startUnixSeconds)

    /// What a metric's records are held to: worked out once per run of one metric (`MappingRun`),
    /// since naming the metric's span and bounds takes string comparisons and table lookups.
    struct Limits {
        let maxSpan: Double
        let bounds: ClosedRange<Double>?

        init(_ target: MetricMapping.Target) {
            maxSpan = Plausibility.maxSpan(target)
            bounds = Plausibility.bounds(of: target)
        }
    }

    /// Why the record cannot be carried, or nil when it can.
    static func refusal(of record: SourceRecord, mapped: MetricMapping.Mapped, now: Double) -> LeftOut.Reason? {
        refusal(of: record, mapped: mapped, now: now, limits: Limits(mapped.target))
    }

    /// Why the record cannot be carried under its metric's `limits`, or nil when it can.
    static func refusal(of record: SourceRecord, mapped: MetricMapping.Mapped, now: Double, limits: Limits) -> LeftOut.Reason? {
        guard record.start.isFinite, record.end.isFinite else { return .unreadable("an instant that is not a number") }
        let latest = now + (366 + 1) * 86_400
        guard record.start >= earliest, record.start <= latest, record.end <= latest + limits.maxSpan else {
            return .unreadable("dated before 1900 or more than a year ahead")
        }
        guard record.end >= record.start else { return .unreadable("ends before it starts") }
        guard record.end - record.start <= limits.maxSpan else {
            return .unreadable("lasting longer than any \(mapped.target.metric) record can (\(spanText(limits.maxSpan)))")
        }
        if let value = mapped.value, !value.isFinite { return .unreadable("a value that is not a finite number") }
        if let duration = mapped.duration, !duration.isFinite { return .unreadable("a value that is not a finite number") }
        if let value = mapped.value, let bounds = limits.bounds, !bounds.contains(value) {
            return .unreadable("a value outside \(PhysicalBounds.text(bounds)) \(mapped.target.unit ?? "")"
                                   .trimmingCharacters(in: .whitespaces))
        }
        if let duration = mapped.duration, duration < 0 { return .unreadable("a negative duration") }
        return nil
    }

    /// The longest a record of the metric may last.
    static func maxSpan(_ target: MetricMapping.Target) -> Double {
        switch target.metric {
        case "sleep": 48 * 3600
        case "workout": 7 * 86_400
        default: target.unit == nil && !target.metric.contains(".") ? 400 * 86_400 : 31 * 86_400
        }
    }

    static func bounds(of target: MetricMapping.Target) -> ClosedRange<Double>? {
        PhysicalBounds.bounds(metric: target.metric, unit: target.unit, isTotal: target.isTotal)
    }

    static func spanText(_ seconds: Double) -> String {
        seconds >= 86_400 ? "\(Int(seconds / 86_400)) days" : "\(Int(seconds / 3600)) h"
    }
}
