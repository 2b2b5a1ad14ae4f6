/// One (type, source) run of top-level `Record`s. The cases are in file order: Apple writes
/// records grouped by type, then source, then time (§1.3).
enum RecordStream: Int, Sendable, CaseIterable {
    case stepsWatch, stepsPhone
    case distanceWatch, distancePhone
    case flightsWatch, flightsPhone
    case activeEnergy, basalEnergy
    case exercise, stand
    case heartRate, restingHeartRate, heartRateVariability, respiratoryRate, oxygenSaturation, vo2Max
    case bodyMassScale, bodyMassManual
    case dietaryEnergy, dietaryProtein
    case systolic, diastolic
    case sleepWatch, sleepPhone
    // Types beyond the first catalogue (decision A.9), after the rest so earlier streams keep their draws.
    case distanceCycling, distanceSwimming, swimmingStrokes
    case walkingHeartRateAverage, bodyFat, standHour, mindfulSession, audioExposure
    case walkingSpeed, walkingStepLength

    var type: String {
        switch self {
        case .stepsWatch, .stepsPhone: "HKQuantityTypeIdentifierStepCount"
        case .distanceWatch, .distancePhone: "HKQuantityTypeIdentifierDistanceWalkingRunning"
        case .flightsWatch, .flightsPhone: "HKQuantityTypeIdentifierFlightsClimbed"
        case .activeEnergy: "HKQuantityTypeIdentifierActiveEnergyBurned"
        case .basalEnergy: "HKQuantityTypeIdentifierBasalEnergyBurned"
        case .exercise: "HKQuantityTypeIdentifierAppleExerciseTime"
        case .stand: "HKQuantityTypeIdentifierAppleStandTime"
        case .heartRate: "HKQuantityTypeIdentifierHeartRate"
        case .restingHeartRate: "HKQuantityTypeIdentifierRestingHeartRate"
        case .heartRateVariability: "HKQuantityTypeIdentifierHeartRateVariabilitySDNN"
        case .respiratoryRate: "HKQuantityTypeIdentifierRespiratoryRate"
        case .oxygenSaturation: "HKQuantityTypeIdentifierOxygenSaturation"
        case .vo2Max: "HKQuantityTypeIdentifierVO2Max"
        case .bodyMassScale, .bodyMassManual: "HKQuantityTypeIdentifierBodyMass"
        case .dietaryEnergy: "HKQuantityTypeIdentifierDietaryEnergyConsumed"
        case .dietaryProtein: "HKQuantityTypeIdentifierDietaryProtein"
        case .systolic: "HKQuantityTypeIdentifierBloodPressureSystolic"
        case .diastolic: "HKQuantityTypeIdentifierBloodPressureDiastolic"
        case .sleepWatch, .sleepPhone: "HKCategoryTypeIdentifierSleepAnalysis"
        case .distanceCycling: "HKQuantityTypeIdentifierDistanceCycling"
        case .distanceSwimming: "HKQuantityTypeIdentifierDistanceSwimming"
        case .swimmingStrokes: "HKQuantityTypeIdentifierSwimmingStrokeCount"
        case .walkingHeartRateAverage: "HKQuantityTypeIdentifierWalkingHeartRateAverage"
        case .bodyFat: "HKQuantityTypeIdentifierBodyFatPercentage"
        case .standHour: "HKCategoryTypeIdentifierAppleStandHour"
        case .mindfulSession: "HKCategoryTypeIdentifierMindfulSession"
        case .audioExposure: "HKQuantityTypeIdentifierEnvironmentalAudioExposure"
        case .walkingSpeed: "HKQuantityTypeIdentifierWalkingSpeed"
        case .walkingStepLength: "HKQuantityTypeIdentifierWalkingStepLength"
        }
    }

    /// Category streams: their records carry an enum string (or none), not a number.
    var isCategory: Bool { self == .sleepWatch || self == .sleepPhone || self == .standHour || self == .mindfulSession }

    var source: ExportSource {
        switch self {
        case .stepsPhone, .distancePhone, .flightsPhone, .sleepPhone, .walkingSpeed, .walkingStepLength: .iPhone
        case .bodyMassScale, .systolic, .diastolic, .bodyFat: .healthMate
        case .bodyMassManual: .health
        case .dietaryEnergy, .dietaryProtein: .myFitnessPal
        default: .watch
        }
    }

    /// Decimal places of `Sample.value` (a fixed-point number in the canonical unit).
    var scale: Int {
        switch self {
        case .distanceWatch, .distancePhone: 5 // km, held in centimetres
        case .activeEnergy, .basalEnergy: 3 // kcal, held in millikilocalories
        case .heartRateVariability: 3
        case .oxygenSaturation: 2
        case .bodyMassScale, .bodyMassManual, .dietaryEnergy, .dietaryProtein, .vo2Max, .respiratoryRate, .audioExposure: 1
        case .distanceCycling, .distanceSwimming: 2 // m, held in centimetres
        case .bodyFat: 3 // a fraction, held in thousandths
        case .walkingSpeed: 2 // km/hr, held in hundredths
        default: 0
        }
    }

    /// The protocol metric a daily total of this stream feeds, if it is a total (§4.1).
    var totalMetric: DailyTotals.Metric? {
        switch self {
        case .stepsWatch, .stepsPhone: .steps
        case .distanceWatch, .distancePhone: .distance
        case .flightsWatch, .flightsPhone: .flights
        case .activeEnergy: .activeEnergy
        case .basalEnergy: .basalEnergy
        case .exercise: .exerciseTime
        case .stand: .standTime
        case .dietaryEnergy: .dietaryEnergy
        case .distanceCycling: .distanceCycling
        case .distanceSwimming: .distanceSwimming
        case .swimmingStrokes: .swimmingStrokes
        default: nil
        }
    }

    /// The metric name under which the truths count this stream's records.
    var countedMetric: String {
        switch self {
        case .stepsWatch, .stepsPhone: "steps"
        case .distanceWatch, .distancePhone: "distanceWalkingRunning"
        case .flightsWatch, .flightsPhone: "flightsClimbed"
        case .activeEnergy: "activeEnergy"
        case .basalEnergy: "basalEnergy"
        case .exercise: "exerciseTime"
        case .stand: "standTime"
        case .heartRate: "heartRate"
        case .restingHeartRate: "restingHeartRate"
        case .heartRateVariability: "heartRateVariability"
        case .respiratoryRate: "respiratoryRate"
        case .oxygenSaturation: "oxygenSaturation"
        case .vo2Max: "vo2Max"
        case .bodyMassScale, .bodyMassManual: "bodyMass"
        case .dietaryEnergy: "dietaryEnergy"
        case .dietaryProtein: "dietaryProtein"
        case .systolic: "bloodPressureSystolic"
        case .diastolic: "bloodPressureDiastolic"
        case .sleepWatch, .sleepPhone: "sleep"
        case .distanceCycling: "distanceCycling"
        case .distanceSwimming: "distanceSwimming"
        case .swimmingStrokes: "swimmingStrokeCount"
        case .walkingHeartRateAverage: "walkingHeartRateAverage"
        case .bodyFat: "bodyFatPercentage"
        case .standHour: "appleStandHour"
        case .mindfulSession: "mindfulSession"
        case .audioExposure: "environmentalAudioExposure"
        case .walkingSpeed: "walkingSpeed"
        case .walkingStepLength: "walkingStepLength"
        }
    }
}
