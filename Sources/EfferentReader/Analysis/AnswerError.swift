import EfferentCore

/// Why an answer was refused: each description is one sentence saying what to ask instead.
public enum AnswerError: Error, Equatable, CustomStringConvertible {
    /// `daily` was asked for something that is not a total.
    case notATotal(metric: String, isRecord: Bool)
    /// `statistics` was asked for a metric with no numbers to summarise.
    case noStatistics(metric: String)
    /// A range longer than the answer allows.
    case rangeTooLong(days: Int, limit: Int)
    /// `until` names a day before `since`.
    case untilBeforeSince(since: CalendarDay, until: CalendarDay)
    /// A row limit outside what the answer allows.
    case limitOutOfRange(limit: Int, maximum: Int)
    /// A question that needs a metric was asked without one.
    case metricRequired
    /// `daily` was asked for no metric at all.
    case noMetrics
    /// A `groupBy` other than day, week, month or year.
    case unknownGrouping(String)
    /// A workout activity name the catalogue does not know.
    case unknownActivity(String)
    /// A day of the archive names a time zone this machine does not know.
    case unknownTimeZone(String)

    public var description: String {
        switch self {
        case let .notATotal(metric, isRecord):
            let totals = MetricCatalogue.totals.joined(separator: ", ")
            return isRecord
                ? "daily takes totals: \(totals); \(metric) is a record — use samples or statistics."
                : "daily takes totals: \(totals); \(metric) is not one of them."
        case let .noStatistics(metric):
            let allowed = (MetricCatalogue.totals + MetricCatalogue.readingRecords).joined(separator: ", ")
            return "statistics takes a total or a reading: \(allowed); \(metric) is neither — use sleep, workouts or samples."
        case let .rangeTooLong(days, limit):
            return "a range of \(limit) days at most; \(days) days were asked for, so narrow since or until."
        case let .untilBeforeSince(since, until):
            return "until is before since (\(until) < \(since)); swap them or pick a later until."
        case let .limitOutOfRange(limit, maximum):
            return "limit must be between 1 and \(maximum); \(limit) was asked for."
        case .metricRequired:
            return "samples needs a metric such as heartRate or steps; the overview lists those the archive holds."
        case .noMetrics:
            return "daily needs at least one metric such as steps; the overview lists those the archive holds."
        case let .unknownGrouping(name):
            return "groupBy is day, week, month or year; \(name) is none of them."
        case let .unknownActivity(name):
            let known = Set(MetricCatalogue.activityNames.values).sorted().joined(separator: ", ")
            return "activity \(name) is not a workout name; use one of \(known), or activity-<n>."
        case let .unknownTimeZone(zone):
            return "the archive cuts days in \(zone), a time zone this machine does not know; install the tz database (tzdata)."
        }
    }
}
