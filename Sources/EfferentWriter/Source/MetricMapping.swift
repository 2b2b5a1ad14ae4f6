import EfferentCore

/// HealthKit identifiers → protocol metrics (§4), with each unit converted to the wire unit.
///
/// What maps is what the protocol carries; everything else in an export is skipped (and counted).
public enum MetricMapping {
    /// What a record becomes on the wire.
    public struct Target: Sendable, Equatable {
        public let metric: String
        /// `true` for the totals of §4.1 (summed into hour and day buckets), `false` for records.
        public let isTotal: Bool
        /// The wire unit (`nil` for sleep and workouts).
        public let unit: String?
    }

    /// A mapped sample, ready for the source store.
    public struct Mapped: Sendable, Equatable {
        public let target: Target
        public let value: Double?
        public let stage: String?
        public let activity: String?
        public let duration: Double?
    }

    static let quantities: [String: Target] = [
        "HKQuantityTypeIdentifierStepCount": Target(metric: "steps", isTotal: true, unit: "count"),
        "HKQuantityTypeIdentifierDistanceWalkingRunning": Target(metric: "distanceWalkingRunning", isTotal: true, unit: "m"),
        "HKQuantityTypeIdentifierActiveEnergyBurned": Target(metric: "activeEnergy", isTotal: true, unit: "kcal"),
        "HKQuantityTypeIdentifierBasalEnergyBurned": Target(metric: "basalEnergy", isTotal: true, unit: "kcal"),
        "HKQuantityTypeIdentifierFlightsClimbed": Target(metric: "flightsClimbed", isTotal: true, unit: "count"),
        "HKQuantityTypeIdentifierAppleExerciseTime": Target(metric: "exerciseTime", isTotal: true, unit: "min"),
        "HKQuantityTypeIdentifierAppleStandTime": Target(metric: "standTime", isTotal: true, unit: "min"),
        "HKQuantityTypeIdentifierDietaryEnergyConsumed": Target(metric: "dietaryEnergy", isTotal: true, unit: "kcal"),
        "HKQuantityTypeIdentifierDietaryProtein": Target(metric: "dietaryProtein", isTotal: true, unit: "g"),
        "HKQuantityTypeIdentifierDietaryCarbohydrates": Target(metric: "dietaryCarbohydrates", isTotal: true, unit: "g"),
        "HKQuantityTypeIdentifierDietaryFatTotal": Target(metric: "dietaryFat", isTotal: true, unit: "g"),
        "HKQuantityTypeIdentifierDietaryWater": Target(metric: "dietaryWater", isTotal: true, unit: "mL"),
        "HKQuantityTypeIdentifierHeartRate": Target(metric: "heartRate", isTotal: false, unit: "count/min"),
        "HKQuantityTypeIdentifierHeartRateVariabilitySDNN": Target(metric: "heartRateVariability", isTotal: false, unit: "ms"),
        "HKQuantityTypeIdentifierRestingHeartRate": Target(metric: "restingHeartRate", isTotal: false, unit: "count/min"),
        "HKQuantityTypeIdentifierRespiratoryRate": Target(metric: "respiratoryRate", isTotal: false, unit: "count/min"),
        "HKQuantityTypeIdentifierOxygenSaturation": Target(metric: "oxygenSaturation", isTotal: false, unit: "%"),
        "HKQuantityTypeIdentifierBodyMass": Target(metric: "bodyMass", isTotal: false, unit: "kg"),
    ]

    static let sleep = Target(metric: "sleep", isTotal: false, unit: nil)
    static let workout = Target(metric: "workout", isTotal: false, unit: nil)

    /// The protocol metric for a protocol-native record (NDJSON layout 1, agent edits), by name.
    static let byMetric: [String: Target] = {
        var table = [String: Target]()
        for target in quantities.values { table[target.metric] = target }
        table["sleep"] = sleep
        table["workout"] = workout
        return table
    }()

    /// The wire form of `record`, or nil when the protocol has no metric for it (or its unit is
    /// one we cannot convert, which is counted as skipped rather than guessed).
    public static func map(_ record: SourceRecord) -> Mapped? {
        switch record.kind {
        case .quantity:
            let target = quantities[record.type] ?? nativeTarget(record.type)
            guard let target, let unit = target.unit, let value = record.value else { return nil }
            guard let converted = UnitConversion.convert(value, from: record.unit ?? unit, to: unit) else { return nil }
            return Mapped(target: target, value: converted, stage: nil, activity: nil, duration: nil)
        case .category:
            guard record.type == "HKCategoryTypeIdentifierSleepAnalysis" || record.type == EfferentEventReader.typePrefix + "sleep" else {
                return nil
            }
            return Mapped(target: sleep, value: nil, stage: SleepStage.wire(record.category), activity: nil, duration: nil)
        case .workout:
            return Mapped(target: workout, value: nil, stage: nil, activity: WorkoutActivity.number(record.activity),
                          duration: record.duration ?? max(0, record.end - record.start))
        }
    }

    /// A protocol-native type, as the NDJSON reader writes layout-1 events: `efferent:<metric>` for
    /// records, `efferent:<metric>/<hour|day>` for totals (the bucket is dropped here; the source
    /// name keeps day totals below hour totals, see `SourcePriority`).
    static func nativeTarget(_ type: String) -> Target? {
        guard type.hasPrefix(EfferentEventReader.typePrefix) else { return nil }
        let name = type.dropFirst(EfferentEventReader.typePrefix.count).split(separator: "/").first.map(String.init) ?? ""
        return byMetric[name]
    }
}

/// Sleep values → the wire's stage strings (§4.2); anything unknown is `unknown`.
enum SleepStage {
    static let table: [String: String] = [
        "HKCategoryValueSleepAnalysisInBed": "inBed",
        "HKCategoryValueSleepAnalysisAsleep": "asleepUnspecified",
        "HKCategoryValueSleepAnalysisAsleepUnspecified": "asleepUnspecified",
        "HKCategoryValueSleepAnalysisAwake": "awake",
        "HKCategoryValueSleepAnalysisAsleepCore": "asleepCore",
        "HKCategoryValueSleepAnalysisAsleepDeep": "asleepDeep",
        "HKCategoryValueSleepAnalysisAsleepREM": "asleepREM",
        // HealthKit's integers (PulsHealth): 0 in bed, 1 asleep unspecified, 2 awake, 3 core, 4 deep, 5 REM.
        "0": "inBed", "1": "asleepUnspecified", "2": "awake", "3": "asleepCore", "4": "asleepDeep", "5": "asleepREM",
    ]
    static let wireStages: Set<String> = ["inBed", "awake", "asleepUnspecified", "asleepCore", "asleepDeep", "asleepREM"]

    static func wire(_ value: String?) -> String {
        guard let value else { return "unknown" }
        if wireStages.contains(value) { return value }
        return table[value] ?? "unknown"
    }
}
