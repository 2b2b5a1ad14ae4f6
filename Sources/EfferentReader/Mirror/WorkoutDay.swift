import EfferentCore

/// What a workouts answer reads of one archive day, in body order: its workouts, their
/// statistics (`workout.<type>.<aggregate>` with a value, not an activity's), and the start of
/// each route fix (one per fix: the latitude row; sorted once the day is digested). Kept in the mirror's index so a decade's
/// workouts are listed without opening a day, with the same sums in the same order.
public struct WorkoutDay: Sendable, Equatable {
    public struct Session: Sendable, Equatable {
        public let start: Int64
        public let end: Int64
        public let activity: String?
        public let duration: Double?
        public let source: String?
    }

    public struct Part: Sendable, Equatable {
        public let source: String?
        public let start: Int64
        public let metric: String
        public let value: Double
    }

    public var sessions: [Session] = []
    public var parts: [Part] = []
    public var fixStarts: [Int64] = []

    public init() {}

    public var isEmpty: Bool { sessions.isEmpty && parts.isEmpty && fixStarts.isEmpty }

    /// Takes `event` if a workouts answer reads it (`WorkoutStatistics.wanted`, as it folds them).
    mutating func add(_ event: DayEvent) {
        if event.metric == "workout" {
            sessions.append(Session(start: event.start, end: event.end, activity: event.activity, duration: event.duration, source: event.source))
        } else if event.metric == RecordParts.route["latitude"]!.metric {
            fixStarts.append(event.start)
        } else if event.metric.hasPrefix("workout."), !event.metric.hasPrefix(RecordParts.workoutActivity + "."), let value = event.value {
            parts.append(Part(source: event.source, start: event.start, metric: event.metric, value: value))
        }
    }

    /// Takes the rows of `series` a workouts answer reads, in body order, as `add(_:)` takes each
    /// as an event (read from the columns: a route's fixes are thousands of rows a day).
    mutating func add(_ series: DaySeries) {
        let key = series.key, starts = series.starts
        if key.metric == "workout" {
            let ends = series.ends
            for row in 0..<series.count {
                sessions.append(Session(start: starts[row], end: ends[row], activity: series.activity(at: row),
                                        duration: series.duration(at: row), source: key.source))
            }
        } else if key.metric == RecordParts.route["latitude"]!.metric {
            fixStarts += starts
        } else if key.metric.hasPrefix("workout."), !key.metric.hasPrefix(RecordParts.workoutActivity + "."), let values = series.values {
            for row in 0..<series.count where !values[row].isNaN {
                parts.append(Part(source: key.source, start: starts[row], metric: key.metric, value: values[row]))
            }
        }
    }
}
