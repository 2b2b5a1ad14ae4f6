import EfferentCore

/// Why an answer was refused: each description is one sentence saying what to ask instead.
public enum AnswerError: Error, Equatable, CustomStringConvertible {
    /// `daily` was asked for a metric whose records carry no number (sleep, workouts).
    case noNumbers(metric: String)
    /// `statistics` was asked for a metric with no numbers to summarise.
    case noStatistics(metric: String)
    /// A metric the protocol does not name and the archive does not hold.
    case unknownMetric(String)
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
    /// A metric name neither the protocol nor the archive knows, even ignoring case: the closest
    /// known name, and the names the archive holds.
    case unknownMetricName(String, closest: String?, held: [String])
    /// An activity name neither the catalogue nor the archive's workouts know, even ignoring case.
    case unknownActivityName(String, closest: String?, valid: [String])
    /// A day of the archive names a time zone this machine does not know.
    case unknownTimeZone(String)
    /// `export route` named a start no workout has.
    case noWorkoutStarting(Int64)
    /// `export route` named a workout with no GPS fixes.
    case noRoute(Int64)

    /// Whether the question itself was wrong (a name, a range, a limit): the CLI exits 64 for these.
    public var isUsage: Bool {
        switch self {
        case .unknownTimeZone, .noWorkoutStarting, .noRoute: false
        default: true
        }
    }

    public var description: String {
        switch self {
        case let .noNumbers(metric):
            return "daily sums totals and gives the minimum, mean and maximum of readings; \(metric) has no numbers — use sleep, workouts or samples."
        case let .noStatistics(metric):
            return "statistics summarises totals and readings; \(metric) has no numbers — use sleep, workouts or samples."
        case let .unknownMetric(metric):
            return "\(metric.prefix(80)) is neither a metric the protocol names nor one in these days; the overview lists those the archive holds."
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
        case let .unknownMetricName(name, closest, held):
            let guess = closest.map { " (the closest is \($0))" } ?? ""
            let names = held.isEmpty ? "the mirror holds no metric yet (efferent sync fetches the archive)"
                : "this archive holds \(held.joined(separator: ", "))"
            return "\(name) is not a metric name\(guess); \(names), and the protocol defines \(NameResolver.protocolMetrics.count) names in all (efferent overview lists the archive's with their units)."
        case let .unknownActivityName(name, closest, valid):
            let guess = closest.map { " (the closest is \($0))" } ?? ""
            return "\(name) is not a workout activity\(guess); use one of \(valid.joined(separator: ", ")), or activity-<n> for HealthKit's number n."
        case let .noWorkoutStarting(start):
            return "no workout starts at \(ISOInstant.text(start)); efferent workouts lists each workout's start."
        case let .noRoute(start):
            return "the workout starting at \(ISOInstant.text(start)) has no GPS route in the archive; workouts shows routeFixes for those that do."
        case let .unknownTimeZone(zone):
            return "the archive cuts days in \(zone), a time zone this machine does not know; install the tz database (tzdata)."
        }
    }
}
