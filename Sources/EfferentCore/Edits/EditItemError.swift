/// Why one edit item cannot be applied (protocol §8), and the outcome word for it.
public enum EditItemError: Error, Equatable, Sendable, CustomStringConvertible {
    case badID
    case unknownMetric
    case unitOnSleep
    case valueOnSleep
    case missingStage
    case unknownStage
    case stageOnQuantity
    case wrongUnit(expected: String)
    case missingValue
    case badValue
    /// A value no body or phone records (`PhysicalBounds`): HealthKit itself refuses to save it.
    case outsideBounds(metric: WritableMetric, bounds: ClosedRange<Double>)
    case backwards
    case future
    case sleepTooLong

    /// The §8 word the writer answers for this item.
    public var code: OutcomeCode {
        switch self {
        case .unknownMetric: .unknownMetric
        case .outsideBounds: .healthRefused
        case .unitOnSleep, .wrongUnit: .badUnit
        case .backwards, .future, .sleepTooLong: .badRange
        case .badID, .valueOnSleep, .missingStage, .unknownStage, .stageOnQuantity, .missingValue, .badValue: .malformed
        }
    }

    public var description: String {
        switch self {
        case .badID: "an item id must be 1 to 120 characters of letters, digits and . _ : -"
        case .unknownMetric: "the metric is not one an edit can write: sleep, dietaryEnergy, dietaryProtein, dietaryCarbohydrates, dietaryFat, dietaryWater or bodyMass"
        case .unitOnSleep: "a sleep item takes no unit; drop it"
        case .valueOnSleep: "a sleep item takes no value; drop it"
        case .missingStage: "a sleep item needs a stage"
        case .unknownStage: "the stage must be inBed, awake, asleepUnspecified, asleepCore, asleepDeep or asleepREM"
        case .stageOnQuantity: "only sleep items take a stage; drop it"
        case let .wrongUnit(expected): "this metric is written in \(expected) exactly"
        case .missingValue: "a quantity item needs a value"
        case .badValue: "the value must be a finite number of at least 0"
        case let .outsideBounds(metric, bounds):
            "a \(metric.rawValue) value must lie within \(PhysicalBounds.text(bounds)) \(metric.unit ?? ""); Health refuses anything outside it"
        case .backwards: "start and end must be non-negative Unix seconds with end at or after start"
        case .future: "the end lies in the future; only the past can be written"
        case .sleepTooLong: "a sleep stretch may last at most 24 hours"
        }
    }
}
