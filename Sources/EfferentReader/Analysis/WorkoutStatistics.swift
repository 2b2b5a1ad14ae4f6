import EfferentCore

/// A workout's statistics and route, found among the events of its days (decision A.9): the
/// `workout.<type>.<aggregate>` records of its source that start when it starts, and the route
/// fixes (of any source) inside its span.
struct WorkoutStatistics {
    /// The metrics a workouts answer reads: workouts, their parts, and one field of each route fix.
    static func wanted(_ metric: String) -> Bool { metric == "workout" || metric.hasPrefix("workout.") || metric == "workoutRoute.latitude" }

    /// The statistics of the days read, by start, those of one start in the days' order: a
    /// workout's are found by a binary search and summed when it is filled (no dictionary of
    /// starts, so a decade's parts are never keyed by start or source).
    private var parts: [WorkoutDay.Part] = []
    /// Route fix starts (one per fix: the latitude row), in runs each sorted: one run from the
    /// events, one per day from the index (a workout's fixes are counted in every run, so a
    /// decade's fixes are never gathered and sorted for an answer).
    private var fixRuns: [[Int64]] = []
    /// The first and last fix start of each run, side by side: a workout checks every run of its
    /// window, and reading each run's own storage for that was a cache miss a run.
    private var runSpans: [(first: Int64, last: Int64)] = []

    init(_ events: [ArchiveEvent]) {
        var fixes = [Int64](), parts = [WorkoutDay.Part]()
        for item in events {
            let event = item.event
            if event.metric == RecordParts.route["latitude"]!.metric {
                fixes.append(event.start)
            } else if event.metric.hasPrefix("workout."), !event.metric.hasPrefix(RecordParts.workoutActivity + "."), let value = event.value {
                parts.append(WorkoutDay.Part(source: event.source, start: event.start, metric: event.metric, value: value))
            }
        }
        self.parts = Self.byStart(parts)
        fixRuns = fixes.isEmpty ? [] : [fixes.sorted()]
        runSpans = fixRuns.map { ($0[0], $0[$0.count - 1]) }
    }

    /// The same from the mirror's index: the parts of a window's days in their order, and each
    /// day's fix starts (sorted, as the index keeps them).
    init(parts: [WorkoutDay.Part], fixDays: [[Int64]]) {
        self.parts = Self.byStart(parts)
        fixRuns = fixDays.filter { !$0.isEmpty }
        runSpans = fixRuns.map { ($0[0], $0[$0.count - 1]) }
    }

    /// `parts` by start, those of one start kept in their order (the order their values are summed in).
    private static func byStart(_ parts: [WorkoutDay.Part]) -> [WorkoutDay.Part] {
        if zip(parts, parts.dropFirst()).allSatisfy({ $0.start <= $1.start }) { return parts }
        return parts.indices.sorted { (parts[$0].start, $0) < (parts[$1].start, $1) }.map { parts[$0] }
    }

    func fill(_ workout: inout WorkoutsAnswer.Workout) {
        let start = workout.start, first = Self.lowerBound(parts.count) { parts[$0].start < start }
        Self.sum(parts[first...].lazy.prefix { $0.start == start }, into: &workout)
        // The fixes from its start through its end, in every run whose span reaches them.
        var count = 0
        for (index, span) in runSpans.enumerated() where span.first <= workout.end && span.last >= workout.start {
            count += Self.fixes(in: fixRuns[index], of: workout)
        }
        if count > 0 { workout.routeFixes = count }
    }

    /// Fills in `workout`'s statistics from `parts`, the statistics that start when it starts in
    /// the days' order: its source's, each metric summed in that order (from 0, as a sum starts),
    /// the distance types' sums then added in the order each was first seen. No dictionary per
    /// workout: a page fills a thousand of them. (The mirror's index finds the same parts its
    /// own way and fills them here, so both sum alike.)
    static func sum(_ parts: some Sequence<WorkoutDay.Part>, into workout: inout WorkoutsAnswer.Workout) {
        var energy: Double?, average: Double?, maximum: Double?
        var distances: [(metric: String, sum: Double)] = []
        for part in parts where part.source == workout.source {
            switch part.metric {
            case "workout.activeEnergy.sum": energy = (energy ?? 0) + part.value
            case "workout.heartRate.average": average = (average ?? 0) + part.value
            case "workout.heartRate.maximum": maximum = (maximum ?? 0) + part.value
            default:
                guard part.metric.hasPrefix("workout.distance"), part.metric.hasSuffix(".sum") else { continue }
                if let known = distances.firstIndex(where: { $0.metric == part.metric }) {
                    distances[known].sum += part.value
                } else {
                    distances.append((part.metric, 0 + part.value))
                }
            }
        }
        if !distances.isEmpty { workout.distanceMeters = distances.reduce(0) { $0 + $1.sum } }
        if let energy { workout.activeEnergyKcal = energy }
        if let average { workout.averageHeartRate = average }
        if let maximum { workout.maximumHeartRate = maximum }
    }

    /// The fixes of `run` (sorted starts) from `workout`'s start through its end.
    static func fixes(in run: [Int64], of workout: WorkoutsAnswer.Workout) -> Int {
        lowerBound(run.count) { run[$0] <= workout.end } - lowerBound(run.count) { run[$0] < workout.start }
    }

    /// The first of `0..<count` for which `before` is false (`before` holds for a prefix).
    static func lowerBound(_ count: Int, _ before: (Int) -> Bool) -> Int {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if before(middle) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
