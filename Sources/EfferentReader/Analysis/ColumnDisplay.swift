import EfferentCore
import Foundation

/// How a human table shows one column: its header with the unit, and its numbers rounded to what
/// the measurement means. CSV, NDJSON and JSON ignore it and keep every digit.
public struct ColumnDisplay: Sendable, Equatable {
    public enum Style: Sendable, Equatable {
        /// The value as it is.
        case plain
        /// A number with this many decimals.
        case decimals(Int)
        /// A fraction of 1 shown as a percentage with this many decimals (`0.97` → `97.0`, unit `%`).
        case percent(Int)
        /// Metres, shown in km with two decimals when the column reaches 1 km, else whole metres.
        case distance
        /// An ISO instant with its offset, shown as `2025-06-01 07:02:11 +02:00`.
        case time
    }

    /// The header; the column's name when nil.
    public var title: String?
    /// The unit the header shows in parentheses (none for plain counts).
    public var unit: String?
    public var style: Style

    public init(title: String? = nil, unit: String? = nil, style: Style = .plain) {
        self.title = title
        self.unit = unit
        self.style = style
    }

    public static let plain = ColumnDisplay()
    public static let whole = ColumnDisplay(style: .decimals(0))
    public static let time = ColumnDisplay(style: .time)

    /// A column of `metric`'s values written in `unit`, rounded as the table below says.
    public static func measurement(_ unit: String?, metric: String? = nil, title: String? = nil) -> ColumnDisplay {
        let shown = unit == "count" ? nil : unit
        switch unit {
        case "m": return ColumnDisplay(title: title, unit: "m", style: .distance)
        case "%": return ColumnDisplay(title: title, unit: "%", style: .percent(1))
        case "deg": return ColumnDisplay(title: title, unit: shown, style: .decimals(6))
        default: return ColumnDisplay(title: title, unit: shown, style: .decimals(decimals(unit: unit, metric: metric)))
        }
    }

    /// The stated table of precisions, by the unit the catalogue gives a metric (decision A.9),
    /// with the two readings whose unit says too little: counts, steps, heart rate, minutes,
    /// milliseconds, millilitres, mmHg, mg/dL, watts, decibels, hertz and microvolts are whole;
    /// energy, mass in kg, g, mg and mcg, temperature, VO₂max, IU, cm and respiratory rate take
    /// one decimal; speeds and litres two; hours (sleep) two; route degrees six; anything else two.
    static func decimals(unit: String?, metric: String?) -> Int {
        if metric == "respiratoryRate" { return 1 }
        switch unit {
        case nil, "count", "count/min", "min", "s", "ms", "mL", "mmHg", "mg/dL", "W", "dBASPL", "dBHL", "Hz", "mcV": return 0
        case "kcal", "kg", "g", "mg", "mcg", "degC", "ml/kg*min", "IU", "cm": return 1
        case "m/s", "L", "km", "h", "hr": return 2
        default: return 2
        }
    }

    /// The header of a column named `name`.
    func header(_ name: String, scale: Double) -> String {
        var unitShown = unit
        if style == .distance { unitShown = scale == 1000 ? "km" : "m" }
        return (title ?? name) + (unitShown.map { " (\($0))" } ?? "")
    }

    /// The factor a distance column is divided by: 1000 when any value reaches a kilometre.
    func scale(of values: [JSONValue]) -> Double {
        guard style == .distance else { return 1 }
        return values.contains { abs($0.numberValue ?? 0) >= 1000 } ? 1000 : 1
    }

    /// One cell as the table shows it; nil for `null`.
    func text(_ value: JSONValue, scale: Double) -> String? {
        switch (style, value) {
        case (_, .null): return nil
        case let (.decimals(places), .number(number)): return Self.fixed(number, places)
        case let (.percent(places), .number(number)): return Self.fixed(number * 100, places)
        case let (.distance, .number(number)): return Self.fixed(number / scale, scale == 1000 ? 2 : 0)
        case let (.time, .string(text)): return Self.readable(text)
        default: return AnswerTable.cellText(value)
        }
    }

    static func fixed(_ number: Double, _ places: Int) -> String {
        let text = String(format: "%.\(places)f", number)
        return text == "-0" || text.hasPrefix("-0.") && Double(text) == 0 ? String(text.dropFirst()) : text
    }

    /// `2025-06-01T07:02:11+02:00` → `2025-06-01 07:02:11 +02:00`.
    static func readable(_ iso: String) -> String {
        if iso.count == 20, iso.last == "Z", iso.dropFirst(10).first == "T" { return iso.prefix(10) + " " + iso.dropFirst(11).prefix(8) + " +00:00" }
        guard iso.count == 25, iso.dropFirst(10).first == "T" else { return iso }
        return iso.prefix(10) + " " + iso.dropFirst(11).prefix(8) + " " + iso.suffix(6)
    }
}
