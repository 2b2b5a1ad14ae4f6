/// Every HealthKit quantity type this project knows, with how HealthKit aggregates it and the one
/// unit it travels in (decision A.9). Cumulative types become totals per hour and day (§4.1);
/// every other style is a reading, carried as records (§4.2).
///
/// Units are HealthKit's canonical `HKUnit` strings, the same ones the Puls Sync Protocol's
/// `catalog.json` names (so an Apple export and a PulsHealth batch agree without converting);
/// types that catalogue does not list take the unit the Health app shows by default. The twenty
/// catalogue metrics keep their §4 units. A quantity type missing here is still carried, as a
/// reading in the unit its record was written with (a type newer than this table).
public enum QuantityCatalogue {
    /// `HKQuantityAggregationStyle`, reduced to what decides the wire form.
    public enum Style: String, Sendable {
        /// Adds up over time (steps, energy, distance, nutrients): totals, never summed twice.
        case cumulative
        /// A reading (heart rate, weight, blood pressure): kept one record each.
        case discrete
    }

    public struct Entry: Sendable, Equatable {
        public let style: Style
        public let unit: String
    }

    /// By identifier without its `HKQuantityTypeIdentifier` prefix.
    static let table: [String: Entry] = {
        var table = [String: Entry]()
        func add(_ style: Style, _ unit: String, _ names: String...) {
            for name in names { table[name] = Entry(style: style, unit: unit) }
        }
        // Cumulative: activity.
        add(.cumulative, "count", "StepCount", "FlightsClimbed", "NikeFuel", "PushCount", "SwimmingStrokeCount", "InhalerUsage",
            "NumberOfAlcoholicBeverages", "NumberOfTimesFallen")
        add(.cumulative, "m", "DistanceWalkingRunning", "DistanceCycling", "DistanceWheelchair", "DistanceSwimming",
            "DistanceDownhillSnowSports", "DistanceCrossCountrySkiing", "DistancePaddleSports", "DistanceRowing", "DistanceSkatingSports")
        add(.cumulative, "kcal", "ActiveEnergyBurned", "BasalEnergyBurned", "DietaryEnergyConsumed")
        add(.cumulative, "min", "AppleExerciseTime", "AppleMoveTime", "AppleStandTime", "TimeInDaylight")
        add(.cumulative, "IU", "InsulinDelivery")
        // Cumulative: nutrition.
        add(.cumulative, "g", "DietaryProtein", "DietaryCarbohydrates", "DietaryFatTotal", "DietaryFatSaturated",
            "DietaryFatMonounsaturated", "DietaryFatPolyunsaturated", "DietaryFiber", "DietarySugar")
        add(.cumulative, "mg", "DietaryCholesterol", "DietarySodium", "DietaryVitaminB6", "DietaryVitaminC", "DietaryVitaminE",
            "DietaryCalcium", "DietaryIron", "DietaryThiamin", "DietaryRiboflavin", "DietaryNiacin", "DietaryPantothenicAcid",
            "DietaryPhosphorus", "DietaryMagnesium", "DietaryZinc", "DietaryCopper", "DietaryManganese", "DietaryChloride",
            "DietaryPotassium", "DietaryCaffeine")
        add(.cumulative, "mcg", "DietaryVitaminA", "DietaryVitaminB12", "DietaryVitaminD", "DietaryVitaminK", "DietaryFolate",
            "DietaryBiotin", "DietaryIodine", "DietarySelenium", "DietaryChromium", "DietaryMolybdenum")
        add(.cumulative, "mL", "DietaryWater")
        // Discrete: heart and lungs.
        add(.discrete, "count/min", "HeartRate", "RestingHeartRate", "WalkingHeartRateAverage", "HeartRateRecoveryOneMinute",
            "RespiratoryRate", "CyclingCadence")
        add(.discrete, "ms", "HeartRateVariabilitySDNN", "RunningGroundContactTime")
        add(.discrete, "%", "OxygenSaturation", "AtrialFibrillationBurden", "PeripheralPerfusionIndex", "BodyFatPercentage",
            "BloodAlcoholContent", "WalkingDoubleSupportPercentage", "WalkingAsymmetryPercentage", "AppleWalkingSteadiness")
        add(.discrete, "mmHg", "BloodPressureSystolic", "BloodPressureDiastolic")
        add(.discrete, "L", "ForcedVitalCapacity", "ForcedExpiratoryVolume1")
        add(.discrete, "L/min", "PeakExpiratoryFlowRate")
        add(.discrete, "count", "AppleSleepingBreathingDisturbances", "BodyMassIndex", "UVExposure")
        // Discrete: body, lab, environment.
        add(.discrete, "kg", "BodyMass", "LeanBodyMass")
        add(.discrete, "m", "Height", "WaistCircumference", "WalkingStepLength", "RunningStrideLength", "SixMinuteWalkTestDistance",
            "UnderwaterDepth")
        add(.discrete, "cm", "RunningVerticalOscillation")
        add(.discrete, "degC", "BodyTemperature", "BasalBodyTemperature", "AppleSleepingWristTemperature", "WaterTemperature")
        add(.discrete, "mg/dL", "BloodGlucose")
        add(.discrete, "mcS", "ElectrodermalActivity")
        add(.discrete, "dBASPL", "EnvironmentalAudioExposure", "HeadphoneAudioExposure", "EnvironmentalSoundReduction")
        // Discrete: performance.
        add(.discrete, "ml/kg*min", "VO2Max")
        add(.discrete, "kcal/hr*kg", "PhysicalEffort")
        add(.discrete, "W", "CyclingPower", "CyclingFunctionalThresholdPower", "RunningPower")
        add(.discrete, "m/s", "CyclingSpeed", "RunningSpeed", "WalkingSpeed", "StairAscentSpeed", "StairDescentSpeed",
            "CrossCountrySkiingSpeed", "PaddleSportsSpeed", "RowingSpeed")
        add(.discrete, "appleEffortScore", "EstimatedWorkoutEffortScore", "WorkoutEffortScore")
        return table
    }()

    /// Identifiers outside `HKQuantityTypeIdentifier…` that carry a number (`HKDataTypeSleepDurationGoal`).
    static let others: [String: Entry] = ["HKDataTypeSleepDurationGoal": Entry(style: .discrete, unit: "hr")]

    static let prefix = "HKQuantityTypeIdentifier"

    /// The entry of a quantity identifier (`HKQuantityTypeIdentifierBloodGlucose`), or nil when unknown.
    public static func entry(for identifier: String) -> Entry? {
        if identifier.hasPrefix(prefix) { return table[String(identifier.dropFirst(prefix.count))] }
        return others[identifier]
    }

    /// Every known quantity identifier, sorted.
    public static var identifiers: [String] { (table.keys.map { prefix + $0 } + others.keys).sorted() }
}
