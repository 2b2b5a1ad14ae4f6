import EfferentCore

/// A deletion tombstone (§4.2).
public struct PulsDeletion: Sendable, Equatable {
    public let uuid: PulsUUID
    public let type: String

    init(_ fields: PulsFields) throws(PulsBatchError) {
        uuid = try fields.uuid("uuid")
        type = try fields.string("type", required: true, nonEmpty: true)!
    }
}

/// A route or series line (§4.3, §4.4): points of one workout, identified by (workout, t) and,
/// for a series, its type.
public struct PulsPoints: Sendable, Equatable {
    public let workout: PulsUUID
    /// The series' quantity type; nil for a route.
    public let type: String?
    /// Each point's `t`, epoch milliseconds.
    public let times: [Double]

    init(route fields: PulsFields, limits: PulsLimits) throws(PulsBatchError) {
        workout = try fields.uuid("workoutUUID")
        type = nil
        times = try Self.points(fields, limits: limits) { point throws(PulsBatchError) in
            _ = try point.number("lat", required: true)
            _ = try point.number("lon", required: true)
            try point.nullableNumbers(["alt", "hAcc", "vAcc", "speed", "course"])
        }
    }

    init(series fields: PulsFields, limits: PulsLimits) throws(PulsBatchError) {
        workout = try fields.uuid("workoutUUID")
        type = try fields.string("type", required: true, nonEmpty: true)!
        _ = try fields.string("unit")
        times = try Self.points(fields, limits: limits) { point throws(PulsBatchError) in
            _ = try point.number("value", required: true)
        }
    }

    private static func points(_ fields: PulsFields, limits: PulsLimits,
                               _ check: (PulsFields) throws(PulsBatchError) -> Void) throws(PulsBatchError) -> [Double] {
        let points = try fields.array("points", required: true)!
        guard points.count <= limits.pointsPerLine else {
            throw .tooLarge("\(fields.place): more than \(limits.pointsPerLine) points in one line")
        }
        var times = [Double]()
        times.reserveCapacity(points.count)
        for (index, point) in points.enumerated() {
            let point = try PulsFields(point, place: .item(fields.place, item: "point", index: index + 1))
            times.append(try point.epochMilliseconds("t", required: true)!)
            try point.temporalContext("temporalContext")
            try check(point)
        }
        return times
    }
}

/// One on-device statistics bucket (§4.5), upserted on its identity (§6.4).
public struct PulsAggregate: Sendable, Equatable {
    public struct Identity: Hashable, Sendable {
        public let type: String
        public let function: String
        public let intervalValue: Int64
        public let intervalUnit: String
        public let deviceFilter: String
        public let bucketStart: Double
    }

    public let identity: Identity
    public let bucketEnd: Double
    /// nil: the bucket is empty now (a `null`, or the key absent, which the text reads alike).
    public let value: Double?
    public let unit: String?

    static let functions: Set<String> = ["sum", "average", "min", "max", "mostRecent", "duration"]
    static let intervalUnits: Set<String> = ["minute", "hour", "day", "week", "month"]
    static let deviceFilters: Set<String> = ["all", "watch", "iphone"]

    init(_ fields: PulsFields) throws(PulsBatchError) {
        let type = try fields.string("type", required: true, nonEmpty: true)!
        let function = try fields.oneOf("func", Self.functions, required: true)!
        let intervalValue = try fields.integer("intervalValue", required: true, in: 1...Int64(Int32.max))!
        let intervalUnit = try fields.oneOf("intervalUnit", Self.intervalUnits, required: true)!
        let deviceFilter = try fields.oneOf("deviceFilter", Self.deviceFilters, required: true)!
        let start = try fields.epochMilliseconds("bucketStart", required: true)!
        bucketEnd = try fields.epochMilliseconds("bucketEnd", required: true)!
        guard bucketEnd > start else { throw fields.fail("bucketEnd", "is not after \"bucketStart\"") }
        try fields.temporalContext("bucketStartContext")
        try fields.temporalContext("bucketEndContext")
        value = try fields.number("value")
        unit = try fields.string("unit")
        identity = Identity(type: type, function: function, intervalValue: intervalValue, intervalUnit: intervalUnit,
                            deviceFilter: deviceFilter, bucketStart: start)
    }
}

/// One day of activity rings (§4.6): the whole row for its day, an absent ring meaning null.
public struct PulsActivitySummary: Sendable, Equatable {
    /// The day's identity (§6.5).
    public let localDate: String
    public let date: Double
    /// The rings and goals in `fields` order; nil where absent or null.
    public let values: [Double?]
    public let moveMode: Int64?

    /// The ring fields as the wire names them, in the store's column order.
    public static let fields = ["moveKcal", "moveGoalKcal", "exerciseMin", "exerciseGoalMin", "standHours", "standGoalHours",
                                "moveTimeMin", "moveTimeGoalMin"]

    init(_ fields: PulsFields, line: JSONValue) throws(PulsBatchError) {
        date = try fields.epochMilliseconds("date", required: true)!
        if let local = try fields.string("localDate") {
            guard local.utf8.count == 10, CalendarDay(local) != nil else { throw fields.fail("localDate", "is not a date YYYY-MM-DD") }
        }
        try fields.temporalContext("temporalContext")
        var values = [Double?]()
        for name in Self.fields { values.append(try fields.number(name)) }
        self.values = values
        moveMode = try fields.integer("moveMode", in: 0...1)
        guard let day = PulsHealthReader.summaryDay(line) else { throw fields.fail("date", "names no day") }
        localDate = day
    }
}

/// The user's identity snapshot (§4.7): replaces what is stored, a missing field clearing it.
public struct PulsProfile: Sendable, Equatable {
    public let name: String?
    public let email: String?
    public let dateOfBirth: Double?
    public let biologicalSex: String?

    public init(name: String?, email: String?, dateOfBirth: Double?, biologicalSex: String?) {
        self.name = name
        self.email = email
        self.dateOfBirth = dateOfBirth
        self.biologicalSex = biologicalSex
    }

    init(_ fields: PulsFields) throws(PulsBatchError) {
        name = try fields.string("name")
        email = try fields.string("email")
        dateOfBirth = try fields.epochMilliseconds("dateOfBirth")
        biologicalSex = try fields.oneOf("biologicalSex", ["female", "male", "other"])
    }
}
