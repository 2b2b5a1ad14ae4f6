/// A `HKCategoryTypeIdentifierSleepAnalysis` value as the export writes it (§1.5).
enum SleepStage: String, Sendable, CaseIterable {
    case inBed = "HKCategoryValueSleepAnalysisInBed"
    /// The pre-iOS 16 string, still found in old exports.
    case legacyAsleep = "HKCategoryValueSleepAnalysisAsleep"
    case unspecified = "HKCategoryValueSleepAnalysisAsleepUnspecified"
    case awake = "HKCategoryValueSleepAnalysisAwake"
    case core = "HKCategoryValueSleepAnalysisAsleepCore"
    case deep = "HKCategoryValueSleepAnalysisAsleepDeep"
    case rem = "HKCategoryValueSleepAnalysisAsleepREM"

    var isAsleep: Bool { self != .inBed && self != .awake }
}
