import EfferentCore
import EfferentWriter

/// The detail a Puls Sync batch carries beyond plain samples, as parts (decision A.9). Values
/// arrive in the catalogue's canonical units, so parts take them as written.
extension PulsHealthReader {
    /// PulsHealth's aggregate names → HealthKit's.
    static let aggregates: [(String, RecordParts.Aggregate)] = [("sum", .sum), ("avg", .average), ("min", .minimum), ("max", .maximum)]

    func workoutParts(_ workout: SourceRecord, _ detail: JSONValue?) throws {
        guard let detail else { return }
        var written = Set<String>()
        func part(_ metric: String, _ start: Double, _ end: Double, _ value: Double?) throws {
            written.insert(metric)
            try sink.record(SourceRecord(kind: .part, type: metric, source: workout.source, deviceModel: workout.deviceModel,
                                         start: start, end: end, value: value))
        }
        func statistics(_ object: JSONValue?, _ start: Double, _ end: Double, inActivity: Bool) throws {
            for (type, values) in (object?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
                for (name, aggregate) in Self.aggregates {
                    guard let value = values[name]?.numberValue else { continue }
                    try part(RecordParts.workoutStatistic(type, aggregate, inActivity: inActivity), start, end, value)
                }
            }
        }
        try statistics(detail["statisticsDetail"], workout.start, workout.end, inActivity: false)
        let energy = RecordParts.workoutStatistic("HKQuantityTypeIdentifierActiveEnergyBurned", .sum)
        if !written.contains(energy), let total = detail["totalEnergyKcal"]?.numberValue {
            try part(energy, workout.start, workout.end, total)
        }
        let distance = RecordParts.workoutStatistic(WorkoutActivity.distanceType(workout.resolvedActivity ?? WorkoutActivity.number(workout.activity)),
                                                    .sum)
        if !written.contains(distance), let total = detail["totalDistanceMeters"]?.numberValue {
            try part(distance, workout.start, workout.end, total)
        }
        for event in detail["events"]?.arrayValue ?? [] {
            guard let start = event["start"]?.numberValue.map({ $0 / 1000 }), let type = event["type"]?.stringValue else { continue }
            // An event type newer than this version is kept by its word (`stage`), not dropped.
            let number = PulsVocabulary.workoutEvent(type)
            try sink.record(SourceRecord(kind: .part, type: RecordParts.workoutEvent, source: workout.source, deviceModel: workout.deviceModel,
                                         start: start, end: event["end"]?.numberValue.map { $0 / 1000 } ?? start,
                                         value: number.map(Double.init), category: number == nil ? type : nil))
        }
        for activity in detail["activities"]?.arrayValue ?? [] {
            guard let start = activity["start"]?.numberValue.map({ $0 / 1000 }) else { continue }
            let duration = activity["duration"]?.numberValue
            let end = activity["end"]?.numberValue.map { $0 / 1000 } ?? start + (duration ?? 0)
            let word = activity["activityType"]?.stringValue
            try sink.record(SourceRecord(kind: .part, type: RecordParts.workoutActivity, source: workout.source, deviceModel: workout.deviceModel,
                                         start: start, end: end, activity: word ?? workout.activity,
                                         resolvedActivity: word.map(PulsVocabulary.activity) ?? workout.resolvedActivity, duration: duration))
            try statistics(activity["statistics"], start, end, inActivity: true)
        }
    }

    /// A route line: GPS fixes of one workout, filed under that workout's source when this input
    /// named it (a line may come in a later batch than its workout; its source is then empty).
    func route(_ line: JSONValue, _ number: Int) throws {
        guard let points = line["points"]?.arrayValue else { throw bad("a route line without points", number) }
        let owner = try workout(line["workoutUUID"]?.stringValue)
        let writer = SampleSeriesWriter(sink: sink, source: owner?.source ?? "", deviceModel: owner?.deviceModel)
        var route = WorkoutRoute(file: nil, source: owner?.source, points: 0, start: nil, end: nil)
        for point in points {
            route.points += 1
            let fix = RouteFix(time: point["t"]?.numberValue.map { $0 / 1000 }, latitude: point["lat"]?.numberValue,
                               longitude: point["lon"]?.numberValue, altitude: point["alt"]?.numberValue,
                               speed: point["speed"]?.numberValue, course: point["course"]?.numberValue,
                               horizontalAccuracy: point["hAcc"]?.numberValue, verticalAccuracy: point["vAcc"]?.numberValue)
            if let time = fix.time { route.include(time) }
            if try !fix.write(to: writer) { try sink.leftOut(LeftOut("workout route fix", .unreadable("no time or no coordinates"))) }
        }
        routeCount += 1
        try sink.workoutRoute(route)
    }

    /// A series line: readings of one quantity type during a workout, each a sample of that type.
    func series(_ line: JSONValue, _ number: Int) throws {
        guard let type = line["type"]?.stringValue, let points = line["points"]?.arrayValue else {
            throw bad("a series line without a type or points", number)
        }
        let owner = try workout(line["workoutUUID"]?.stringValue)
        for point in points {
            guard let t = point["t"]?.numberValue, let value = point["value"]?.numberValue else {
                throw bad("a series point without \"t\" and \"value\"", number)
            }
            try sink.record(SourceRecord(kind: .quantity, type: type, source: owner?.source ?? "", deviceModel: owner?.deviceModel,
                                         start: t / 1000, end: t / 1000, value: value, unit: line["unit"]?.stringValue))
        }
    }

    /// The workout a route or series line names, from this input or, failing that, from earlier ones.
    func workout(_ uuid: String?) throws -> SourceRecord? {
        guard let key = uuid?.lowercased() else { return nil }
        return try workouts[key] ?? earlierWorkout?(key)
    }

    /// The local day an activity-summary line is for (§6.5): its `localDate`; on older clients the
    /// date of `date` shifted by the line's `temporalContext.utcOffsetSeconds`, else its UTC date.
    static func summaryDay(_ line: JSONValue) -> String? {
        if let local = line["localDate"]?.stringValue { return local }
        guard let date = line["date"]?.numberValue, date.isFinite else { return nil }
        let offset = line["temporalContext"]?["utcOffsetSeconds"]?.numberValue ?? 0
        return CalendarDay(unixSeconds: Int64((date / 1000 + offset).rounded(.down))).description
    }

    /// An activity-summary line: one day's rings, the whole row (PulsHealth §4.6).
    func activitySummary(_ line: JSONValue) throws {
        guard let day = Self.summaryDay(line) else { return }
        var rings = [String: Double]()
        let names = [("moveKcal", "activeEnergyBurned"), ("moveGoalKcal", "activeEnergyBurnedGoal"), ("exerciseMin", "appleExerciseTime"),
                     ("exerciseGoalMin", "appleExerciseTimeGoal"), ("standHours", "appleStandHours"), ("standGoalHours", "appleStandHoursGoal"),
                     ("moveTimeMin", "appleMoveTime"), ("moveTimeGoalMin", "appleMoveTimeGoal")]
        for (field, name) in names { rings[name] = line[field]?.numberValue }
        try sink.activitySummary(ActivitySummaryRecord(day: day, activeEnergyKilocalories: rings["activeEnergyBurned"],
                                                       exerciseMinutes: rings["appleExerciseTime"], standHours: rings["appleStandHours"],
                                                       rings: rings))
    }

    func electrocardiogram(_ sample: SourceRecord, _ detail: JSONValue?, _ number: Int) throws {
        guard let detail else { throw bad("an ecg sample without its \"ecg\" object", number) }
        // A rate of 0 (or less) would put every voltage at one instant, or before the recording.
        let rate = detail["samplingFrequencyHz"]?.numberValue.flatMap { $0 > 0 ? $0 : nil } ?? 512
        let word = detail["classification"]?.stringValue
        let classification = word.flatMap(PulsVocabulary.ecgClassification)
        var record = sample
        record.kind = .part
        record.type = RecordParts.electrocardiogram
        record.value = classification.map(Double.init)
        // A classification newer than this version keeps its word (`stage`) for a later one to map.
        record.category = classification == nil ? word : nil
        try sink.record(record)
        for (part, value) in [(RecordParts.ecgAverageHeartRate, detail["averageHeartRateBpm"]?.numberValue),
                              (RecordParts.ecgSamplingFrequency, detail["samplingFrequencyHz"]?.numberValue)] {
            guard let value else { continue }
            try sink.record(SourceRecord(kind: .part, type: part.metric, source: sample.source, deviceModel: sample.deviceModel,
                                         start: sample.start, end: sample.end, value: value, unit: part.unit))
        }
        let writer = SampleSeriesWriter(sink: sink, source: sample.source, deviceModel: sample.deviceModel)
        for (index, voltage) in (detail["voltagesUV"]?.arrayValue ?? []).enumerated() {
            try writer.write(at: sample.start + Double(index) / rate, [(RecordParts.ecgVoltage, voltage.numberValue, "mcV")])
        }
    }

    /// `[[secondsSinceStart, precededByGap], …]` → one beat each, its rate from the beat before
    /// (none for the first, or after a gap).
    func heartbeats(_ sample: SourceRecord, _ beats: JSONValue?, _ number: Int) throws {
        let writer = SampleSeriesWriter(sink: sink, source: sample.source, deviceModel: sample.deviceModel)
        var previous: Double?
        for beat in beats?.arrayValue ?? [] {
            guard let pair = beat.arrayValue, pair.count == 2, let offset = pair[0].numberValue else {
                throw bad("a heartbeat that is not [seconds, precededByGap]", number)
            }
            let gap = pair[1] == .bool(true)
            let rate = previous.flatMap { offset > $0 && !gap ? 60 / (offset - $0) : nil }
            try writer.write(at: sample.start + offset, [(RecordParts.heartbeat, rate, "count/min")], keepingEmpty: true)
            previous = offset
        }
    }

    func stateOfMind(_ sample: SourceRecord, _ detail: JSONValue?) throws {
        guard let detail else { return }
        var record = sample
        record.kind = .part
        record.type = RecordParts.stateOfMind
        record.value = detail["valence"]?.numberValue
        try sink.record(record)
        var words: [(metric: String, word: String, value: Int?)] = []
        if let kind = detail["kind"]?.stringValue { words.append((RecordParts.stateOfMindKind.metric, kind, PulsVocabulary.stateOfMindKind(kind))) }
        if let valence = detail["valenceClassification"]?.stringValue {
            words.append((RecordParts.stateOfMindValenceClassification.metric, valence, PulsVocabulary.valenceClassification(valence)))
        }
        for label in detail["labels"]?.arrayValue ?? [] {
            guard let word = label.stringValue else { continue }
            words.append((RecordParts.stateOfMindLabel.metric, word, PulsVocabulary.stateOfMindLabel(word)))
        }
        for association in detail["associations"]?.arrayValue ?? [] {
            guard let word = association.stringValue else { continue }
            words.append((RecordParts.stateOfMindAssociation.metric, word, PulsVocabulary.stateOfMindAssociation(word)))
        }
        for (metric, word, value) in words {
            try sink.record(Self.named(metric, word, value, at: sample))
        }
    }

    /// A medication dose (iOS 26): `medicationDose`, its `value` the log status, and the dose in the
    /// medication's own unit; the medication's name is text the day body has no field for.
    func medicationDose(_ sample: SourceRecord, _ detail: JSONValue?) throws {
        guard let detail else { return }
        let status = detail["status"]?.stringValue ?? ""
        try sink.record(Self.named(RecordParts.medicationDose, status, PulsVocabulary.medicationStatus(status), at: sample))
        if let quantity = detail["doseQuantity"]?.numberValue {
            try sink.record(SourceRecord(kind: .part, type: RecordParts.medicationDoseQuantity.metric, source: sample.source,
                                         deviceModel: sample.deviceModel, start: sample.start, end: sample.end, value: quantity,
                                         unit: detail["doseUnit"]?.stringValue))
        }
        if detail["medication"]?.stringValue != nil {
            try sink.leftOut(LeftOut("medication name", .onPurpose("a medication's name is text the day body has no field for")))
        }
    }

    /// The part `metric` of `sample` naming an enumeration's case: its `value` HealthKit's raw
    /// value, or, for a word this version does not know, the word as it came (`stage`).
    static func named(_ metric: String, _ word: String, _ value: Int?, at sample: SourceRecord) -> SourceRecord {
        SourceRecord(kind: .part, type: metric, source: sample.source, deviceModel: sample.deviceModel, start: sample.start,
                     end: sample.end, value: value.map(Double.init), category: value == nil ? word : nil)
    }
}
