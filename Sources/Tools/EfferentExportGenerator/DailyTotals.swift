/// One local day's de-duplicated totals, in the protocol's units (§4.1); a metric with no sample
/// that day is absent, as empty buckets are skipped.
public struct DailyTotals: Sendable, Equatable, Codable {
    public enum Metric: String, Sendable, CaseIterable, Codable {
        case steps, distance, flights, activeEnergy, basalEnergy, exerciseTime, standTime, dietaryEnergy
        case distanceCycling, distanceSwimming, swimmingStrokes
    }

    public var date: LocalDate
    /// `count`
    public var steps: Double?
    /// `m`
    public var distanceMeters: Double?
    /// `count`
    public var flights: Double?
    /// `kcal`
    public var activeEnergyKcal: Double?
    /// `kcal`
    public var basalEnergyKcal: Double?
    /// `min`
    public var exerciseMinutes: Double?
    /// `min`
    public var standMinutes: Double?
    /// `kcal`
    public var dietaryEnergyKcal: Double?
    /// `m`
    public var distanceCyclingMeters: Double?
    /// `m`
    public var distanceSwimmingMeters: Double?
    /// `count`
    public var swimmingStrokes: Double?

    public init(date: LocalDate) { self.date = date }

    public subscript(metric: Metric) -> Double? {
        get {
            switch metric {
            case .steps: steps
            case .distance: distanceMeters
            case .flights: flights
            case .activeEnergy: activeEnergyKcal
            case .basalEnergy: basalEnergyKcal
            case .exerciseTime: exerciseMinutes
            case .standTime: standMinutes
            case .dietaryEnergy: dietaryEnergyKcal
            case .distanceCycling: distanceCyclingMeters
            case .distanceSwimming: distanceSwimmingMeters
            case .swimmingStrokes: swimmingStrokes
            }
        }
        set {
            switch metric {
            case .steps: steps = newValue
            case .distance: distanceMeters = newValue
            case .flights: flights = newValue
            case .activeEnergy: activeEnergyKcal = newValue
            case .basalEnergy: basalEnergyKcal = newValue
            case .exerciseTime: exerciseMinutes = newValue
            case .standTime: standMinutes = newValue
            case .dietaryEnergy: dietaryEnergyKcal = newValue
            case .distanceCycling: distanceCyclingMeters = newValue
            case .distanceSwimming: distanceSwimmingMeters = newValue
            case .swimmingStrokes: swimmingStrokes = newValue
            }
        }
    }
}
