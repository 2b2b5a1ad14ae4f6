import EfferentCore

/// What a reader knows about the metrics of protocol §4 and decision A.9: which are totals,
/// which are records, the notes a unit needs, the sleep stages and the workout activity names.
public enum MetricCatalogue {
    /// The twelve totals of §4.1 (`TOTALS` of the reference reader, §4.3), in catalogue order.
    public static let totals = [
        "steps", "distanceWalkingRunning", "activeEnergy", "basalEnergy", "flightsClimbed", "exerciseTime",
        "standTime", "dietaryEnergy", "dietaryProtein", "dietaryCarbohydrates", "dietaryFat", "dietaryWater",
    ]

    /// The records of §4.2 (`RECORDS`, §4.3).
    public static let records = [
        "heartRate", "restingHeartRate", "heartRateVariability", "respiratoryRate", "oxygenSaturation",
        "bodyMass", "sleep", "workout",
    ]

    /// The records whose readings carry a number `statistics` can summarise (§10.3).
    public static let readingRecords = [
        "heartRate", "restingHeartRate", "heartRateVariability", "respiratoryRate", "oxygenSaturation", "bodyMass",
    ]

    /// The unit each catalogue metric is written with (§4.1, §4.2); used when no event names one.
    public static let units: [String: String] = [
        "steps": "count", "distanceWalkingRunning": "m", "activeEnergy": "kcal", "basalEnergy": "kcal",
        "flightsClimbed": "count", "exerciseTime": "min", "standTime": "min", "dietaryEnergy": "kcal",
        "dietaryProtein": "g", "dietaryCarbohydrates": "g", "dietaryFat": "g", "dietaryWater": "mL",
        "heartRate": "count/min", "restingHeartRate": "count/min", "heartRateVariability": "ms",
        "respiratoryRate": "count/min", "oxygenSaturation": "%", "bodyMass": "kg",
    ]

    /// `UNIT_NOTES` of §4.3: what a unit written on the wire does not say.
    public static let unitNotes: [String: String] = [
        "oxygenSaturation": "fraction of 1, not a percentage — 0.97 means 97%. The unit written on the event says '%' and is wrong.",
    ]

    /// Metrics whose records carry no number to sum or summarise.
    public static let withoutValues: Set<String> = ["sleep", "workout", RecordParts.workoutActivity]

    /// The unit a metric is written with (§4, decision A.9); nil for categories and unknown names.
    public static func unit(of metric: String) -> String? { units[metric] ?? HealthCatalogue.describe(metric)?.unit }

    /// Whether the protocol makes `metric` a total (summed into hour and day buckets).
    public static func isTotal(_ metric: String) -> Bool {
        totals.contains(metric) || HealthCatalogue.describe(metric)?.kind == .total
    }

    /// What reading a metric's values needs to know that its name and unit do not say.
    public static func note(for metric: String) -> String? {
        if let note = unitNotes[metric] { return note }
        if RecordParts.isSampleSeries(metric) {
            return "one row per sample; end minus start is the sample's ordinal within its whole second, not a duration "
                + "(the fields of one fix or point share start and end)."
        }
        if metric == RecordParts.workoutEvent { return "HKWorkoutEventType: 1 pause, 2 resume, 3 lap, 4 marker, 5 motion paused, 6 motion resumed, 7 segment." }
        if metric == RecordParts.stateOfMind { return "valence, from -1 (very unpleasant) to 1 (very pleasant)." }
        if metric == RecordParts.electrocardiogram {
            return "HKElectrocardiogram classification: 1 sinus rhythm, 2 atrial fibrillation, 3 heart rate too low, 4 too high, 5 poor recording, 6 inconclusive."
        }
        guard let description = HealthCatalogue.describe(metric) else { return nil }
        if description.unit == "%" { return "fraction of 1, not a percentage — 0.25 means 25%." }
        if description.unit == nil, !withoutValues.contains(metric), metric != RecordParts.workoutEvent {
            return "HealthKit's category value as an integer (its enum case's raw value)."
        }
        return nil
    }

    /// The sleep stages of §4.2, in the order answers list them.
    public static let sleepStages = ["inBed", "awake", "asleepUnspecified", "asleepCore", "asleepDeep", "asleepREM", "unknown"]

    /// The stages whose union is time asleep.
    public static let asleepStages: Set<String> = ["asleepUnspecified", "asleepCore", "asleepDeep", "asleepREM"]

    /// The reader-side names of `HKWorkoutActivityType` numbers (§4.2, `analysis.py ACTIVITIES`).
    public static let activityNames: [String: String] = [
        "9": "climbing", "11": "crossTraining", "13": "cycling", "16": "elliptical",
        "20": "functionalStrengthTraining", "24": "hiking", "29": "mindAndBody", "35": "rowing", "37": "running",
        "44": "stairClimbing", "46": "swimming", "50": "traditionalStrengthTraining", "52": "walking", "57": "yoga",
        "3000": "other",
    ]

    /// A word the archive holds as it came because the writer that stored it did not know it
    /// (issue 45): a workout's (or its activity's) activity that is no HealthKit number, or a
    /// `stage` on any metric but sleep — a workout event, an ECG classification, a State of Mind
    /// kind, label or association, a medication status HealthKit named after the writer was
    /// made. A later writer that knows the word maps it; until then `overview` names it.
    public static func wordNotYetKnown(metric: String, stage: String?, activity: String?) -> String? {
        if let activity, metric == "workout" || metric == RecordParts.workoutActivity,
           activity.isEmpty || !activity.allSatisfy({ $0.isASCII && $0.isNumber }) {
            return activity
        }
        if let stage, metric != "sleep" { return stage }
        return nil
    }

    /// The words not yet known among a series' rows, with how many rows carry each (read from its
    /// columns: only a series with a stage or an activity column can hold one).
    public static func wordsNotYetKnown(in series: DaySeries) -> [String: Int] {
        var words = [String: Int]()
        let metric = series.key.metric
        if metric != "sleep", let stages = series.stages {
            for case let stage? in stages { words[stage, default: 0] += 1 }
        }
        if metric == "workout" || metric == RecordParts.workoutActivity, let activities = series.activities {
            for case let activity? in activities where wordNotYetKnown(metric: metric, stage: nil, activity: activity) != nil {
                words[activity, default: 0] += 1
            }
        }
        return words
    }

    /// The name of a workout's activity number: `37` → `running`, an unlisted one → `activity-<n>`,
    /// none → `activity-unknown`.
    public static func activityName(_ number: String?) -> String {
        guard let number else { return "activity-unknown" }
        return activityNames[number] ?? "activity-\(number)"
    }

    /// What an agent may write (§8): quantities with their unit, and sleep with its stages.
    public static let writable: [String: String] = [
        "dietaryEnergy": "kcal", "dietaryProtein": "g", "dietaryCarbohydrates": "g", "dietaryFat": "g",
        "dietaryWater": "mL", "bodyMass": "kg",
    ]
}
