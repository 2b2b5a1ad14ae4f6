import EfferentCrypto
import Testing
@testable import EfferentWriter

/// The per-run shortcuts of the import's parsing thread give exactly what the per-record paths
/// give: `MappingRun` what `MetricMapping.map` and `Plausibility` say, `RecordIdentity` the bytes
/// decision A.6 hashes.
@Suite struct MappingRunTests {
    static func quantity(_ type: String, _ value: Double?, _ unit: String?, source: String = "Watch", start: Double = 1_700_000_000,
                         end: Double = 1_700_000_060) -> SourceRecord {
        SourceRecord(kind: .quantity, type: type, source: source, start: start, end: end, value: value, unit: unit)
    }

    static func part(_ type: String, _ value: Double?, _ unit: String?, activity: String? = nil, duration: Double? = nil) -> SourceRecord {
        SourceRecord(kind: .part, type: type, source: "Watch", start: 1_700_000_000, end: 1_700_000_000, value: value, unit: unit,
                     activity: activity, duration: duration)
    }

    /// Runs that change type, unit and kind in every way the cache must notice, with the cases it
    /// leaves to `MetricMapping.map` (no value, a non-finite one, a molar unit, no conversion).
    static let records: [SourceRecord] = [
        quantity("HKQuantityTypeIdentifierHeartRate", 61, "count/min"),
        quantity("HKQuantityTypeIdentifierHeartRate", 62, "count/min"),
        quantity("HKQuantityTypeIdentifierHeartRate", 1, "count/s"),
        quantity("HKQuantityTypeIdentifierHeartRate", 1e9, "count/min"),
        quantity("HKQuantityTypeIdentifierHeartRate", nil, "count/min"),
        quantity("HKQuantityTypeIdentifierHeartRate", .nan, "count/min"),
        quantity("HKQuantityTypeIdentifierHeartRate", .infinity, "count/s"),
        quantity("HKQuantityTypeIdentifierHeartRate", 70, nil),
        quantity("HKQuantityTypeIdentifierActiveEnergyBurned", 4.184, "kJ"),
        quantity("HKQuantityTypeIdentifierActiveEnergyBurned", 0.1, "kcal"),
        quantity("HKQuantityTypeIdentifierActiveEnergyBurned", -3, "kcal"),
        quantity("HKQuantityTypeIdentifierStepCount", 300, "count"),
        quantity("HKQuantityTypeIdentifierStepCount", 300, "count", start: 1_700_000_000, end: 1_700_000_000 + 40 * 86_400),
        quantity("HKQuantityTypeIdentifierStepCount", 300, "furlongs"),
        quantity("HKQuantityTypeIdentifierBloodGlucose", 5.5, "mmol<180.1558800000541>/L"),
        quantity("HKQuantityTypeIdentifierBloodGlucose", 99, "mg/dL"),
        quantity("HKQuantityTypeIdentifierBodyTemperature", 98.6, "degF"),
        quantity("HKQuantityTypeIdentifierBodyMass", 160, "lb"),
        quantity("HKQuantityTypeIdentifierSomethingNew", 3, "zorks"),
        quantity("HKQuantityTypeIdentifierSomethingNew", 4, "zorks"),
        quantity("efferent:heartRate", 61, "count/min"),
        quantity("efferent:stepCount/hour", 500, "count"),
        part("workoutRoute.latitude", 48.858_370_123_4, "deg"),
        part("workoutRoute.latitude", 48.858_371, "deg"),
        part("workoutRoute.altitude", 35.123, "m"),
        part("workoutRoute.altitude", 100, "ft"),
        part("workoutRoute.speed", nil, "m/s"),
        part("workoutRoute.speed", .nan, "m/s"),
        part("electrocardiogram.voltage", 12.5, "mcV"),
        part("electrocardiogram.voltage", 0.0125, "mV"),
        part("workout.heartRate.average", 140, "count/min", duration: 60),
        part("workout.activity", 1, nil, activity: "HKWorkoutActivityTypeRunning", duration: 1800),
        part("something.unknown", 3, nil),
        part("something.unknown", 3, "zorks"),
        part("workoutRoute.latitude", 48.9, "furlongs"),
        SourceRecord(kind: .category, type: "HKCategoryTypeIdentifierSleepAnalysis", source: "Watch", start: 0, end: 60,
                     category: "HKCategoryValueSleepAnalysisAsleepCore"),
        SourceRecord(kind: .workout, type: "HKWorkoutTypeIdentifier", source: "Watch", start: 0, end: 1800,
                     activity: "HKWorkoutActivityTypeRunning", duration: 1800),
        quantity("HKQuantityTypeIdentifierHeartRate", 63, "count/min"),
    ]

    /// More interleaved types than the run keeps plans for, twice over, so plans are dropped and made again.
    static let interleaved: [SourceRecord] = {
        var records = [SourceRecord]()
        let fields = ["latitude", "longitude", "altitude", "speed", "course", "horizontalAccuracy", "verticalAccuracy"]
        for round in 0..<2 {
            let unit: String? = round == 0 ? nil : "m"
            for field in fields { records.append(part("workoutRoute." + field, 1.234_567_89 + Double(round), unit)) }
            records.append(part("electrocardiogram.voltage", 12.5, "mcV"))
            records.append(quantity("HKQuantityTypeIdentifierHeartRate", 61, "count/min"))
            records.append(quantity("HKQuantityTypeIdentifierStepCount", 12, "count"))
        }
        return records
    }()

    @Test func aRunMapsAsEveryRecordDoesAlone() {
        var run = MappingRun()
        for (index, record) in (Self.records + Self.interleaved).enumerated() {
            let expected = MetricMapping.map(record)
            let got = run.map(record)
            #expect(String(describing: got) == String(describing: expected), "record \(index): \(record.type) \(record.unit ?? "-")")
            if case let .success(mapped) = expected, case let .success(fast) = got {
                #expect(fast.value?.bitPattern == mapped.value?.bitPattern, "record \(index)")
                let now = 1_750_000_000.0
                #expect(Plausibility.refusal(of: record, mapped: fast, now: now, limits: run.limits(for: fast.target))
                            == Plausibility.refusal(of: record, mapped: mapped, now: now), "record \(index)")
            }
        }
    }

    /// Decision A.6's bytes, spelled out: texts ended by a zero byte, numbers as little-endian bit patterns.
    static func referenceIdentity(_ record: SourceRecord) -> Int64 {
        var bytes = [UInt8]()
        for text in [record.type, record.source] { bytes += Array(text.utf8) + [0] }
        for number in [record.start, record.end, record.value] {
            let bits = number?.bitPattern ?? UInt64.max
            bytes += (0..<8).map { UInt8(truncatingIfNeeded: bits >> UInt64(8 * $0)) }
        }
        for text in [record.unit, record.category, record.activity] { bytes += Array((text ?? "").utf8) + [0] }
        return Sodium.sha256(bytes).prefix(8).reduce(Int64(0)) { $0 << 8 | Int64($1) }
    }

    @Test func identitiesAreDecisionA6sBytes() {
        var identity = RecordIdentity()
        let accented = [
            Self.quantity("HKQuantityTypeIdentifierHeartRate", 61, "count/min", source: "Zoë’s Watch"),
            // The same name decomposed: equal as Strings, but other bytes, so another identity.
            Self.quantity("HKQuantityTypeIdentifierHeartRate", 61, "count/min", source: "Zoe\u{308}’s Watch"),
        ]
        let records = Self.records + accented
        for (index, record) in records.enumerated() {
            #expect(identity.of(record) == Self.referenceIdentity(record), "record \(index)")
        }
        #expect(identity.of(accented[0]) != identity.of(accented[1]))
    }
}
