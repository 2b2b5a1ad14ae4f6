/// The naming rule of decision A.9 (documents/protocol.md, "Every HealthKit type"): how a HealthKit
/// identifier becomes a metric name when the catalogue of §4 has none for it.
///
/// The identifier loses its prefix (`HKQuantityTypeIdentifier`, `HKCategoryTypeIdentifier`,
/// `HKDataTypeIdentifier`, …) and its leading capitals are lowered the way Swift's HealthKit
/// names its identifiers: `BloodPressureSystolic` → `bloodPressureSystolic`, `VO2Max` → `vo2Max`,
/// `UVExposure` → `uvExposure` (an acronym's last capital stays when a lowercase word follows it).
/// The twenty catalogue names (`steps`, `activeEnergy`, `sleep`, `workout`, …) stay as they are.
public enum HealthKitName {
    /// Prefixes HealthKit puts before a type's own name, longest first so none shadows another.
    public static let prefixes = [
        "HKQuantityTypeIdentifier", "HKCategoryTypeIdentifier", "HKCorrelationTypeIdentifier",
        "HKCharacteristicTypeIdentifier", "HKDataTypeIdentifier", "HKWorkoutTypeIdentifier", "HKDocumentTypeIdentifier",
        "HKDataType", "HK",
    ]

    /// The catalogue's own names (§4.1, §4.2) for the HealthKit types it covers.
    public static let catalogue: [String: String] = [
        "HKQuantityTypeIdentifierStepCount": "steps",
        "HKQuantityTypeIdentifierDistanceWalkingRunning": "distanceWalkingRunning",
        "HKQuantityTypeIdentifierActiveEnergyBurned": "activeEnergy",
        "HKQuantityTypeIdentifierBasalEnergyBurned": "basalEnergy",
        "HKQuantityTypeIdentifierFlightsClimbed": "flightsClimbed",
        "HKQuantityTypeIdentifierAppleExerciseTime": "exerciseTime",
        "HKQuantityTypeIdentifierAppleStandTime": "standTime",
        "HKQuantityTypeIdentifierDietaryEnergyConsumed": "dietaryEnergy",
        "HKQuantityTypeIdentifierDietaryProtein": "dietaryProtein",
        "HKQuantityTypeIdentifierDietaryCarbohydrates": "dietaryCarbohydrates",
        "HKQuantityTypeIdentifierDietaryFatTotal": "dietaryFat",
        "HKQuantityTypeIdentifierDietaryWater": "dietaryWater",
        "HKQuantityTypeIdentifierHeartRate": "heartRate",
        "HKQuantityTypeIdentifierHeartRateVariabilitySDNN": "heartRateVariability",
        "HKQuantityTypeIdentifierRestingHeartRate": "restingHeartRate",
        "HKQuantityTypeIdentifierRespiratoryRate": "respiratoryRate",
        "HKQuantityTypeIdentifierOxygenSaturation": "oxygenSaturation",
        "HKQuantityTypeIdentifierBodyMass": "bodyMass",
        "HKCategoryTypeIdentifierSleepAnalysis": "sleep",
        "HKWorkoutTypeIdentifier": "workout",
    ]

    /// The metric name of a HealthKit identifier: the catalogue's name, or the rule's.
    public static func metric(for identifier: String) -> String {
        if let name = catalogue[identifier] { return name }
        var bare = Substring(identifier)
        for prefix in prefixes where bare.hasPrefix(prefix) && bare.count > prefix.count {
            bare = bare.dropFirst(prefix.count)
            break
        }
        return lowerCamel(bare)
    }

    /// `BloodPressureSystolic` → `bloodPressureSystolic`, `VO2Max` → `vo2Max`, `UVExposure` →
    /// `uvExposure`, `ECG` → `ecg`; a name already starting in lowercase is kept.
    public static func lowerCamel(_ name: Substring) -> String {
        let characters = Array(name)
        var capitals = 0
        while capitals < characters.count, characters[capitals].isUppercase { capitals += 1 }
        guard capitals > 0 else { return String(name) }
        var lowered = capitals
        if capitals > 1, capitals < characters.count, characters[capitals].isLowercase { lowered -= 1 }
        return characters[..<lowered].map { $0.lowercased() }.joined() + String(characters[lowered...])
    }
}
