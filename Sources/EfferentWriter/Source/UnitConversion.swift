/// Converts an export's unit to the wire unit of its metric (§4, decision A.9, apple-health-export.md
/// §1.6). Only conversions that are exact by definition are listed; an unknown pair returns nil.
enum UnitConversion {
    /// Multipliers into each wire unit. The first ten wire units are §4's and their factors are
    /// the ones every existing archive was written with: they stay as they are.
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
        // Decision A.9's further units.
        "mg": ["mg": 1, "g": 1000, "mcg": 0.001],
        "mcg": ["mcg": 1, "mg": 1000, "g": 1_000_000],
        "cm": ["cm": 1, "mm": 0.1, "m": 100, "in": 2.54],
        "m/s": ["m/s": 1, "km/hr": 1 / 3.6, "km/h": 1 / 3.6, "mi/hr": 0.44704, "ft/s": 0.3048],
        "W": ["W": 1, "kW": 1000],
        "mmHg": ["mmHg": 1, "kPa": 1000 / 133.322387415, "Pa": 1 / 133.322387415],
        "L": ["L": 1, "mL": 0.001],
        "L/min": ["L/min": 1, "mL/min": 0.001],
        "mg/dL": ["mg/dL": 1],
        "IU": ["IU": 1],
        "mcS": ["mcS": 1, "S": 1_000_000],
        "dBASPL": ["dBASPL": 1],
        "dBHL": ["dBHL": 1],
        "hr": ["hr": 1, "min": 1.0 / 60, "s": 1.0 / 3600],
        "Hz": ["Hz": 1, "hertz": 1],
        "deg": ["deg": 1],
        "mcV": ["mcV": 1, "µV": 1, "uV": 1, "mV": 1000],
        "appleEffortScore": ["appleEffortScore": 1],
        // VO₂max and METs: exports write the same unit with a middle dot (`mL/min·kg`).
        "ml/kg*min": ["ml/kg*min": 1, "mL/min·kg": 1, "mL/(kg·min)": 1, "ml/(kg*min)": 1, "mL/kg·min": 1],
        "kcal/hr*kg": ["kcal/hr*kg": 1, "kcal/hr·kg": 1, "kcal/(kg·hr)": 1, "kcal/(kg*hr)": 1],
    ]

    static func convert(_ value: Double, from unit: String, to wire: String) -> Double? {
        guard value.isFinite else { return nil }
        if let factor = factors[wire]?[unit] { return value * factor }
        // A type newer than the catalogue keeps the unit it was written in.
        if unit == wire { return value }
        switch (wire, unit) {
        case ("degC", "degC"): return value
        case ("degC", "degF"): return (value - 32) * 5 / 9
        case ("degC", "K"): return value - 273.15
        case ("mg/dL", _):
            // HealthKit writes molar glucose with its molar mass: `mmol<180.1558800000541>/L`.
            guard unit.hasPrefix("mmol<"), unit.hasSuffix(">/L"),
                  let mass = Double(unit.dropFirst(5).dropLast(3)), mass > 0 else { return nil }
            return value * mass / 10
        default: return nil
        }
    }
}
