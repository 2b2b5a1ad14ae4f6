/// What one record of a metric can hold, in wire units: the one table both doors check against —
/// an import or a phone's sample before it enters the writer's store, and an agent's edit on the
/// agent's side and again on the writer's (protocol §8) — so a value no body or phone could
/// record (a body mass of 1e308 kg) never reaches a sum, a chart or an answer.
///
/// Readings have physiological bounds where physiology sets them (HealthKit refuses a body mass
/// outside 0…1000 kg, an oxygen saturation outside 0…100 %); a total's one sample has a ceiling
/// per unit far beyond any real sample and far below a number that overflows a sum; anything
/// else stays within ±10¹².
public enum PhysicalBounds {
    /// Physiological bounds of the readings that have them.
    public static let readings: [String: ClosedRange<Double>] = [
        "heartRate": 1...400, "restingHeartRate": 1...400, "walkingHeartRateAverage": 1...400, "respiratoryRate": 0...200,
        "heartRateVariability": 0...5000, "oxygenSaturation": 0...1, "bodyMass": 0.1...1000, "leanBodyMass": 0.1...1000,
        "bodyFatPercentage": 0...1, "height": 0.1...3, "bodyTemperature": 10...50, "basalBodyTemperature": 10...50,
        "bloodPressureSystolic": 0...400, "bloodPressureDiastolic": 0...400, "vo2Max": 0...150, "bodyMassIndex": 1...200,
    ]

    /// The most one sample of a total may hold, by wire unit.
    public static let totalCeilings: [String: Double] = [
        "count": 10_000_000, "m": 10_000_000, "kcal": 1_000_000, "min": 1_000_000, "s": 100_000_000,
        "g": 1_000_000, "mL": 100_000_000, "L": 100_000,
    ]

    /// The values one record of `metric` in `unit` may hold; `isTotal` for a cumulative quantity.
    public static func bounds(metric: String, unit: String?, isTotal: Bool) -> ClosedRange<Double> {
        if let reading = readings[metric] { return reading }
        if isTotal { return 0...(unit.flatMap { totalCeilings[$0] } ?? 1e12) }
        return -1e12...1e12
    }

    /// `0.1…1000`, `0…1000000`: a range as a refusal names it.
    public static func text(_ bounds: ClosedRange<Double>) -> String {
        "\(number(bounds.lowerBound))…\(number(bounds.upperBound))"
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
