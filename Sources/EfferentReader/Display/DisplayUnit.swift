import EfferentCore
import Foundation

/// How a metric's values are shown to a person: the wire unit as a short symbol, a factor where
/// the wire keeps another scale (a fraction shown as a percentage, metres of a day's walking as
/// kilometres), and a plain name for the metric.
public struct DisplayUnit: Sendable, Equatable {
    /// The symbol after a number (`bpm`, `kcal`, `%`); empty for plain counts of nothing in particular.
    public let symbol: String
    /// What a wire value is multiplied by before it is shown.
    public let factor: Double
    /// Decimals a value is shown with, where the unit has a natural precision (whole beats a
    /// minute, whole steps); nil lets the size of the value decide.
    public let decimals: Int?

    public init(symbol: String, factor: Double = 1, decimals: Int? = nil) {
        self.symbol = symbol
        self.factor = factor
        self.decimals = decimals
    }

    /// The unit `metric` is shown in, given the unit its events carry.
    public static func of(_ metric: String, unit: String?) -> DisplayUnit {
        switch metric {
        case "steps", "workout.steps.sum": return DisplayUnit(symbol: "steps", decimals: 0)
        case "flightsClimbed": return DisplayUnit(symbol: "floors", decimals: 0)
        case "respiratoryRate": return DisplayUnit(symbol: "breaths/min", decimals: 1)
        case "sleep": return DisplayUnit(symbol: "h")
        default: break
        }
        if unit == "m", MetricCatalogue.isTotal(metric) || metric.hasPrefix("workout.distance") { return DisplayUnit(symbol: "km", factor: 0.001, decimals: 2) }
        switch unit {
        case nil: return DisplayUnit(symbol: "")
        case "count/min": return DisplayUnit(symbol: "bpm", decimals: 0)
        case "kcal": return DisplayUnit(symbol: "kcal", decimals: 0)
        case "ms": return DisplayUnit(symbol: "ms", decimals: 0)
        case "mmHg": return DisplayUnit(symbol: "mmHg", decimals: 0)
        case "count": return DisplayUnit(symbol: "")
        case "%": return DisplayUnit(symbol: "%", factor: 100, decimals: 1)
        case "degC": return DisplayUnit(symbol: "°C")
        case "deg": return DisplayUnit(symbol: "°")
        case "mcV": return DisplayUnit(symbol: "µV")
        case "mcg": return DisplayUnit(symbol: "µg")
        case "ml/kg*min": return DisplayUnit(symbol: "mL/kg·min")
        case "dBASPL": return DisplayUnit(symbol: "dB")
        case "kcal/hr*kg": return DisplayUnit(symbol: "kcal/h·kg")
        case let other?: return DisplayUnit(symbol: other)
        }
    }

    /// `value` in this unit, with a sensible number of decimals and thousands grouped:
    /// `10,059 steps`, `61.3 kg`, `97 %`.
    public func text(_ value: Double, decimals: Int? = nil) -> String {
        let number = Self.number(value * factor, decimals: decimals ?? self.decimals ?? Self.decimals(for: value * factor))
        return symbol.isEmpty ? number : number + " " + symbol
    }

    /// Decimals that show a value to about three significant figures, never more than two.
    public static func decimals(for value: Double) -> Int {
        let size = abs(value)
        if size >= 100 || size == 0 { return 0 }
        return size >= 10 ? 1 : 2
    }

    /// `1234567.891` → `1,234,568` (decimals 0), `-0.5` → `-0.50` (decimals 2).
    public static func number(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return "–" }
        // Past 10¹⁵ a whole number no longer fits the digits below exactly (and past 9.2·10¹⁸
        // not Int64 at all): such a value is no measurement, and is shown in powers of ten.
        guard abs(value) < 1e15 else { return String(format: "%.4g", value) }
        let decimals = Swift.min(Swift.max(decimals, 0), 6)
        let scale = pow(10.0, Double(decimals))
        var rounded = (abs(value) * scale).rounded() / scale
        if rounded == 0 { rounded = 0 }
        let whole = rounded.rounded(.down)
        var digits = String(Int64(whole))
        var grouped = ""
        while digits.count > 3 {
            grouped = "," + digits.suffix(3) + grouped
            digits.removeLast(3)
        }
        grouped = digits + grouped
        if decimals > 0 {
            let fraction = Int64(((rounded - whole) * scale).rounded())
            let text = String(fraction)
            grouped += "." + String(repeating: "0", count: max(0, decimals - text.count)) + text
        }
        return (value < 0 && rounded != 0 ? "-" : "") + grouped
    }
}
