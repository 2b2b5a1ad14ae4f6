/// What the protocol says about every metric name (decision A.9): whether it is a total or a
/// record, its unit, and the list of names readers offer. Pure tables, shared by the writer
/// (which maps records onto them) and the reader (which answers for them).
public enum HealthCatalogue {
    /// How a metric travels.
    public enum Kind: String, Sendable {
        /// `k:"agg"`: de-duplicated totals per hour and day (§4.1), summed, never added as samples.
        case total
        /// `k:"hk"` with a number: readings, category integers, workout and route parts.
        case record
    }

    public struct Description: Sendable, Equatable {
        public let metric: String
        public let kind: Kind
        /// The wire unit; nil for categories, sleep, workouts and metrics the catalogue does not name.
        public let unit: String?
    }

    /// Category types HealthKit defines (their values are integers, `CategoryValue`); the naming
    /// rule covers any other, so this list only feeds the names readers offer.
    public static let categoryIdentifiers: [String] = [
        "AppleStandHour", "AppleWalkingSteadinessEvent", "AudioExposureEvent", "EnvironmentalAudioExposureEvent",
        "HeadphoneAudioExposureEvent", "HandwashingEvent", "ToothbrushingEvent", "HighHeartRateEvent", "LowHeartRateEvent",
        "IrregularHeartRhythmEvent", "LowCardioFitnessEvent", "MindfulSession", "SleepApneaEvent", "CervicalMucusQuality",
        "OvulationTestResult", "MenstrualFlow", "IntermenstrualBleeding", "SexualActivity", "Contraceptive", "Pregnancy",
        "Lactation", "PregnancyTestResult", "ProgesteroneTestResult", "InfrequentMenstrualCycles", "IrregularMenstrualCycles",
        "PersistentIntermenstrualBleeding", "ProlongedMenstrualPeriods", "BleedingAfterPregnancy", "BleedingDuringPregnancy",
        "AbdominalCramps", "Acne", "AppetiteChanges", "BladderIncontinence", "Bloating", "BreastPain", "ChestTightnessOrPain",
        "Chills", "Constipation", "Coughing", "Diarrhea", "Dizziness", "DrySkin", "Fainting", "Fatigue", "Fever",
        "GeneralizedBodyAche", "HairLoss", "Headache", "Heartburn", "HotFlashes", "LossOfSmell", "LossOfTaste", "LowerBackPain",
        "MemoryLapse", "MoodChanges", "Nausea", "NightSweats", "PelvicPain", "RapidPoundingOrFlutteringHeartbeat", "RunnyNose",
        "ShortnessOfBreath", "SinusCongestion", "SkippedHeartbeat", "SleepChanges", "SoreThroat", "VaginalDryness", "Vomiting",
        "Wheezing",
    ].map { "HKCategoryTypeIdentifier" + $0 }

    /// Every quantity type's description, by metric name.
    static let quantities: [String: Description] = {
        var table = [String: Description]()
        for identifier in QuantityCatalogue.identifiers {
            guard let entry = QuantityCatalogue.entry(for: identifier) else { continue }
            let name = HealthKitName.metric(for: identifier)
            table[name] = Description(metric: name, kind: entry.style == .cumulative ? .total : .record, unit: entry.unit)
        }
        return table
    }()

    /// The description of a metric name, or nil when the protocol does not define it (a reader
    /// then judges it by its events: a metric with day buckets is a total).
    public static func describe(_ metric: String) -> Description? {
        if let quantity = quantities[metric] { return quantity }
        if let part = RecordParts.fixed[metric] { return Description(metric: metric, kind: .record, unit: part.unit) }
        if metric == "sleep" || metric == "workout" || metric == RecordParts.workoutActivity || metric == RecordParts.workoutEvent
            || metric == RecordParts.electrocardiogram || metric == RecordParts.stateOfMind || metric == RecordParts.medicationDose
            || categoryNames.contains(metric) {
            return Description(metric: metric, kind: .record, unit: nil)
        }
        // workout[.activity].<type>.<aggregate>
        let parts = metric.split(separator: ".")
        if parts.count >= 3, parts[0] == "workout", let aggregate = parts.last, RecordParts.Aggregate(rawValue: String(aggregate)) != nil {
            let type = String(parts[parts.count - 2])
            return Description(metric: metric, kind: .record, unit: quantities[type]?.unit)
        }
        return nil
    }

    static let categoryNames: Set<String> = Set(categoryIdentifiers.map(HealthKitName.metric(for:)))

    /// Every name the protocol defines, sorted: each quantity and category type, sleep and
    /// workouts, the fixed parts, and the workout statistics exports write (heart rate, the
    /// energies, distances, steps, strokes, power, cadence, speed).
    public static let metricNames: [String] = {
        var names = Set(quantities.keys).union(categoryNames).union(RecordParts.fixed.keys)
        names.formUnion(["sleep", "workout", RecordParts.workoutActivity, RecordParts.workoutEvent, RecordParts.electrocardiogram,
                         RecordParts.stateOfMind, RecordParts.medicationDose])
        for (name, description) in quantities where name.hasPrefix("distance") || name == "activeEnergy" || name == "basalEnergy"
            || ["steps", "flightsClimbed", "swimmingStrokeCount", "pushCount"].contains(name) {
            guard description.kind == .total else { continue }
            names.insert("workout.\(name).sum")
        }
        for name in ["heartRate", "runningPower", "cyclingPower", "cyclingCadence", "runningSpeed", "cyclingSpeed", "walkingSpeed"] {
            for aggregate in [RecordParts.Aggregate.average, .minimum, .maximum] { names.insert("workout.\(name).\(aggregate.rawValue)") }
        }
        return names.sorted()
    }()
}
