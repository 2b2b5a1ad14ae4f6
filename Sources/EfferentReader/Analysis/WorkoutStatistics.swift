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
    /// Route fix starts (one per fix: the latitude row), sorted. (The mirror's index keeps each
    /// day's sorted and counts a workout's in each day's, `IndexedAnswers`.)
    private var fixes: [Int64] = []

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
        self.fixes = fixes.sorted()
    }

    /// `parts` by start, those of one start kept in their order (the order their values are summed in).
    private static func byStart(_ parts: [WorkoutDay.Part]) -> [WorkoutDay.Part] {
        if zip(parts, parts.dropFirst()).allSatisfy({ $0.start <= $1.start }) { return parts }
        return parts.indices.sorted { (parts[$0].start, $0) < (parts[$1].start, $1) }.map { parts[$0] }
    }

    func fill(_ workout: inout WorkoutsAnswer.Workout) {
        let start = workout.start
        var sums = Sums()
        for part in parts[Self.lowerBound(parts.count) { parts[$0].start < start }...] {
            guard part.start == start else { break }
            if part.source == workout.source { sums.add(PartKind(part.metric), part.value) { part.metric } }
        }
        sums.fill(&workout)
        // The fixes from its start through its end.
        let count = Self.fixes(in: fixes, of: workout)
        if count > 0 { workout.routeFixes = count }
    }

    /// What a statistic adds to: a workout's active energy, average or maximum heart rate, a
    /// distance, or nothing. Told once per statistic (the mirror's index keeps each one's), not
    /// by comparing its metric with each name again for each workout of a page.
    enum PartKind: UInt8, Sendable {
        case activeEnergy, averageHeartRate, maximumHeartRate, distance, other

        init(_ metric: String) {
            switch metric {
            case "workout.activeEnergy.sum": self = .activeEnergy
            case "workout.heartRate.average": self = .averageHeartRate
            case "workout.heartRate.maximum": self = .maximumHeartRate
            default: self = metric.hasPrefix("workout.distance") && metric.hasSuffix(".sum") ? .distance : .other
            }
        }
    }

    /// A workout's statistics summed from the statistics that start when it starts, in the days'
    /// order: its source's, each metric summed in that order (from 0, as a sum starts), the
    /// distance types' sums then added in the order each was first seen. No dictionary per
    /// workout: a page fills a thousand of them. (The mirror's index finds the same statistics its
    /// own way and adds them here, so both sum alike.)
    struct Sums {
        private var energy: Double?, average: Double?, maximum: Double?
        private var distances: [(metric: String, sum: Double)] = []

        /// Adds a statistic of the workout's source; `metric` is read only for a distance.
        mutating func add(_ kind: PartKind, _ value: Double, metric: () -> String) {
            switch kind {
            case .activeEnergy: energy = (energy ?? 0) + value
            case .averageHeartRate: average = (average ?? 0) + value
            case .maximumHeartRate: maximum = (maximum ?? 0) + value
            case .distance:
                let metric = metric()
                if let known = distances.firstIndex(where: { $0.metric == metric }) {
                    distances[known].sum += value
                } else {
                    distances.append((metric, 0 + value))
                }
            case .other: break
            }
        }

        func fill(_ workout: inout WorkoutsAnswer.Workout) {
            if !distances.isEmpty { workout.distanceMeters = distances.reduce(0) { $0 + $1.sum } }
            if let energy { workout.activeEnergyKcal = energy }
            if let average { workout.averageHeartRate = average }
            if let maximum { workout.maximumHeartRate = maximum }
        }
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
