/// The parts of a sample that are not HealthKit types of their own — a workout's statistics and
/// events, a route's coordinates, an ECG's voltages, a day's activity rings — named
/// `<name>.<part>` (decision A.9), each a record with its unit and, where a source writes more
/// digits than the quantity holds, the precision it is kept to.
public enum RecordParts {
    /// A fixed part: its metric, its wire unit, and the decimals its value is rounded to (nil: as written).
    public struct Part: Sendable, Equatable {
        public let metric: String
        public let unit: String?
        public let decimals: Int?

        init(_ metric: String, _ unit: String?, decimals: Int? = nil) {
            self.metric = metric
            self.unit = unit
            self.decimals = decimals
        }
    }

    // MARK: Workouts

    /// A workout statistic's aggregate (`WorkoutStatistics@sum|average|minimum|maximum`).
    public enum Aggregate: String, Sendable, CaseIterable {
        case sum, average, minimum, maximum
    }

    public static let workoutActivity = "workout.activity"
    public static let workoutEvent = "workout.event"

    /// `workout.<type>.<aggregate>` (`workout.heartRate.average`), or under a workout's activity
    /// `workout.activity.<type>.<aggregate>`; the type named by `HealthKitName`.
    public static func workoutStatistic(_ identifier: String, _ aggregate: Aggregate, inActivity: Bool = false) -> String {
        (inActivity ? workoutActivity : "workout") + "." + HealthKitName.metric(for: identifier) + "." + aggregate.rawValue
    }

    /// The unit of a workout statistic: its quantity type's; nil when the type is not known.
    public static func workoutStatisticUnit(_ identifier: String) -> String? {
        if identifier == "HKQuantityTypeIdentifierHeartRateVariabilitySDNN" { return "ms" }
        return QuantityCatalogue.entry(for: identifier)?.unit
    }

    /// `HKWorkoutEventType` raw values, by the export's name and by PulsHealth's.
    public static let workoutEventTypes: [String: Int] = {
        let names = ["Pause": 1, "Resume": 2, "Lap": 3, "Marker": 4, "MotionPaused": 5, "MotionResumed": 6, "Segment": 7,
                     "PauseOrResumeRequest": 8]
        var table = [String: Int]()
        for (name, value) in names {
            table["HKWorkoutEventType" + name] = value
            table[HealthKitName.lowerCamel(Substring(name))] = value
        }
        return table
    }()

    /// Workout metadata that holds a measurement, by `MetadataEntry@key`; its value carries its unit
    /// (`HKElevationAscended="6575 cm"`). Other metadata is not carried (documents/protocol.md).
    public static let workoutMetadata: [String: Part] = [
        "HKElevationAscended": Part("workout.elevationAscended", "m"),
        "HKElevationDescended": Part("workout.elevationDescended", "m"),
        "HKAverageMETs": Part("workout.averageMETs", "kcal/hr*kg"),
        "HKWeatherTemperature": Part("workout.weatherTemperature", "degC"),
        "HKWeatherHumidity": Part("workout.weatherHumidity", "%"),
        "HKIndoorWorkout": Part("workout.indoorWorkout", "count"),
        "HKLapLength": Part("workout.lapLength", "m"),
        "HKAverageSpeed": Part("workout.averageSpeed", "m/s"),
        "HKMaximumSpeed": Part("workout.maximumSpeed", "m/s"),
        "HKSwimmingLocationType": Part("workout.swimmingLocationType", "count"),
    ]

    // MARK: Routes, ECGs, beats, audiograms

    /// A GPS fix's fields (`HKWorkoutRouteTypeIdentifier` → `workoutRoute`), kept to a precision
    /// finer than a phone's GPS resolves: 1e-7° (about 1 cm) for the coordinates, which keeps
    /// Apple's six GPX decimals exactly; 1 cm and 1 cm/s for altitude and speed; 0.1° and 0.1 m for
    /// course and accuracies.
    public static let route: [String: Part] = [
        "latitude": Part("workoutRoute.latitude", "deg", decimals: 7),
        "longitude": Part("workoutRoute.longitude", "deg", decimals: 7),
        "altitude": Part("workoutRoute.altitude", "m", decimals: 2),
        "speed": Part("workoutRoute.speed", "m/s", decimals: 2),
        "course": Part("workoutRoute.course", "deg", decimals: 1),
        "horizontalAccuracy": Part("workoutRoute.horizontalAccuracy", "m", decimals: 1),
        "verticalAccuracy": Part("workoutRoute.verticalAccuracy", "m", decimals: 1),
    ]

    /// The order the route's fields are listed in (GPX writes them in this order too).
    public static let routeFields = ["latitude", "longitude", "altitude", "speed", "course", "horizontalAccuracy", "verticalAccuracy"]

    public static let electrocardiogram = "electrocardiogram"
    public static let ecgAverageHeartRate = Part("electrocardiogram.averageHeartRate", "count/min")
    public static let ecgSamplingFrequency = Part("electrocardiogram.samplingFrequency", "Hz")
    public static let ecgVoltage = Part("electrocardiogram.voltage", "mcV")

    /// `HKElectrocardiogram.Classification` raw values, by the English CSV text and by PulsHealth's name.
    public static let ecgClassifications: [String: Int] = [
        "notSet": 0, "sinusRhythm": 1, "atrialFibrillation": 2, "inconclusiveLowHeartRate": 3, "inconclusiveHighHeartRate": 4,
        "inconclusivePoorReading": 5, "inconclusiveOther": 6, "unrecognized": 100,
        "Sinus Rhythm": 1, "Atrial Fibrillation": 2, "Heart Rate Under 50": 3, "Heart Rate Over 120": 4,
        "Heart Rate Over 150": 4, "Poor Recording": 5, "Inconclusive": 6, "Unrecognized": 100,
    ]

    /// Beat-to-beat readings (`HKDataTypeIdentifierHeartbeatSeries`): one record per beat, its
    /// instantaneous rate.
    public static let heartbeat = Part("heartbeatSeries", "count/min")

    /// State of Mind (`HKDataTypeIdentifierStateOfMind` → `stateOfMind`, its valence −1…1) and its
    /// kind, valence classification, labels and associations as `HKStateOfMind` raw values (a
    /// record each label and each association).
    public static let stateOfMind = "stateOfMind"
    public static let stateOfMindKind = Part("stateOfMind.kind", nil)
    public static let stateOfMindValenceClassification = Part("stateOfMind.valenceClassification", nil)
    public static let stateOfMindLabel = Part("stateOfMind.label", nil)
    public static let stateOfMindAssociation = Part("stateOfMind.association", nil)
    /// `HKStateOfMind.Kind`, by its case name.
    public static let stateOfMindKinds = ["momentaryEmotion": 1, "dailyMood": 2]
    /// `HKStateOfMind.ValenceClassification`, by its case name.
    public static let valenceClassifications = ["veryUnpleasant": 1, "unpleasant": 2, "slightlyUnpleasant": 3, "neutral": 4,
                                                "slightlyPleasant": 5, "pleasant": 6, "veryPleasant": 7]
    /// `HKStateOfMind.Label` (iOS 18 SDK: `amazed` = 1 … `satisfied` = 38), by its case name.
    public static let stateOfMindLabels: [String: Int] = numbered([
        "amazed", "amused", "angry", "anxious", "ashamed", "brave", "calm", "content", "disappointed", "discouraged", "disgusted",
        "embarrassed", "excited", "frustrated", "grateful", "guilty", "happy", "hopeless", "irritated", "jealous", "joyful", "lonely",
        "passionate", "peaceful", "proud", "relieved", "sad", "scared", "stressed", "surprised", "worried", "annoyed", "confident",
        "drained", "hopeful", "indifferent", "overwhelmed", "satisfied",
    ])
    /// `HKStateOfMind.Association` (`community` = 1 … `weather` = 18), by its case name.
    public static let stateOfMindAssociations: [String: Int] = numbered([
        "community", "currentEvents", "dating", "education", "family", "fitness", "friends", "health", "hobbies", "identity", "money",
        "partner", "selfCare", "spirituality", "tasks", "travel", "work", "weather",
    ])

    /// A medication dose event (`HKMedicationDoseEventTypeIdentifierMedicationDoseEvent` →
    /// `medicationDose`, iOS 26): its `value` the dose's `HKMedicationDoseEvent.LogStatus`, and the
    /// dose taken or scheduled in the medication's own unit.
    public static let medicationDose = "medicationDose"
    public static let medicationDoseQuantity = Part("medicationDose.quantity", nil)
    /// `HKMedicationDoseEvent.LogStatus`, by its case name.
    public static let medicationStatuses = ["notInteracted": 1, "notificationNotSent": 2, "snoozed": 3, "taken": 4, "skipped": 5,
                                            "notLogged": 6]

    /// `names` numbered from 1 in their order, as an Objective-C enumeration numbers its cases.
    static func numbered(_ names: [String]) -> [String: Int] {
        Dictionary(uniqueKeysWithValues: names.enumerated().map { ($0.element, $0.offset + 1) })
    }

    public static let audiogramFrequency = Part("audiogram.frequency", "Hz")
    public static let audiogramLeftEar = Part("audiogram.leftEar", "dBHL")
    public static let audiogramRightEar = Part("audiogram.rightEar", "dBHL")

    /// `ActivitySummary` attributes (one record per local day, Apple's own ring figures).
    public static let activitySummary: [String: Part] = [
        "activeEnergyBurned": Part("activitySummary.activeEnergyBurned", "kcal"),
        "activeEnergyBurnedGoal": Part("activitySummary.activeEnergyBurnedGoal", "kcal"),
        "appleMoveTime": Part("activitySummary.appleMoveTime", "min"),
        "appleMoveTimeGoal": Part("activitySummary.appleMoveTimeGoal", "min"),
        "appleExerciseTime": Part("activitySummary.appleExerciseTime", "min"),
        "appleExerciseTimeGoal": Part("activitySummary.appleExerciseTimeGoal", "min"),
        "appleStandHours": Part("activitySummary.appleStandHours", "count"),
        "appleStandHoursGoal": Part("activitySummary.appleStandHoursGoal", "count"),
    ]

    /// Metrics whose records have no source: Apple's activity rings are computed by the phone
    /// from everyone's samples.
    public static func isSourceless(_ metric: String) -> Bool { metric.hasPrefix("activitySummary.") }

    // MARK: Sample series

    /// Metrics whose rows are samples taken faster than once a second (route fixes, ECG voltages,
    /// beats, an audiogram's points). Their `d` is not a duration but the sample's ordinal among
    /// the samples of its whole second (0, 1, 2, …): rows are sorted by start, end and value
    /// (decision A.5), and without it samples sharing a second would lose their order, and a
    /// route's fields their pairing. The fields of one fix share `t` and `d`.
    public static func isSampleSeries(_ metric: String) -> Bool {
        metric.hasPrefix("workoutRoute.") || metric == ecgVoltage.metric || metric == heartbeat.metric
            || metric.hasPrefix("audiogram.")
    }

    /// Every fixed part, by metric name.
    public static let fixed: [String: Part] = {
        var all = [ecgAverageHeartRate, ecgSamplingFrequency, ecgVoltage, heartbeat, audiogramFrequency, audiogramLeftEar,
                   audiogramRightEar, stateOfMindKind, stateOfMindValenceClassification, stateOfMindLabel, stateOfMindAssociation]
        all += Array(workoutMetadata.values) + Array(route.values) + Array(activitySummary.values)
        return Dictionary(all.map { ($0.metric, $0) }, uniquingKeysWith: { first, _ in first })
    }()
}
