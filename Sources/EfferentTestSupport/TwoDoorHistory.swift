import Foundation

/// One HealthKit history as both of the archive's doors see it (issue 28, decision A.14): as the
/// PulsHealth app's batches — UUIDs, instants in fractional milliseconds, values exact in the
/// catalogue's canonical units — and as an Apple Health export writes the same samples — no
/// UUIDs, instants truncated to the second, values in the export's own units (distance in km, body
/// mass in lb) with six significant digits. Quantities (totals and readings), sleep stages and
/// workouts with their statistics (energy, distance, heart rate), from a Watch and an iPhone, over `days` days from a seed.
public struct TwoDoorHistory: Sendable {
    public struct Sample: Sendable {
        public let uuid: String
        public let type: String
        /// `quantity`, `category` or `workout`.
        public let kind: String
        /// Epoch milliseconds, with a fraction.
        public let start: Double
        public let end: Double
        /// In `unit` for a quantity; the sleep stage's PulsHealth code for a category; nil for a workout.
        public let value: Double?
        public let unit: String?
        public let source: String
        /// A workout's statistics, in canonical units: energy (kcal), distance (m), heart rate (count/min).
        public var energy: Double?
        public var distance: Double?
        public var heartRate: (minimum: Double, average: Double, maximum: Double)?
    }

    public let samples: [Sample]

    /// The export's unit of a canonical one, and the factor from the canonical to it.
    static let exportUnits: [String: (unit: String, factor: Double)] = ["m": ("km", 0.001), "kg": ("lb", 1 / 0.45359237)]
    static let sleepNames = ["HKCategoryValueSleepAnalysisInBed", "HKCategoryValueSleepAnalysisAsleepUnspecified",
                             "HKCategoryValueSleepAnalysisAwake", "HKCategoryValueSleepAnalysisAsleepCore",
                             "HKCategoryValueSleepAnalysisAsleepDeep", "HKCategoryValueSleepAnalysisAsleepREM"]

    /// `first`: Unix seconds of a midnight UTC.
    public init(seed: UInt64, first: Int64, days: Int) {
        var random = SplitMix64(seed: seed)
        var samples = [Sample]()
        func uuid() -> String {
            let hex = (0..<16).map { _ in String(format: "%02X", UInt8.random(in: 0...255, using: &random)) }.joined()
            let chars = Array(hex)
            return "\(String(chars[0..<8]))-\(String(chars[8..<12]))-4\(String(chars[13..<16]))-8\(String(chars[17..<20]))-\(String(chars[20..<32]))"
        }
        /// Milliseconds of `seconds` plus a fraction of a second (never a whole millisecond).
        func instant(_ seconds: Int64) -> Double { Double(seconds) * 1000 + Double(Int.random(in: 1...999_998, using: &random)) / 1000 }
        func add(_ type: String, _ kind: String, _ start: Double, _ end: Double, _ value: Double?, _ unit: String?, watch: Bool) {
            samples.append(Sample(uuid: uuid(), type: type, kind: kind, start: start, end: end, value: value, unit: unit,
                                  source: watch ? "Apple Watch" : "Anna's iPhone"))
        }
        for day in 0..<days {
            let midnight = first + Int64(day) * 86_400
            // The night before waking: stages of 20 to 50 minutes from 00:30.
            var sleep = midnight + 1800
            for _ in 0..<8 {
                let length = Int64.random(in: 1200...3000, using: &random)
                add("HKCategoryTypeIdentifierSleepAnalysis", "category", instant(sleep), instant(sleep + length),
                    Double([3, 4, 5, 2].randomElement(using: &random)!), nil, watch: true)
                sleep += length
            }
            for hour in 7..<23 {
                let base = midnight + Int64(hour) * 3600
                for watch in [true, false] {
                    let start = base + Int64.random(in: 0...1500, using: &random) + (watch ? 0 : 90)
                    let end = start + Int64.random(in: 60...900, using: &random)
                    add("HKQuantityTypeIdentifierStepCount", "quantity", instant(start), instant(end),
                        Double(Int.random(in: 20...900, using: &random)), "count", watch: watch)
                    add("HKQuantityTypeIdentifierDistanceWalkingRunning", "quantity", instant(start), instant(end),
                        Double.random(in: 10...900, using: &random), "m", watch: watch)
                }
                add("HKQuantityTypeIdentifierActiveEnergyBurned", "quantity", instant(base + 60), instant(base + 660),
                    Double.random(in: 0.05...40, using: &random), "kcal", watch: true)
                let reading = base + Int64.random(in: 0...3000, using: &random)
                let at = instant(reading)
                add("HKQuantityTypeIdentifierHeartRate", "quantity", at, at, Double(Int.random(in: 50...160, using: &random)), "count/min",
                    watch: true)
            }
            let weighed = instant(midnight + 7 * 3600 + 300)
            add("HKQuantityTypeIdentifierBodyMass", "quantity", weighed, weighed, Double.random(in: 60...90, using: &random), "kg", watch: false)
            let run = midnight + 18 * 3600 + Int64.random(in: 0...1800, using: &random)
            add("HKWorkoutTypeIdentifier", "workout", instant(run), instant(run + Int64.random(in: 1200...3600, using: &random)), nil, nil,
                watch: true)
            samples[samples.count - 1].energy = Double.random(in: 100...700, using: &random)
            samples[samples.count - 1].distance = Double.random(in: 2000...12_000, using: &random)
            let low = Double(Int.random(in: 80...110, using: &random))
            samples[samples.count - 1].heartRate = (low, low + Double.random(in: 20...50, using: &random), low + 70)
        }
        self.samples = samples
    }

    /// The samples as the app's batches of `size` samples, in order, each batch's NDJSON text.
    public func batches(size: Int) -> [String] {
        stride(from: 0, to: samples.count, by: size).map { start in
            let lines = samples[start..<min(start + size, samples.count)].map(Self.line)
            return PulsBatchText.batch(type: "mixed", samples: lines)
        }
    }

    /// A batch of deletions by UUID (as HealthKit reports them, in lower case).
    public func deletions(_ uuids: [String]) -> String {
        let lines = uuids.map { uuid in PulsBatchText.deletion(uuid: uuid.lowercased(), type: samples.first { $0.uuid == uuid }?.type ?? "") }
        return PulsBatchText.batch(type: "mixed", reason: "incremental", deletions: lines)
    }

    static func line(_ sample: Sample) -> String {
        let head = "{\"uuid\":\"\(sample.uuid)\",\"type\":\"\(sample.type)\",\"kind\":\"\(sample.kind)\",\"start\":\(PulsBatchText.number(sample.start)),"
            + "\"end\":\(PulsBatchText.number(sample.end)),\"sourceName\":\"\(sample.source)\","
            + "\"device\":\"\(sample.source == "Apple Watch" ? "Apple Watch" : "iPhone")\""
        switch sample.kind {
        case "quantity": return head + ",\"value\":\(PulsBatchText.number(sample.value!)),\"unit\":\"\(sample.unit!)\"}"
        case "category": return head + ",\"category\":\(Int(sample.value!))}"
        default:
            var detail = "\"activityType\":\"running\",\"duration\":\(PulsBatchText.number((sample.end - sample.start) / 1000))"
            if let energy = sample.energy { detail += ",\"totalEnergyKcal\":\(PulsBatchText.number(energy))" }
            if let distance = sample.distance { detail += ",\"totalDistanceMeters\":\(PulsBatchText.number(distance))" }
            if let rate = sample.heartRate {
                detail += ",\"statisticsDetail\":{\"HKQuantityTypeIdentifierHeartRate\":{\"min\":\(PulsBatchText.number(rate.minimum)),"
                    + "\"avg\":\(PulsBatchText.number(rate.average)),\"max\":\(PulsBatchText.number(rate.maximum))}}"
            }
            return head + ",\"workout\":{\(detail)}}"
        }
    }

    /// The samples but `excluded` as an Apple Health export's `export.xml`.
    public func exportXML(excluding excluded: Set<String> = []) -> String {
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n"
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss '+0000'"
        // Truncated to the second, as the export writes instants.
        func date(_ milliseconds: Double) -> String { formatter.string(from: Date(timeIntervalSince1970: (milliseconds / 1000).rounded(.down))) }
        for sample in samples where !excluded.contains(sample.uuid) {
            let watch = sample.source == "Apple Watch"
            let source = watch ? "Apple Watch" : "Anna&apos;s iPhone"
            let device = watch ? "&lt;&lt;HKDevice: 0x1&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,1&gt;"
                : "&lt;&lt;HKDevice: 0x2&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone14,2&gt;"
            let common = "sourceName=\"\(source)\" sourceVersion=\"17.0\" device=\"\(device)\" creationDate=\"\(date(sample.end))\" "
                + "startDate=\"\(date(sample.start))\" endDate=\"\(date(sample.end))\""
            switch sample.kind {
            case "quantity":
                let (unit, factor) = Self.exportUnits[sample.unit!] ?? (sample.unit!, 1)
                text += " <Record type=\"\(sample.type)\" \(common) unit=\"\(unit)\" value=\"\(Self.sixDigits(sample.value! * factor))\"/>\n"
            case "category":
                text += " <Record type=\"\(sample.type)\" \(common) value=\"\(Self.sleepNames[Int(sample.value!)])\"/>\n"
            default:
                let minutes = Self.sixDigits((sample.end - sample.start) / 60_000)
                var totals = ""
                if let distance = sample.distance { totals += " totalDistance=\"\(Self.sixDigits(distance / 1000))\" totalDistanceUnit=\"km\"" }
                if let energy = sample.energy { totals += " totalEnergyBurned=\"\(Self.sixDigits(energy))\" totalEnergyBurnedUnit=\"kcal\"" }
                text += " <Workout workoutActivityType=\"HKWorkoutActivityTypeRunning\" duration=\"\(minutes)\" durationUnit=\"min\"\(totals) \(common)>\n"
                if let rate = sample.heartRate {
                    text += "  <WorkoutStatistics type=\"HKQuantityTypeIdentifierHeartRate\" startDate=\"\(date(sample.start))\" "
                        + "endDate=\"\(date(sample.end))\" average=\"\(Self.sixDigits(rate.average))\" minimum=\"\(Self.sixDigits(rate.minimum))\" "
                        + "maximum=\"\(Self.sixDigits(rate.maximum))\" unit=\"count/min\"/>\n"
                }
                text += " </Workout>\n"
            }
        }
        return text + "</HealthData>\n"
    }

    /// `value` with six significant digits, as the export's text writes a quantity (`%g`).
    public static func sixDigits(_ value: Double) -> String { String(format: "%g", value) }
}
