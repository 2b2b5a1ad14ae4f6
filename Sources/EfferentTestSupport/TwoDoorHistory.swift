import Foundation

/// One HealthKit history as both of the archive's doors see it (issue 28, decision A.14): as the
/// PulsHealth app's batches — UUIDs, instants in fractional milliseconds, values exact in the
/// catalogue's canonical units — and as an Apple Health export writes the same samples — no
/// UUIDs, instants truncated to the second, values in the export's own units (distance in km, body
/// mass in lb) with six significant digits. Quantities (totals and readings), sleep stages,
/// workouts with their statistics (energy, distance, heart rate), their pause and resume events
/// and their GPS routes (the app's route lines; the export's GPX files, six decimals a field),
/// each day's activity rings, a night's heart-rate variability with its heartbeat series (the
/// export nests the beats in the HRV record, rates rounded to whole numbers, times of day to the
/// centisecond) and a weekly ECG (the export's CSV file, which names the device, not the source),
/// from a Watch and an iPhone, over `days` days from a seed. A day's workout is, in turn, each
/// activity the export generator writes — named as each door names it: the app's word
/// (`strength_training`, §4.1) and the export's `HKWorkoutActivityType…` — with its activity (the
/// whole workout, as watchOS 9 and later record one) and the Watch's heart rate every two minutes
/// during it, which the app also sends as the workout's heart-rate series.
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
        /// A workout's events: HealthKit's event type (1 pause, 2 resume) at an instant in epoch milliseconds.
        public var events: [(type: Int, at: Double)] = []
        /// A workout's GPS fixes.
        public var route: [RouteFix] = []
        /// A workout's activity, as the app names it (`strength_training`).
        public var activity = "running"
        /// A workout's heart-rate readings (each also a sample of its own), as its series.
        public var series: [(t: Double, value: Double)] = []
        /// A heartbeat series' beats, seconds from its start.
        public var beats: [Double] = []
        /// An ECG's voltages (µV) at 512 Hz.
        public var voltages: [Double] = []
    }

    /// One GPS fix as the app sends it (full precision; `t` in epoch milliseconds with a fraction).
    public struct RouteFix: Sendable {
        public let t: Double
        public let latitude, longitude, altitude, speed, course, horizontalAccuracy, verticalAccuracy: Double
    }

    /// One day's activity rings, for a local date (the history's days are UTC days).
    public struct Rings: Sendable {
        public let date: String
        /// Unix seconds of the date's midnight.
        public let midnight: Int64
        public let move, moveGoal, exercise, exerciseGoal, stand, standGoal: Double
    }

    public let samples: [Sample]
    public let rings: [Rings]

    /// The activities of the workouts, one a day in turn: every one the export generator writes
    /// (`DayPlan.WorkoutKind`), by the app's word and the export's `HKWorkoutActivityType` suffix.
    public static let activities = [("running", "Running"), ("walking", "Walking"), ("cycling", "Cycling"), ("yoga", "Yoga"),
                                    ("strength_training", "TraditionalStrengthTraining"), ("swimming", "Swimming")]

    /// The export's unit of a canonical one, and the factor from the canonical to it.
    static let exportUnits: [String: (unit: String, factor: Double)] = ["m": ("km", 0.001), "kg": ("lb", 1 / 0.45359237)]
    static let sleepNames = ["HKCategoryValueSleepAnalysisInBed", "HKCategoryValueSleepAnalysisAsleepUnspecified",
                             "HKCategoryValueSleepAnalysisAwake", "HKCategoryValueSleepAnalysisAsleepCore",
                             "HKCategoryValueSleepAnalysisAsleepDeep", "HKCategoryValueSleepAnalysisAsleepREM"]

    /// `first`: Unix seconds of a midnight UTC.
    public init(seed: UInt64, first: Int64, days: Int) {
        var random = SplitMix64(seed: seed)
        // Events, routes and rings draw from a stream of their own: the samples above them are
        // the same for a seed as they were before there were any.
        var extra = SplitMix64(seed: seed ^ 0x2828_2828)
        var samples = [Sample]()
        var ringDays = [Rings]()
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
            let workout = samples.count - 1
            let activity = Self.activities[day % Self.activities.count].0
            samples[workout].activity = activity
            samples[workout].energy = Double.random(in: 100...700, using: &random)
            let distance = Double.random(in: 2000...12_000, using: &random)
            // Yoga and strength training cover no distance; only what moves outdoors has a route.
            if !["yoga", "strength_training"].contains(activity) { samples[workout].distance = distance }
            let low = Double(Int.random(in: 80...110, using: &random))
            samples[workout].heartRate = (low, low + Double.random(in: 20...50, using: &random), low + 70)
            let runStart = samples[workout].start
            samples[workout].events = [(1, runStart + 600_000 + Double(extra.next() % 999) + 0.5),
                                       (2, runStart + 720_000 + Double(extra.next() % 999) + 0.5)]
            if ["running", "walking", "cycling"].contains(activity) { samples[workout].route = Self.route(from: runStart, using: &extra) }
            // The Watch's heart rate during it, every two minutes from its first: samples of their
            // own (both doors), and the workout's series (the app's later phase sends it too).
            var reading = runStart + 60_000 + Double(extra.next() % 999) + 0.125
            while reading < samples[workout].end {
                let value = Double(110 + extra.next() % 60)
                samples[workout].series.append((reading, value))
                samples.append(Sample(uuid: uuid(), type: "HKQuantityTypeIdentifierHeartRate", kind: "quantity", start: reading, end: reading,
                                      value: value, unit: "count/min", source: "Apple Watch"))
                reading += 120_000
            }
            // The night's HRV reading, and the heartbeat series it was computed from right after it.
            let hrv = midnight + 3 * 3600 + Int64(extra.next() % 1800)
            let beats = (0..<40).reduce(into: [Double]()) { beats, _ in
                beats.append((beats.last ?? 0) + 0.75 + Double(extra.next() % 400) / 1000 + 0.0003)
            }
            add("HKQuantityTypeIdentifierHeartRateVariabilitySDNN", "quantity", instant(hrv), instant(hrv + 60),
                30 + Double(extra.next() % 60_000) / 1000, "ms", watch: true)
            let series = Double(hrv) * 1000 + 250.5
            add("HKDataTypeIdentifierHeartbeatSeries", "heartbeatSeries", series, series + beats.last! * 1000, nil, nil, watch: true)
            samples[samples.count - 1].beats = beats
            if day % 7 == 1 {
                let recorded = Double(midnight + 10 * 3600 + Int64(extra.next() % 3600)) * 1000 + 321.5
                // Thirty seconds at 512 Hz, as the Watch records: more records than an import writes in
                // one transaction, so an ECG's parts are stored across two.
                add("HKDataTypeIdentifierElectrocardiogram", "ecg", recorded, recorded + 30_000, nil, nil, watch: true)
                samples[samples.count - 1].voltages = (0..<15_360).map { _ in Double(Int64(extra.next() % 400_000) - 200_000) / 1000 }
            }
            let date = Date(timeIntervalSince1970: TimeInterval(midnight))
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            let parts = calendar.dateComponents([.year, .month, .day], from: date)
            ringDays.append(Rings(date: String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!), midnight: midnight,
                                  move: Double(extra.next() % 900_000) / 1000, moveGoal: 600, exercise: Double(extra.next() % 90),
                                  exerciseGoal: 30, stand: Double(extra.next() % 16), standGoal: 12))
        }
        self.samples = samples
        rings = ringDays
    }

    /// Thirty fixes, one every ten seconds from a workout's start. Every third fix's altitude,
    /// speed, course and accuracies lie within a millionth of where the catalogue's rounding turns
    /// (5 mm, 5 mm/s, 0.05°, 5 cm): the export's six decimals and the app's full value then round
    /// a step apart, which must not make them two fixes.
    static func route(from start: Double, using random: inout SplitMix64) -> [RouteFix] {
        (0..<30).map { index in
            let edge = index % 3 == 0
            func near(_ step: Double, _ base: Double) -> Double {
                guard edge else { return base }
                return (base / step).rounded(.down) * step + step / 2 + (index % 2 == 0 ? 4e-7 : -4e-7)
            }
            func fraction(_ scale: UInt64) -> Double { Double(random.next() % scale) / Double(scale) }
            return RouteFix(t: start + Double(index) * 10_000 + Double(random.next() % 999) + 0.25,
                            latitude: 37.7 + fraction(1_000_000_000) / 10, longitude: -122.4 + fraction(1_000_000_000) / 10,
                            altitude: near(0.01, 4 + fraction(10_000_000) * 10), speed: near(0.01, 2 + fraction(1_000_000)),
                            course: near(0.1, fraction(360_000_000) * 360), horizontalAccuracy: near(0.1, 3 + fraction(5_000_000) * 5),
                            verticalAccuracy: near(0.1, 2 + fraction(5_000_000) * 5))
        }
    }

    /// The samples as the app's batches of `size` samples, in order, each batch's NDJSON text;
    /// then, as the app's later phases send them, one batch of the workouts' routes and the rings.
    public func batches(size: Int) -> [String] {
        var batches = stride(from: 0, to: samples.count, by: size).map { start in
            let lines = samples[start..<min(start + size, samples.count)].map(Self.line)
            return PulsBatchText.batch(type: "mixed", samples: lines)
        }
        let routes = samples.filter { !$0.route.isEmpty }.map(Self.routeLine)
        let series = samples.filter { !$0.series.isEmpty }.map(Self.seriesLine)
        if !routes.isEmpty || !series.isEmpty || !rings.isEmpty {
            batches.append(PulsBatchText.batch(type: "mixed", routes: routes, series: series, summaries: rings.map(Self.ringsLine)))
        }
        return batches
    }

    /// A workout's heart rate as the app's series line (§4.4), its points the readings' own instants and values.
    static func seriesLine(_ sample: Sample) -> String {
        let points = sample.series.map { "{\"t\":\(PulsBatchText.number($0.t)),\"value\":\(PulsBatchText.number($0.value))}" }
        return "{\"series\":{\"workoutUUID\":\"\(sample.uuid)\",\"type\":\"HKQuantityTypeIdentifierHeartRate\",\"unit\":\"count/min\","
            + "\"points\":[\(points.joined(separator: ","))]}}"
    }

    /// The export's `HKWorkoutActivityType` suffix for the app's word.
    static func exportActivity(_ word: String) -> String { activities.first { $0.0 == word }?.1 ?? "Other" }

    static func routeLine(_ sample: Sample) -> String {
        let points = sample.route.map { fix in
            "{\"t\":\(PulsBatchText.number(fix.t)),\"lat\":\(fix.latitude),\"lon\":\(fix.longitude),\"alt\":\(fix.altitude),"
                + "\"hAcc\":\(fix.horizontalAccuracy),\"vAcc\":\(fix.verticalAccuracy),\"speed\":\(fix.speed),\"course\":\(fix.course)}"
        }
        return "{\"route\":{\"workoutUUID\":\"\(sample.uuid)\",\"points\":[\(points.joined(separator: ","))]}}"
    }

    static func ringsLine(_ rings: Rings) -> String {
        "{\"activitySummary\":{\"date\":\(rings.midnight * 1000),\"localDate\":\"\(rings.date)\",\"moveKcal\":\(PulsBatchText.number(rings.move)),"
            + "\"moveGoalKcal\":\(PulsBatchText.number(rings.moveGoal)),\"exerciseMin\":\(PulsBatchText.number(rings.exercise)),"
            + "\"exerciseGoalMin\":\(PulsBatchText.number(rings.exerciseGoal)),\"standHours\":\(PulsBatchText.number(rings.stand)),"
            + "\"standGoalHours\":\(PulsBatchText.number(rings.standGoal)),\"moveMode\":0}}"
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
        case "heartbeatSeries":
            return head + ",\"heartbeats\":[\(sample.beats.map { "[\($0),false]" }.joined(separator: ","))]}"
        case "ecg":
            return head + ",\"ecg\":{\"classification\":\"sinusRhythm\",\"samplingFrequencyHz\":512,\"symptomsStatus\":\"none\","
                + "\"voltagesUV\":[\(sample.voltages.map { String($0) }.joined(separator: ","))]}}"
        default:
            let seconds = (sample.end - sample.start) / 1000
            var detail = "\"activityType\":\"\(sample.activity)\",\"duration\":\(PulsBatchText.number(seconds))"
                + ",\"activities\":[{\"activityType\":\"\(sample.activity)\",\"start\":\(PulsBatchText.number(sample.start)),"
                + "\"end\":\(PulsBatchText.number(sample.end)),\"duration\":\(PulsBatchText.number(seconds))}]"
            if let energy = sample.energy { detail += ",\"totalEnergyKcal\":\(PulsBatchText.number(energy))" }
            if let distance = sample.distance { detail += ",\"totalDistanceMeters\":\(PulsBatchText.number(distance))" }
            if !sample.events.isEmpty {
                let events = sample.events.map { "{\"type\":\"\($0.type == 1 ? "pause" : "resume")\",\"start\":\(PulsBatchText.number($0.at))}" }
                detail += ",\"events\":[\(events.joined(separator: ","))]"
            }
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
        for (index, sample) in samples.enumerated() where !excluded.contains(sample.uuid) {
            let watch = sample.source == "Apple Watch"
            let source = watch ? "Apple Watch" : "Anna&apos;s iPhone"
            let device = watch ? "&lt;&lt;HKDevice: 0x1&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,1&gt;"
                : "&lt;&lt;HKDevice: 0x2&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone14,2&gt;"
            let common = "sourceName=\"\(source)\" sourceVersion=\"17.0\" device=\"\(device)\" creationDate=\"\(date(sample.end))\" "
                + "startDate=\"\(date(sample.start))\" endDate=\"\(date(sample.end))\""
            switch sample.kind {
            case "quantity":
                let (unit, factor) = Self.exportUnits[sample.unit!] ?? (sample.unit!, 1)
                text += " <Record type=\"\(sample.type)\" \(common) unit=\"\(unit)\" value=\"\(Self.sixDigits(sample.value! * factor))\""
                // An HRV record holds the heartbeat series after it, when the export has that too.
                if index + 1 < samples.count, case let series = samples[index + 1], series.kind == "heartbeatSeries",
                   !excluded.contains(series.uuid) {
                    text += ">\n  <HeartRateVariabilityMetadataList>\n"
                    var previous: Double?
                    for beat in series.beats {
                        let bpm = previous.map { 60 / (beat - $0) } ?? 60 / series.beats[1]
                        previous = beat
                        let at = series.start / 1000 + beat
                        // To the centisecond, cut rather than rounded (never `60.00`).
                        let day = (at.truncatingRemainder(dividingBy: 86_400) * 100).rounded(.down) / 100
                        let time = String(format: "%02d:%02d:%05.2f", Int(day) / 3600, Int(day) % 3600 / 60, day.truncatingRemainder(dividingBy: 60))
                        text += "   <InstantaneousBeatsPerMinute bpm=\"\(Int(bpm.rounded()))\" time=\"\(time)\"/>\n"
                    }
                    text += "  </HeartRateVariabilityMetadataList>\n </Record>\n"
                } else {
                    text += "/>\n"
                }
            case "heartbeatSeries", "ecg":
                // Nested in its HRV record; an ECG is a file of its own.
                break
            case "category":
                text += " <Record type=\"\(sample.type)\" \(common) value=\"\(Self.sleepNames[Int(sample.value!)])\"/>\n"
            default:
                let minutes = Self.sixDigits((sample.end - sample.start) / 60_000)
                var totals = ""
                if let distance = sample.distance { totals += " totalDistance=\"\(Self.sixDigits(distance / 1000))\" totalDistanceUnit=\"km\"" }
                if let energy = sample.energy { totals += " totalEnergyBurned=\"\(Self.sixDigits(energy))\" totalEnergyBurnedUnit=\"kcal\"" }
                text += " <Workout workoutActivityType=\"HKWorkoutActivityType\(Self.exportActivity(sample.activity))\" duration=\"\(minutes)\" "
                    + "durationUnit=\"min\"\(totals) \(common)>\n"
                text += "  <WorkoutActivity uuid=\"\(sample.uuid)\" startDate=\"\(date(sample.start))\" endDate=\"\(date(sample.end))\" "
                    + "duration=\"\(minutes)\" durationUnit=\"min\"/>\n"
                if let rate = sample.heartRate {
                    text += "  <WorkoutStatistics type=\"HKQuantityTypeIdentifierHeartRate\" startDate=\"\(date(sample.start))\" "
                        + "endDate=\"\(date(sample.end))\" average=\"\(Self.sixDigits(rate.average))\" minimum=\"\(Self.sixDigits(rate.minimum))\" "
                        + "maximum=\"\(Self.sixDigits(rate.maximum))\" unit=\"count/min\"/>\n"
                }
                for event in sample.events {
                    text += "  <WorkoutEvent type=\"HKWorkoutEventType\(event.type == 1 ? "Pause" : "Resume")\" date=\"\(date(event.at))\"/>\n"
                }
                if let path = Self.routePath(sample) {
                    text += "  <WorkoutRoute sourceName=\"\(source)\" sourceVersion=\"17.0\" creationDate=\"\(date(sample.end))\" "
                        + "startDate=\"\(date(sample.route[0].t))\" endDate=\"\(date(sample.route[sample.route.count - 1].t))\">\n"
                        + "   <FileReference path=\"/\(path)\"/>\n  </WorkoutRoute>\n"
                }
                text += " </Workout>\n"
            }
        }
        for rings in rings {
            text += " <ActivitySummary dateComponents=\"\(rings.date)\" activeEnergyBurned=\"\(Self.sixDigits(rings.move))\" "
                + "activeEnergyBurnedGoal=\"\(Self.sixDigits(rings.moveGoal))\" activeEnergyBurnedUnit=\"kcal\" "
                + "appleExerciseTime=\"\(Self.sixDigits(rings.exercise))\" appleExerciseTimeGoal=\"\(Self.sixDigits(rings.exerciseGoal))\" "
                + "appleStandHours=\"\(Self.sixDigits(rings.stand))\" appleStandHoursGoal=\"\(Self.sixDigits(rings.standGoal))\"/>\n"
        }
        return text + "</HealthData>\n"
    }

    /// The export as its files, by their path in `apple_health_export/`: `export.xml` and a GPX
    /// file in `workout-routes/` for each workout's route (six decimals a field, whole seconds).
    public func exportFiles(excluding excluded: Set<String> = []) -> [(path: String, text: String)] {
        var files = [("export.xml", exportXML(excluding: excluded))]
        let formatter = ISO8601DateFormatter()
        let recorded = DateFormatter()
        recorded.locale = Locale(identifier: "en_US_POSIX")
        recorded.timeZone = TimeZone(identifier: "UTC")
        recorded.dateFormat = "yyyy-MM-dd HH:mm:ss '+0000'"
        for sample in samples where !excluded.contains(sample.uuid) && sample.kind == "ecg" {
            let date = Date(timeIntervalSince1970: (sample.start / 1000).rounded(.down))
            var text = "Name,Anna\nDate of Birth,\"Jan 15, 1990\"\nRecorded Date,\(recorded.string(from: date))\nClassification,Sinus Rhythm\n"
                + "Symptoms,\nSoftware Version,2\nDevice,\"Watch6,1\"\nSample Rate,512 hertz\n\nLead,Lead I\nUnit,µV\n\n"
            for voltage in sample.voltages { text += String(format: "%.3f\n", voltage) }
            files.append(("electrocardiograms/ecg_\(sample.uuid.prefix(8)).csv", text))
        }
        for sample in samples where !excluded.contains(sample.uuid) {
            guard let path = Self.routePath(sample) else { continue }
            var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\" creator=\"Apple Health Export\" "
                + "xmlns=\"http://www.topografix.com/GPX/1/1\">\n  <trk>\n    <trkseg>\n"
            for fix in sample.route {
                let time = formatter.string(from: Date(timeIntervalSince1970: (fix.t / 1000).rounded(.down)))
                text += String(format: "      <trkpt lon=\"%.6f\" lat=\"%.6f\"><ele>%.6f</ele>", fix.longitude, fix.latitude, fix.altitude)
                    + "<time>\(time)</time>"
                    + String(format: "<extensions><speed>%.6f</speed><course>%.6f</course><hAcc>%.6f</hAcc><vAcc>%.6f</vAcc></extensions></trkpt>\n",
                             fix.speed, fix.course, fix.horizontalAccuracy, fix.verticalAccuracy)
            }
            files.append((path, text + "    </trkseg>\n  </trk>\n</gpx>\n"))
        }
        return files
    }

    /// `uuids` with the heartbeat series of each HRV reading among them: the export writes a series
    /// inside its reading, so a history without the reading has no series either.
    public func withSeries(_ uuids: Set<String>) -> Set<String> {
        var all = uuids
        for (index, sample) in samples.enumerated().dropLast() where uuids.contains(sample.uuid) && samples[index + 1].kind == "heartbeatSeries" {
            all.insert(samples[index + 1].uuid)
        }
        return all
    }

    /// Where the export keeps a workout's route, nil when it has none.
    static func routePath(_ sample: Sample) -> String? {
        sample.route.isEmpty ? nil : "workout-routes/route_\(sample.uuid.prefix(8)).gpx"
    }

    /// `value` with six significant digits, as the export's text writes a quantity (`%g`).
    public static func sixDigits(_ value: Double) -> String { String(format: "%g", value) }
}
