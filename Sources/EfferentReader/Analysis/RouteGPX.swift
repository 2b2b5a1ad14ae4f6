import EfferentCore

/// A workout's route as GPX 1.1, the file every map and sports tool reads: the `workoutRoute.*`
/// fixes inside the workout's span (decision A.9), in order, one `trkpt` each with its altitude,
/// time and Apple's extensions (speed, course, accuracies) where the archive holds them.
public struct RouteGPX: Sendable, Equatable {
    /// One fix: the fields that share its start and ordinal.
    public struct Fix: Sendable, Equatable {
        public let start: Int64
        public let ordinal: Int64
        public var fields: [String: Double]
    }

    public let workoutStart: Int64
    public let activity: String
    public let source: String?
    public let fixes: [Fix]

    /// The route of the workout that starts at `start` (Unix seconds, as `workouts` lists it).
    /// Fixes of the workout's own source are taken; when it recorded none, those of the source
    /// that recorded most (an iPhone carried on a Watch workout).
    public init(from events: EventSource, start: Int64) throws {
        let day = CalendarDay(unixSeconds: start)
        let all = try events.events(from: day.previous, through: day.adding(days: 2))
        guard let workout = all.first(where: { $0.event.metric == "workout" && $0.event.start == start })?.event else {
            throw AnswerError.noWorkoutStarting(start)
        }
        struct Key: Hashable { let start: Int64; let ordinal: Int64 }
        var bySource = [String?: [Key: Fix]]()
        let prefix = "workoutRoute."
        for item in all where item.event.metric.hasPrefix(prefix) && item.event.start >= workout.start && item.event.start <= workout.end {
            guard let value = item.event.value else { continue }
            let event = item.event
            let key = Key(start: event.start, ordinal: event.end - event.start)
            let field = String(event.metric.dropFirst(prefix.count))
            bySource[event.source, default: [:]][key, default: Fix(start: event.start, ordinal: event.end - event.start, fields: [:])]
                .fields[field] = value
        }
        let chosen = bySource[workout.source].map { (workout.source, $0) }
            ?? bySource.max { ($0.value.count, $1.key ?? "") < ($1.value.count, $0.key ?? "") }.map { ($0.key, $0.value) }
        guard let (source, fixes) = chosen, !fixes.isEmpty else { throw AnswerError.noRoute(start) }
        workoutStart = start
        activity = MetricCatalogue.activityName(workout.activity)
        self.source = source
        self.fixes = fixes.values.filter { $0.fields["latitude"] != nil && $0.fields["longitude"] != nil }
            .sorted { ($0.start, $0.ordinal) < ($1.start, $1.ordinal) }
    }

    /// The GPX document.
    public var text: String {
        var out = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="Efferent" xmlns="http://www.topografix.com/GPX/1/1">
          <trk>
            <name>\(activity) \(ISOInstant.text(workoutStart))</name>
            <trkseg>

        """
        for fix in fixes {
            out += "      <trkpt lat=\"\(Self.number(fix.fields["latitude"]!))\" lon=\"\(Self.number(fix.fields["longitude"]!))\">"
            if let altitude = fix.fields["altitude"] { out += "<ele>\(Self.number(altitude))</ele>" }
            out += "<time>\(ISOInstant.text(fix.start))</time>"
            let extensions = [("speed", "speed"), ("course", "course"), ("hAcc", "horizontalAccuracy"), ("vAcc", "verticalAccuracy")]
                .compactMap { tag, field in fix.fields[field].map { "<\(tag)>\(Self.number($0))</\(tag)>" } }
            if !extensions.isEmpty { out += "<extensions>" + extensions.joined() + "</extensions>" }
            out += "</trkpt>\n"
        }
        out += "    </trkseg>\n  </trk>\n</gpx>\n"
        return out
    }

    /// The shortest text that reads back as the same number (`48.8566`, `35`).
    static func number(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
