/// The metrics an edit may write into Health, with the one unit each accepts (protocol §8).
///
/// `sleep` is a category: it takes a `stage` and no `value` or `unit`. The others are quantities:
/// a finite `value` ≥ 0 in exactly their unit, and no `stage`.
public enum WritableMetric: String, CaseIterable, Sendable {
    case sleep
    case dietaryEnergy
    case dietaryProtein
    case dietaryCarbohydrates
    case dietaryFat
    case dietaryWater
    case bodyMass

    /// The unit a quantity must carry exactly; `nil` for the sleep category.
    public var unit: String? {
        switch self {
        case .sleep: nil
        case .dietaryEnergy: "kcal"
        case .dietaryProtein, .dietaryCarbohydrates, .dietaryFat: "g"
        case .dietaryWater: "mL"
        case .bodyMass: "kg"
        }
    }

    public var isCategory: Bool { self == .sleep }

    /// The values one item may carry (`PhysicalBounds`, the table imports are held to): a body
    /// mass within 0.1…1000 kg, one meal's energy at most 1,000,000 kcal; nil for sleep.
    public var bounds: ClosedRange<Double>? {
        guard let unit else { return nil }
        return PhysicalBounds.bounds(metric: rawValue, unit: unit, isTotal: self != .bodyMass)
    }

    /// §4.2: the sleep stages an edit may write (`unknown` is only ever read).
    public static let sleepStages: Set<String> = ["inBed", "awake", "asleepUnspecified", "asleepCore", "asleepDeep", "asleepREM"]

    /// §8: a sleep stretch longer than this is `badRange`.
    public static let maxSleepSeconds: Int64 = 24 * 60 * 60
}
