import EfferentCore

/// HealthKit identifiers → protocol metrics (§4, decision A.9), with each unit converted to the
/// wire unit.
///
/// Every quantity, category and workout becomes a metric: the catalogue's twenty by name, every
/// other by `HealthKitName`'s rule; parts (`SourceRecord.Kind.part`) are named already. A record
/// the protocol cannot hold as it is (a unit with no exact conversion, a category value HealthKit
/// does not define) is refused with the reason, which the import names with its count.
public enum MetricMapping {
    /// What a record becomes on the wire.
    public struct Target: Sendable, Equatable {
        public let metric: String
        /// `true` for totals (summed into hour and day buckets), `false` for records.
        public let isTotal: Bool
        /// The wire unit (`nil` for sleep, workouts and categories).
        public let unit: String?
    }

    /// A mapped sample, ready for the source store.
    public struct Mapped: Sendable, Equatable {
        public let target: Target
        public let value: Double?
        public let stage: String?
        public let activity: String?
        public let duration: Double?
    }

    static let sleep = Target(metric: "sleep", isTotal: false, unit: nil)
    static let workout = Target(metric: "workout", isTotal: false, unit: nil)

    /// The metric of a protocol-native record (NDJSON layout 1, agent edits) by its name: what
    /// the catalogue says of it, or a record in its own unit when the name is new to this writer.
    static func target(forMetric name: String, unit: String?) -> Target {
        if name == "sleep" { return sleep }
        if name == "workout" { return workout }
        if let description = HealthCatalogue.describe(name) {
            return Target(metric: name, isTotal: description.kind == .total, unit: description.unit ?? unit)
        }
        return Target(metric: name, isTotal: false, unit: unit)
    }

    /// The wire form of `record`, or why it cannot have one.
    public static func map(_ record: SourceRecord) -> Result<Mapped, LeftOut> {
        func refuse(_ problem: String) -> Result<Mapped, LeftOut> { .failure(LeftOut(record.type, .unreadable(problem))) }
        switch record.kind {
        case .quantity:
            guard let value = record.value else { return refuse("no numeric value") }
            guard value.isFinite else { return refuse("a value that is not a finite number") }
            let target = quantityTarget(record)
            guard let wire = target.unit else {
                // A native record of a metric without a unit (a category integer) is taken as it is.
                guard nativeName(record.type) != nil else { return refuse("no unit") }
                return .success(Mapped(target: target, value: value, stage: nil, activity: nil, duration: nil))
            }
            guard let converted = UnitConversion.convert(value, from: record.unit ?? wire, to: wire) else {
                return refuse("written in \(record.unit ?? "no unit"), which has no exact conversion to \(wire)")
            }
            return .success(Mapped(target: target, value: converted, stage: nil, activity: nil, duration: nil))
        case .category:
            if record.type == "HKCategoryTypeIdentifierSleepAnalysis" || record.type == EfferentEventReader.typePrefix + "sleep" {
                return .success(Mapped(target: sleep, value: nil, stage: SleepStage.wire(record.category), activity: nil, duration: nil))
            }
            guard let integer = CategoryValue.integer(record.category) else {
                return refuse("category value \(record.category ?? "") is not one HealthKit defines")
            }
            let name = categoryNames[record.type] ?? nativeName(record.type) ?? HealthKitName.metric(for: record.type)
            return .success(Mapped(target: Target(metric: name, isTotal: false, unit: nil), value: Double(integer),
                                   stage: nil, activity: nil, duration: nil))
        case .workout:
            // A native `workout.activity` row has an activity too, but is a part of its workout.
            let target = nativeName(record.type).map { self.target(forMetric: $0, unit: nil) } ?? workout
            return .success(Mapped(target: target, value: target == workout ? nil : record.value, stage: nil,
                                   activity: record.resolvedActivity ?? WorkoutActivity.number(record.activity),
                                   duration: record.duration ?? max(0, record.end - record.start)))
        case .part:
            return part(record)
        }
    }

    /// A quantity's target: a native name, the quantity catalogue's entry, or — for a type newer
    /// than the catalogue — a record in the unit it was written with.
    static func quantityTarget(_ record: SourceRecord) -> Target {
        // One lookup per record on the import's hot path, as before decision A.9.
        if let known = quantityTargets[record.type] { return known }
        if let name = nativeName(record.type) { return target(forMetric: name, unit: record.unit) }
        let metric = HealthKitName.metric(for: record.type)
        guard let entry = QuantityCatalogue.entry(for: record.type) else { return Target(metric: metric, isTotal: false, unit: record.unit) }
        return Target(metric: metric, isTotal: entry.style == .cumulative, unit: entry.unit)
    }

    /// A part (`workout.heartRate.average`, `workoutRoute.latitude`, …): its wire unit from the
    /// catalogue, its value rounded to the part's precision.
    static func part(_ record: SourceRecord) -> Result<Mapped, LeftOut> {
        let fixed = RecordParts.fixed[record.type]
        let wire = fixed?.unit ?? HealthCatalogue.describe(record.type)?.unit ?? record.unit
        var value = record.value
        if let number = value, !number.isFinite {
            return .failure(LeftOut(record.type, .unreadable("a value that is not a finite number")))
        }
        if let number = value, let wire {
            guard let converted = UnitConversion.convert(number, from: record.unit ?? wire, to: wire) else {
                return .failure(LeftOut(record.type, .unreadable("written in \(record.unit ?? "no unit"), which has no exact conversion to \(wire)")))
            }
            value = converted
        }
        if let decimals = fixed?.decimals, let number = value {
            let scale = Self.powersOfTen[decimals]
            value = (number * scale).rounded() / scale
        }
        let activity = record.resolvedActivity ?? record.activity.map { WorkoutActivity.number($0) }
        // A part whose value is an enumeration's name this version does not know (a State of Mind
        // label, an ECG classification) keeps the name as it came, where a later version can map it.
        return .success(Mapped(target: Target(metric: record.type, isTotal: false, unit: wire), value: value,
                               stage: record.category, activity: activity, duration: record.duration))
    }

    /// Every known quantity identifier's target, computed once.
    static let quantityTargets: [String: Target] = Dictionary(uniqueKeysWithValues: QuantityCatalogue.identifiers.compactMap { identifier in
        QuantityCatalogue.entry(for: identifier).map {
            (identifier, Target(metric: HealthKitName.metric(for: identifier), isTotal: $0.style == .cumulative, unit: $0.unit))
        }
    })

    /// Every known category identifier's metric, computed once.
    static let categoryNames: [String: String] = Dictionary(uniqueKeysWithValues: HealthCatalogue.categoryIdentifiers.map {
        ($0, HealthKitName.metric(for: $0))
    })

    static let powersOfTen: [Double] = [1, 10, 100, 1000, 10_000, 100_000, 1_000_000, 10_000_000]

    /// The metric a protocol-native type names, as the NDJSON reader writes layout-1 events:
    /// `efferent:<metric>` for records, `efferent:<metric>/<hour|day>` for totals (the bucket is
    /// dropped here; the source name keeps day totals below hour totals, see `SourcePriority`).
    static func nativeName(_ type: String) -> String? {
        guard type.hasPrefix(EfferentEventReader.typePrefix) else { return nil }
        let name = type.dropFirst(EfferentEventReader.typePrefix.count).split(separator: "/").first.map(String.init) ?? ""
        return name.isEmpty ? nil : name
    }
}

/// Sleep values → the wire's stage strings (§4.2); anything unknown is `unknown`.
enum SleepStage {
    static let table: [String: String] = [
        "HKCategoryValueSleepAnalysisInBed": "inBed",
        "HKCategoryValueSleepAnalysisAsleep": "asleepUnspecified",
        "HKCategoryValueSleepAnalysisAsleepUnspecified": "asleepUnspecified",
        "HKCategoryValueSleepAnalysisAwake": "awake",
        "HKCategoryValueSleepAnalysisAsleepCore": "asleepCore",
        "HKCategoryValueSleepAnalysisAsleepDeep": "asleepDeep",
        "HKCategoryValueSleepAnalysisAsleepREM": "asleepREM",
        // HealthKit's integers (PulsHealth): 0 in bed, 1 asleep unspecified, 2 awake, 3 core, 4 deep, 5 REM.
        "0": "inBed", "1": "asleepUnspecified", "2": "awake", "3": "asleepCore", "4": "asleepDeep", "5": "asleepREM",
    ]
    static let wireStages: Set<String> = ["inBed", "awake", "asleepUnspecified", "asleepCore", "asleepDeep", "asleepREM"]

    static func wire(_ value: String?) -> String {
        guard let value else { return "unknown" }
        if wireStages.contains(value) { return value }
        return table[value] ?? "unknown"
    }
}
