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
        func part(_ metric: String, _ start: Double, _ end: Double, _ value: Double?, activity: String? = nil, duration: Double? = nil) throws {
            written.insert(metric)
            try sink.record(SourceRecord(kind: .part, type: metric, source: workout.source, deviceModel: workout.deviceModel,
                                         start: start, end: end, value: value, activity: activity, duration: duration))
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
        let distance = RecordParts.workoutStatistic(WorkoutActivity.distanceType(WorkoutActivity.number(workout.activity)), .sum)
        if !written.contains(distance), let total = detail["totalDistanceMeters"]?.numberValue {
            try part(distance, workout.start, workout.end, total)
        }
        for event in detail["events"]?.arrayValue ?? [] {
            guard let start = event["start"]?.numberValue.map({ $0 / 1000 }), let type = event["type"]?.stringValue else { continue }
            guard let number = RecordParts.workoutEventTypes[type] else {
                try sink.leftOut(LeftOut("workout event", .unreadable("event type \(type) is not one HealthKit defines")))
                continue
            }
            try part(RecordParts.workoutEvent, start, event["end"]?.numberValue.map { $0 / 1000 } ?? start, Double(number))
        }
        for activity in detail["activities"]?.arrayValue ?? [] {
            guard let start = activity["start"]?.numberValue.map({ $0 / 1000 }) else { continue }
            let duration = activity["duration"]?.numberValue
            let end = activity["end"]?.numberValue.map { $0 / 1000 } ?? start + (duration ?? 0)
            try part(RecordParts.workoutActivity, start, end, nil, activity: activity["activityType"]?.stringValue ?? workout.activity,
                     duration: duration)
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
        let classification = detail["classification"]?.stringValue.flatMap { RecordParts.ecgClassifications[$0] }
        var record = sample
        record.kind = .part
        record.type = RecordParts.electrocardiogram
        record.value = classification.map(Double.init)
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
        let parts = [(RecordParts.stateOfMindKind, detail["kind"]?.stringValue.flatMap { RecordParts.stateOfMindKinds[$0] }),
                     (RecordParts.stateOfMindValenceClassification,
                      detail["valenceClassification"]?.stringValue.flatMap { RecordParts.valenceClassifications[$0] })]
        for (part, value) in parts {
            guard let value else { continue }
            try sink.record(SourceRecord(kind: .part, type: part.metric, source: sample.source, deviceModel: sample.deviceModel,
                                         start: sample.start, end: sample.end, value: Double(value)))
        }
        if !(detail["labels"]?.arrayValue ?? []).isEmpty || !(detail["associations"]?.arrayValue ?? []).isEmpty {
            try sink.leftOut(LeftOut("State of Mind labels and associations", .onPurpose("lists of names the day body has no field for")))
        }
    }
}
