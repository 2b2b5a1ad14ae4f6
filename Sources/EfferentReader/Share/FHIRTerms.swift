import EfferentCore

/// The FHIR R4 codes a shared link's Bundle uses, in one place, each with where it comes from.
/// documents/sharing.md lists the same table for people.
public enum FHIRTerms {
    public static let loinc = "http://loinc.org"
    public static let ucum = "http://unitsofmeasure.org"
    /// FHIR R4 `observation-category` (https://hl7.org/fhir/R4/codesystem-observation-category.html).
    public static let category = "http://terminology.hl7.org/CodeSystem/observation-category"
    /// Why an Observation has no value (FHIR R4 data-absent-reason).
    public static let dataAbsentReason = "http://terminology.hl7.org/CodeSystem/data-absent-reason"
    /// Efferent's metric names (documents/protocol.md, decision A.9): what `efferent daily --metric`
    /// takes. Every Observation carries one, so a reader can hold it to the CLI's answer.
    public static let metricSystem = "urn:efferent:metric"
    /// HealthKit's own identifiers (`HKQuantityTypeIdentifierVO2Max`), for a type with no
    /// standard code and beside the standard one where there is. This project owns no domain, so
    /// its code systems are URNs of its own name rather than URLs that would look resolvable.
    public static let healthKitSystem = "urn:efferent:healthkit"
    /// The columns `efferent daily` prints (`heartRate.min`): a day's lowest and highest reading
    /// as components of its summary.
    public static let dailyColumnSystem = "urn:efferent:daily"
    /// `efferent sleep`'s stage names and `efferent workouts`' columns, as components.
    public static let sleepStageSystem = "urn:efferent:sleep-stage"
    public static let workoutSystem = "urn:efferent:workout"
    /// FHIR R4's vital-signs profiles (https://hl7.org/fhir/R4/observation-vitalsigns.html).
    public static let profileBase = "http://hl7.org/fhir/StructureDefinition/"

    /// How one metric becomes an Observation: its standard code where one exists, its UCUM unit,
    /// how far the decimal point moves to reach that unit (a fraction to a percentage: 2), its
    /// category and the vital-signs profile it meets.
    public struct Coding: Sendable, Equatable {
        public let loinc: (code: String, display: String)?
        /// A second LOINC code the profile allows beside the first (SpO₂ by pulse oximetry).
        public let loincAlso: (code: String, display: String)?
        public let ucum: String?
        /// The unit as a person reads it.
        public let unit: String
        public let decimalShift: Int
        public let category: String?
        public let profile: String?

        public static func == (a: Coding, b: Coding) -> Bool {
            a.loinc?.code == b.loinc?.code && a.loincAlso?.code == b.loincAlso?.code && a.ucum == b.ucum && a.unit == b.unit
                && a.decimalShift == b.decimalShift && a.category == b.category && a.profile == b.profile
        }
    }

    /// Metrics with a standard code (LOINC, https://loinc.org) and the vital-signs profiles of
    /// FHIR R4 where one applies. Blood pressure is the panel (85354-9) with systolic 8480-6 and
    /// diastolic 8462-4, made from the two metrics.
    static let standard: [String: Coding] = [
        "heartRate": Coding(loinc: ("8867-4", "Heart rate"), loincAlso: nil, ucum: "/min", unit: "beats/minute", decimalShift: 0,
                            category: "vital-signs", profile: "heartrate"),
        "restingHeartRate": Coding(loinc: ("40443-4", "Heart rate --resting"), loincAlso: nil, ucum: "/min", unit: "beats/minute",
                                   decimalShift: 0, category: "vital-signs", profile: nil),
        "heartRateVariability": Coding(loinc: ("80404-7", "R-R interval.standard deviation (Heart rate variability)"), loincAlso: nil,
                                       ucum: "ms", unit: "ms", decimalShift: 0, category: "vital-signs", profile: nil),
        "bodyMass": Coding(loinc: ("29463-7", "Body weight"), loincAlso: nil, ucum: "kg", unit: "kg", decimalShift: 0,
                           category: "vital-signs", profile: "bodyweight"),
        "bodyMassIndex": Coding(loinc: ("39156-5", "Body mass index (BMI) [Ratio]"), loincAlso: nil, ucum: "kg/m2", unit: "kg/m2",
                                decimalShift: 0, category: "vital-signs", profile: "bmi"),
        "height": Coding(loinc: ("8302-2", "Body height"), loincAlso: nil, ucum: "cm", unit: "cm", decimalShift: 2,
                         category: "vital-signs", profile: "bodyheight"),
        "oxygenSaturation": Coding(loinc: ("2708-6", "Oxygen saturation in Arterial blood"),
                                   loincAlso: ("59408-5", "Oxygen saturation in Arterial blood by Pulse oximetry"),
                                   ucum: "%", unit: "%", decimalShift: 2, category: "vital-signs", profile: "oxygensat"),
        "respiratoryRate": Coding(loinc: ("9279-1", "Respiratory rate"), loincAlso: nil, ucum: "/min", unit: "breaths/minute",
                                  decimalShift: 0, category: "vital-signs", profile: "resprate"),
        "bodyTemperature": Coding(loinc: ("8310-5", "Body temperature"), loincAlso: nil, ucum: "Cel", unit: "°C", decimalShift: 0,
                                  category: "vital-signs", profile: "bodytemp"),
        "bloodPressureSystolic": Coding(loinc: ("8480-6", "Systolic blood pressure"), loincAlso: nil, ucum: "mm[Hg]", unit: "mmHg",
                                        decimalShift: 0, category: "vital-signs", profile: nil),
        "bloodPressureDiastolic": Coding(loinc: ("8462-4", "Diastolic blood pressure"), loincAlso: nil, ucum: "mm[Hg]", unit: "mmHg",
                                         decimalShift: 0, category: "vital-signs", profile: nil),
        "bloodGlucose": Coding(loinc: ("2339-0", "Glucose [Mass/volume] in Blood"), loincAlso: nil, ucum: "mg/dL", unit: "mg/dL",
                               decimalShift: 0, category: "laboratory", profile: nil),
        "steps": Coding(loinc: ("41950-7", "Number of steps in 24 hour Measured"), loincAlso: nil, ucum: "/d", unit: "steps/day",
                        decimalShift: 0, category: "activity", profile: nil),
        "activeEnergy": Coding(loinc: ("41981-2", "Calories burned"), loincAlso: nil, ucum: "kcal", unit: "kcal", decimalShift: 0,
                               category: "activity", profile: nil),
    ]

    public static let bloodPressurePanel = (code: "85354-9", display: "Blood pressure panel with all children optional")
    public static let systolic = (code: "8480-6", display: "Systolic blood pressure")
    public static let diastolic = (code: "8462-4", display: "Diastolic blood pressure")
    public static let sleepDuration = (code: "93832-4", display: "Sleep duration")
    public static let exerciseActivity = (code: "73985-4", display: "Exercise activity")
    public static let exerciseDuration = (code: "55411-3", display: "Exercise duration")
    public static let caloriesBurned = (code: "41981-2", display: "Calories burned")
    /// The Composition's type: a personal health monitoring report (LOINC 53576-5).
    public static let reportType = (code: "53576-5", display: "Personal health monitoring report Document")

    /// The coding of any metric: the table's, or for one without a standard code its UCUM unit
    /// from the wire unit (none when UCUM has no name for it) under Efferent's own codes.
    public static func coding(of metric: String, unit wire: String?) -> Coding {
        if let known = standard[metric] { return known }
        let (ucum, shown, shift) = ucumUnit(wire)
        return Coding(loinc: nil, loincAlso: nil, ucum: ucum, unit: shown, decimalShift: shift,
                      category: MetricCatalogue.isTotal(metric) ? "activity" : nil, profile: nil)
    }

    /// A wire unit (decision A.9, `QuantityCatalogue`) in UCUM (https://ucum.org/ucum): its code,
    /// how a person writes it, and the decimal shift it takes (a fraction `%` to percent).
    static func ucumUnit(_ wire: String?) -> (code: String?, shown: String, shift: Int) {
        switch wire {
        case nil: return (nil, "", 0)
        case "count/min": return ("/min", "/min", 0)
        case "count": return ("{count}", "", 0)
        case "%": return ("%", "%", 2)
        case "mmHg": return ("mm[Hg]", "mmHg", 0)
        case "degC": return ("Cel", "°C", 0)
        case "mcg": return ("ug", "µg", 0)
        case "mcS": return ("uS", "µS", 0)
        case "mcV": return ("uV", "µV", 0)
        case "ml/kg*min": return ("mL/kg/min", "mL/(kg·min)", 0)
        case "kcal/hr*kg": return ("kcal/h/kg", "kcal/(h·kg)", 0)
        case "dBASPL": return ("dB[SPL]", "dB SPL", 0)
        case "IU": return ("[iU]", "IU", 0)
        case "hr": return ("h", "h", 0)
        case "appleEffortScore": return (nil, "effort score", 0)
        case let unit?: return (["ms", "kg", "g", "mg", "m", "cm", "L", "mL", "L/min", "mg/dL", "kcal", "min", "W", "m/s", "Hz", "s"]
                                    .contains(unit) ? unit : nil, unit, 0)
        }
    }

    /// HealthKit's identifier of an Efferent metric name, where the name came from one (decision A.9).
    public static func healthKitIdentifier(of metric: String) -> String? { healthKitIdentifiers[metric] }

    static let healthKitIdentifiers: [String: String] = {
        var table = [String: String]()
        for identifier in QuantityCatalogue.identifiers + HealthCatalogue.categoryIdentifiers {
            table[HealthKitName.metric(for: identifier)] = identifier
        }
        for (identifier, name) in HealthKitName.catalogue { table[name] = identifier }
        return table
    }()

    /// `HKWorkoutActivityType` names by the reader's activity names (`running` →
    /// `HKWorkoutActivityTypeRunning`); an unlisted number keeps Efferent's name.
    public static func workoutActivity(_ name: String) -> String? {
        guard MetricCatalogue.activityNames.values.contains(name), name != "other" else { return name == "other" ? "HKWorkoutActivityTypeOther" : nil }
        return "HKWorkoutActivityType" + name.prefix(1).uppercased() + name.dropFirst()
    }
}
