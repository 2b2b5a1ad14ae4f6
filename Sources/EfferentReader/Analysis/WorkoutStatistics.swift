import EfferentCore

/// A workout's statistics and route, found among the events of its days (decision A.9): the
/// `workout.<type>.<aggregate>` records of its source that start when it starts, and the route
/// fixes (of any source) inside its span.
struct WorkoutStatistics {
    /// The metrics a workouts answer reads: workouts, their parts, and one field of each route fix.
    static func wanted(_ metric: String) -> Bool { metric == "workout" || metric.hasPrefix("workout.") || metric == "workoutRoute.latitude" }

    /// The statistics of the days read, in their order, and where each start's are among them:
    /// a workout's are summed when it is filled, so a decade's parts are never keyed by source.
    private var parts: [WorkoutDay.Part] = []
    private var byStart: [Int64: [Int]] = [:]
    /// Route fix starts (one per fix: the latitude row), in runs each sorted: one run from the
    /// events, one per day from the index (a workout's fixes are counted in every run, so a
    /// decade's fixes are never gathered and sorted for an answer).
    private var fixRuns: [[Int64]] = []

    init(_ events: [ArchiveEvent]) {
        var fixes = [Int64]()
        for item in events {
            let event = item.event
            if event.metric == RecordParts.route["latitude"]!.metric {
                fixes.append(event.start)
            } else if event.metric.hasPrefix("workout."), !event.metric.hasPrefix(RecordParts.workoutActivity + "."), let value = event.value {
                take(WorkoutDay.Part(source: event.source, start: event.start, metric: event.metric, value: value))
            }
        }
        fixRuns = fixes.isEmpty ? [] : [fixes.sorted()]
    }

    private mutating func take(_ part: WorkoutDay.Part) {
        byStart[part.start, default: []].append(parts.count)
        parts.append(part)
    }

    /// The same from the mirror's index: the parts of a window's days in their order, and each
    /// day's fix starts (sorted, as the index keeps them).
    init(parts: [WorkoutDay.Part], fixDays: [[Int64]]) {
        self.parts.reserveCapacity(parts.count)
        for part in parts { take(part) }
        fixRuns = fixDays.filter { !$0.isEmpty }
    }

    func fill(_ workout: inout WorkoutsAnswer.Workout) {
        // Its source's statistics that start when it starts, each metric summed in the days' order.
        var values = [String: Double](), found = false
        for index in byStart[workout.start] ?? [] where parts[index].source == workout.source {
            values[parts[index].metric, default: 0] += parts[index].value
            found = true
        }
        if found {
            let distances = values.filter { $0.key.hasPrefix("workout.distance") && $0.key.hasSuffix(".sum") }
            if !distances.isEmpty { workout.distanceMeters = distances.values.reduce(0, +) }
            workout.activeEnergyKcal = values["workout.activeEnergy.sum"]
            workout.averageHeartRate = values["workout.heartRate.average"]
            workout.maximumHeartRate = values["workout.heartRate.maximum"]
        }
        // The fixes from its start through its end, in every run whose span reaches them.
        var count = 0
        for run in fixRuns where run[0] <= workout.end && run[run.count - 1] >= workout.start {
            count += Self.lowerBound(run, workout.end + 1) - Self.lowerBound(run, workout.start)
        }
        if count > 0 { workout.routeFixes = count }
    }

    private static func lowerBound(_ fixes: [Int64], _ moment: Int64) -> Int {
        var low = 0, high = fixes.count
        while low < high {
            let middle = (low + high) / 2
            if fixes[middle] < moment { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
