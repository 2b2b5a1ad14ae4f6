import EfferentCore

/// A sample line (§4.1) as checked against `sample.schema.json`: what the receiver keeps of it
/// besides the records it maps to.
public struct PulsSample: Sendable, Equatable {
    public let uuid: PulsUUID
    public let type: String
    public let kind: String
    /// Epoch milliseconds, as sent.
    public let start: Double
    /// Kept for a workout: its route and series lines may come in later batches and take its source.
    public let source: String?
    public let device: String?

    static let kinds: Set<String> = ["quantity", "category", "workout", "heartbeatSeries", "ecg", "stateOfMind", "medicationDose"]
    /// The detail object each kind carries; exactly the kind's own must be there (§4.1).
    static let details = ["workout": "workout", "heartbeatSeries": "heartbeats", "ecg": "ecg", "stateOfMind": "stateOfMind",
                          "medicationDose": "medicationDose"]

    init(_ fields: PulsFields) throws(PulsBatchError) {
        uuid = try fields.uuid("uuid")
        type = try fields.string("type", required: true, nonEmpty: true)!
        guard let kind = try fields.string("kind", required: true) else { throw fields.fail("kind", "is missing") }
        guard Self.kinds.contains(kind) else { throw fields.fail("kind", "is not a sample kind of protocol version 1") }
        self.kind = kind
        start = try fields.epochMilliseconds("start", required: true)!
        _ = try fields.epochMilliseconds("end")
        try fields.temporalContext("startContext")
        try fields.temporalContext("endContext")
        _ = try fields.number("value")
        _ = try fields.string("unit")
        let category = try fields.integer("category", in: -32_768...32_767)
        if kind == "category" && category == nil { throw fields.fail("category", "is missing (a category sample carries its integer)") }
        try fields.nullableStrings(["sourceName", "sourceBundleID", "sourceVersion", "device"])
        try fields.metadata("metadata")
        source = try fields.string("sourceName")
        device = try fields.string("device")
        if let detail = Self.details[kind], fields.value(detail) == nil {
            throw fields.fail(detail, "is missing (a \(kind) sample carries it)")
        }
        // Every detail present is checked whatever the kind, as the schema's properties are.
        if let workout = try fields.object("workout") { try Self.workout(workout) }
        if let beats = try fields.array("heartbeats") { try Self.heartbeats(beats, fields) }
        if let ecg = try fields.object("ecg") { try Self.electrocardiogram(ecg) }
        if let mood = try fields.object("stateOfMind") { try Self.stateOfMind(mood) }
        if let dose = try fields.object("medicationDose") { try Self.medicationDose(dose) }
    }

    static func workout(_ fields: PulsFields) throws(PulsBatchError) {
        _ = try fields.string("activityType", required: true, nonEmpty: true)
        _ = try fields.number("duration", required: true)
        try fields.nullableNumbers(["totalEnergyKcal", "totalDistanceMeters"])
        if let flat = try fields.object("statistics") {
            for key in flat.members.keys { _ = try flat.number(key, required: true) }
        }
        if let detail = try fields.object("statisticsDetail") {
            for key in detail.members.keys { try statistic(try detail.object(key, required: true)!) }
        }
        for (index, event) in (try fields.array("events") ?? []).enumerated() {
            let event = try PulsFields(event, place: .item(fields.place, item: "event", index: index + 1))
            _ = try event.string("type", required: true, nonEmpty: true)
            _ = try event.epochMilliseconds("start", required: true)
            _ = try event.epochMilliseconds("end")
            try event.temporalContext("startContext")
            try event.temporalContext("endContext")
            try event.metadata("metadata")
        }
        for (index, activity) in (try fields.array("activities") ?? []).enumerated() {
            let activity = try PulsFields(activity, place: .item(fields.place, item: "activity", index: index + 1))
            _ = try activity.string("activityType", required: true, nonEmpty: true)
            _ = try activity.epochMilliseconds("start", required: true)
            _ = try activity.epochMilliseconds("end")
            try activity.temporalContext("startContext")
            try activity.temporalContext("endContext")
            _ = try activity.number("duration", required: true)
            if let statistics = try activity.object("statistics") {
                for key in statistics.members.keys { try statistic(try statistics.object(key, required: true)!) }
            }
        }
    }

    /// One type's `{min, avg, max, sum}` over a workout or activity.
    static func statistic(_ fields: PulsFields) throws(PulsBatchError) {
        try fields.nullableNumbers(["min", "avg", "max", "sum"])
    }

    /// `[[secondsSinceStart, precededByGap], …]`: any other arity is a 400 (§4.1).
    static func heartbeats(_ beats: [JSONValue], _ fields: PulsFields) throws(PulsBatchError) {
        for beat in beats {
            guard let pair = beat.arrayValue, pair.count == 2, pair[0].numberValue?.isFinite == true, case .bool = pair[1] else {
                throw fields.fail("heartbeats", "holds a beat that is not [seconds, precededByGap]")
            }
        }
    }

    static func electrocardiogram(_ fields: PulsFields) throws(PulsBatchError) {
        _ = try fields.string("classification", required: true, nonEmpty: true)
        _ = try fields.string("symptomsStatus", required: true, nonEmpty: true)
        try fields.nullableNumbers(["averageHeartRateBpm", "samplingFrequencyHz"])
        for voltage in try fields.array("voltagesUV", required: true)! where voltage.numberValue?.isFinite != true {
            throw fields.fail("voltagesUV", "holds something other than numbers")
        }
    }

    static func stateOfMind(_ fields: PulsFields) throws(PulsBatchError) {
        _ = try fields.string("kind", required: true, nonEmpty: true)
        _ = try fields.number("valence", required: true, in: -1...1)
        _ = try fields.string("valenceClassification", required: true, nonEmpty: true)
        try fields.strings("labels", required: true)
        try fields.strings("associations", required: true)
    }

    static func medicationDose(_ fields: PulsFields) throws(PulsBatchError) {
        _ = try fields.string("status", required: true, nonEmpty: true)
        try fields.nullableStrings(["medication", "doseUnit"])
        _ = try fields.epochMilliseconds("scheduledAt")
        try fields.temporalContext("scheduledAtContext")
        _ = try fields.number("doseQuantity")
    }
}
