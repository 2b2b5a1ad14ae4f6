import EfferentCore

/// Writes samples taken faster than once a second — route fixes, ECG voltages, beats, an
/// audiogram's points — as part records whose end is the sample's ordinal within its whole
/// second (decision A.9, `RecordParts.isSampleSeries`), so the order and the pairing of a fix's
/// fields survive the day body's row sort.
public final class SampleSeriesWriter {
    let sink: ExportSink
    let source: String
    let deviceModel: String?
    private var second: Int64 = .min
    private var ordinal: Int64 = 0
    /// Samples written so far.
    private(set) var count = 0

    public init(sink: ExportSink, source: String, deviceModel: String? = nil) {
        self.sink = sink
        self.source = source
        self.deviceModel = deviceModel
    }

    /// One sample at `instant` (Unix seconds, fractions allowed): `values` are (part, value, unit as
    /// written) and share the sample's start and ordinal; a part without a value is not written
    /// unless `keepingEmpty` (a beat whose rate is unknown is still a beat).
    public func write(at instant: Double, _ values: [(part: RecordParts.Part, value: Double?, unit: String?)], keepingEmpty: Bool = false) throws {
        // An offset or a rate gone wild (a beat 10^300 seconds in) would leave the calendar.
        guard ImportSession.storable(instant) else {
            try sink.leftOut(LeftOut(values.first?.part.metric ?? "sample", .unreadable("an instant outside the years 0001 to 9999")))
            return
        }
        let whole = Int64(instant.rounded(.down))
        if whole == second { ordinal += 1 } else { second = whole; ordinal = 0 }
        count += 1
        for (part, value, unit) in values {
            guard value != nil || keepingEmpty else { continue }
            try sink.record(SourceRecord(kind: .part, type: part.metric, source: source, deviceModel: deviceModel,
                                         start: Double(whole), end: Double(whole + ordinal), value: value, unit: unit ?? part.unit))
        }
    }
}

/// One GPS fix, as GPX, inline `Location` elements and PulsHealth route lines carry it.
public struct RouteFix {
    public var time: Double?
    public var latitude: Double?
    public var longitude: Double?
    public var altitude: Double?
    public var speed: Double?
    public var course: Double?
    public var horizontalAccuracy: Double?
    public var verticalAccuracy: Double?

    /// The fix's fields as parts; a negative speed, course or accuracy is Core Location's
    /// "invalid" and is not written.
    var parts: [(part: RecordParts.Part, value: Double?, unit: String?)] {
        func valid(_ value: Double?) -> Double? { value.flatMap { $0 >= 0 ? $0 : nil } }
        let table = Self.table
        return [(table[0], latitude, nil), (table[1], longitude, nil), (table[2], altitude, nil), (table[3], valid(speed), nil),
                (table[4], valid(course), nil), (table[5], valid(horizontalAccuracy), nil), (table[6], valid(verticalAccuracy), nil)]
    }

    /// The seven parts in the order a fix writes them (`RecordParts.routeFields`), looked up once
    /// rather than per fix.
    private static let table = RecordParts.routeFields.map { RecordParts.route[$0]! }

    public init(time: Double? = nil, latitude: Double? = nil, longitude: Double? = nil, altitude: Double? = nil, speed: Double? = nil,
                course: Double? = nil, horizontalAccuracy: Double? = nil, verticalAccuracy: Double? = nil) {
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.speed = speed
        self.course = course
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
    }

    /// Writes the fix when it has a time and both coordinates; returns whether it did.
    public func write(to writer: SampleSeriesWriter) throws -> Bool {
        guard let time, latitude != nil, longitude != nil else { return false }
        try writer.write(at: time, parts)
        return true
    }
}
