import EfferentCore
import EfferentWriter

/// The words Puls Sync v1 names HealthKit's enumerations with (§4.1), mapped to HealthKit's raw
/// values: a workout's and its activities' `activityType`, its events' `type`, an ECG's
/// `classification`, State of Mind's `kind`, `valenceClassification`, `labels` and `associations`,
/// a medication dose's `status`.
///
/// The app writes each case's Swift name (`sinusRhythm`, `dailyMood`, `taken`), and for a case
/// newer than itself `<prefix>_<raw value>` (`classification_7`, `activity_85`). Activities alone
/// are snake_case (`mixed_cardio` is `MixedCardio`), with the exceptions below, where the app's
/// word is not the snake_case of HealthKit's suffix. §10 lets new words come without a new
/// version: a word not known here is never taken for "other" — the record keeps it as it came
/// (`nil` from these functions), where `efferent overview` names it and a later version that
/// knows it can map it.
enum PulsVocabulary {
    /// The app's activity words that are not the snake_case of HealthKit's suffix (its own
    /// `HKWorkoutActivityType.pulsName`), with the case each names. Some name a family the app
    /// does not tell apart: `dance` (dance-inspired training, cardio dance, social dance) and
    /// `snow_sports` (snow sports, downhill and cross-country skiing, snowboarding) are HealthKit's
    /// umbrella cases `Dance` and `SnowSports`, the nearest it has.
    static let activityExceptions: [String: String] = [
        "strength_training": "TraditionalStrengthTraining",
        "hiit": "HighIntensityIntervalTraining",
        "skating": "SkatingSports",
        "surfing": "SurfingSports",
        "equestrian": "EquestrianSports",
        "recovery": "PreparationAndRecovery",
        "wheelchair_walk": "WheelchairWalkPace",
        "wheelchair_run": "WheelchairRunPace",
        "triathlon": "SwimBikeRun",
        "diving": "UnderwaterDiving",
    ]

    /// Every HealthKit activity by the snake_case of its suffix (`AmericanFootball` →
    /// `american_football`), the rule for the words §4.1 does not list.
    static let snakeCaseActivities: [String: Int] = Dictionary(uniqueKeysWithValues: WorkoutActivity.numbers.map {
        (snakeCase($0.key), $0.value)
    })

    /// `HKWorkoutActivityType`'s raw value for an activity word, as text (`strength_training` →
    /// `50`, `activity_85` → `85`); nil when the word is not one this version knows.
    static func activity(_ word: String) -> String? {
        if let suffix = activityExceptions[word] { return WorkoutActivity.numbers[suffix].map(String.init) }
        if let number = snakeCaseActivities[word] { return String(number) }
        // HealthKit's own spellings (`running`, `HKWorkoutActivityTypeRunning`, `37`) too: another
        // sender of the protocol, or an older app, may write them.
        if let number = newer(word, prefix: "activity") ?? WorkoutActivity.known(word) { return String(number) }
        return nil
    }

    /// `HKWorkoutEventType` (1 pause … 8 pause-or-resume request) for an event's `type`.
    static func workoutEvent(_ word: String) -> Int? { RecordParts.workoutEventTypes[word] ?? newer(word, prefix: "event") }

    /// `HKElectrocardiogram.Classification` for an ECG's `classification`.
    static func ecgClassification(_ word: String) -> Int? { RecordParts.ecgClassifications[word] ?? newer(word, prefix: "classification") }

    /// `HKStateOfMind.Kind` for State of Mind's `kind`.
    static func stateOfMindKind(_ word: String) -> Int? { RecordParts.stateOfMindKinds[word] ?? newer(word, prefix: "kind") }

    /// `HKStateOfMind.ValenceClassification` for State of Mind's `valenceClassification`.
    static func valenceClassification(_ word: String) -> Int? { RecordParts.valenceClassifications[word] ?? newer(word, prefix: "valence") }

    /// `HKStateOfMind.Label` for one of State of Mind's `labels`.
    static func stateOfMindLabel(_ word: String) -> Int? { RecordParts.stateOfMindLabels[word] ?? newer(word, prefix: "label") }

    /// `HKStateOfMind.Association` for one of State of Mind's `associations`.
    static func stateOfMindAssociation(_ word: String) -> Int? {
        RecordParts.stateOfMindAssociations[word] ?? newer(word, prefix: "association")
    }

    /// `HKMedicationDoseEvent.LogStatus` for a medication dose's `status`.
    static func medicationStatus(_ word: String) -> Int? { RecordParts.medicationStatuses[word] ?? newer(word, prefix: "status") }

    /// The raw value in `<prefix>_<n>`, the app's word for a case newer than itself.
    static func newer(_ word: String, prefix: String) -> Int? {
        guard word.hasPrefix(prefix + "_") else { return nil }
        let digits = word.dropFirst(prefix.count + 1)
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(digits)
    }

    /// `AmericanFootball` → `american_football`, `VO2Max`-style runs of capitals kept together.
    static func snakeCase(_ name: String) -> String {
        var result = ""
        let characters = Array(name)
        for (index, character) in characters.enumerated() {
            if character.isUppercase, index > 0 {
                let previous = characters[index - 1]
                let nextIsLower = index + 1 < characters.count && characters[index + 1].isLowercase
                if previous.isLowercase || previous.isNumber || (previous.isUppercase && nextIsLower) { result += "_" }
            }
            result += character.lowercased()
        }
        return result
    }
}
