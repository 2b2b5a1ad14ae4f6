/// Converts an export's unit to the wire unit of its metric (§4, apple-health-export.md §1.6).
/// Only conversions that are exact by definition are listed; an unknown pair returns nil.
enum UnitConversion {
    /// Multipliers into each wire unit.
    static let factors: [String: [String: Double]] = [
        "kcal": ["kcal": 1, "Cal": 1, "kJ": 1 / 4.184, "J": 1 / 4184, "cal": 1 / 1000],
        "m": ["m": 1, "km": 1000, "cm": 0.01, "mm": 0.001, "mi": 1609.344, "ft": 0.3048, "yd": 0.9144, "in": 0.0254],
        "min": ["min": 1, "s": 1.0 / 60, "hr": 60, "h": 60, "ms": 1.0 / 60_000],
        "count": ["count": 1],
        "count/min": ["count/min": 1, "count/s": 60, "count/hr": 1.0 / 60],
        "ms": ["ms": 1, "s": 1000],
        "%": ["%": 1],
        "kg": ["kg": 1, "g": 0.001, "lb": 0.45359237, "oz": 0.028349523125, "st": 6.35029318],
        "g": ["g": 1, "mg": 0.001, "kg": 1000, "mcg": 0.000001, "oz": 28.349523125],
        "mL": ["mL": 1, "L": 1000, "fl_oz_us": 29.5735295625, "fl_oz_imp": 28.4130625, "cup_us": 236.5882365, "cup_imp": 284.130625],
    ]

    static func convert(_ value: Double, from unit: String, to wire: String) -> Double? {
        guard value.isFinite, let factor = factors[wire]?[unit] else { return nil }
        return value * factor
    }
}
