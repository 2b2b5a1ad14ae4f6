import EfferentCore

/// A workout's route as GPX 1.1, the file every map and sports tool reads: the `workoutRoute.*`
/// fixes inside the workout's span (decision A.9), in order, one `trkpt` each with its altitude,
/// time and Apple's extensions (speed, course, accuracies) where the archive holds them.
public struct RouteGPX: Sendable, Equatable {
    /// One fix: the fields that share its start and ordinal.
    public struct Fix: Sendable, Equatable {
        public let start: Int64
        public let ordinal: Int64
        /// Stored in place, not in a dictionary: a decade's export builds four and a half million
        /// fixes, and a dictionary per fix cost two seconds of its CPU.
        public var latitude, longitude, altitude, speed, course, horizontalAccuracy, verticalAccuracy: Double?

        public init(start: Int64, ordinal: Int64) {
            self.start = start
            self.ordinal = ordinal
        }

        /// The field at `position` in `RecordParts.routeFields`.
        subscript(position: Int) -> Double? {
            get {
                switch position {
                case 0: latitude
                case 1: longitude
                case 2: altitude
                case 3: speed
                case 4: course
                case 5: horizontalAccuracy
                case 6: verticalAccuracy
                default: nil
                }
            }
            set {
                switch position {
                case 0: latitude = newValue
                case 1: longitude = newValue
                case 2: altitude = newValue
                case 3: speed = newValue
                case 4: course = newValue
                case 5: horizontalAccuracy = newValue
                case 6: verticalAccuracy = newValue
                default: break
                }
            }
        }

        /// The fields the fix has, by name.
        public var fields: [String: Double] {
            var out = [String: Double]()
            for (position, name) in RecordParts.routeFields.enumerated() { out[name] = self[position] }
            return out
        }
    }

    /// What every route field's metric starts with (`workoutRoute.latitude`, …).
    public static let fieldPrefix = "workoutRoute."

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
        try self.init(workout: workout, events: all)
    }

    /// The route of `workout` from `events`, which must hold every route fix inside its span (the
    /// SQL export passes each workout the fixes of its span alone).
    public init(workout: DayEvent, events: some Sequence<ArchiveEvent>) throws {
        let start = workout.start
        // Fixes per source, found by (start, ordinal); sources are few, so a list searched from
        // the last one used (a decade holds millions of fields, so nothing here hashes a string
        // it need not).
        var sources = [String?]()
        var fixesOf = [[Fix]]()
        var indexOf = [[FixKey: Int]]()
        var current = -1
        for item in events {
            let event = item.event
            guard event.start >= workout.start, event.start <= workout.end, let value = event.value,
                  event.metric.hasPrefix(Self.fieldPrefix) else { continue }
            if current < 0 || sources[current] != event.source {
                if let known = sources.firstIndex(where: { $0 == event.source }) {
                    current = known
                } else {
                    sources.append(event.source)
                    fixesOf.append([])
                    indexOf.append([:])
                    current = sources.count - 1
                }
            }
            // A field this version does not know is not written to GPX, so it is not kept.
            guard let position = Self.fieldPositions[event.metric] else { continue }
            let key = FixKey(start: event.start, ordinal: event.end - event.start)
            if let index = indexOf[current][key] {
                fixesOf[current][index][position] = value
            } else {
                indexOf[current][key] = fixesOf[current].count
                var fix = Fix(start: key.start, ordinal: key.ordinal)
                fix[position] = value
                fixesOf[current].append(fix)
            }
        }
        let chosen = sources.firstIndex { $0 == workout.source }
            ?? sources.indices.max { (fixesOf[$0].count, sources[$1] ?? "") < (fixesOf[$1].count, sources[$0] ?? "") }
        guard let chosen, !fixesOf[chosen].isEmpty else { throw AnswerError.noRoute(start) }
        workoutStart = start
        activity = MetricCatalogue.activityName(workout.activity)
        source = sources[chosen]
        fixes = fixesOf[chosen].filter { $0.latitude != nil && $0.longitude != nil }
            .sorted { ($0.start, $0.ordinal) < ($1.start, $1.ordinal) }
    }

    /// The field each route metric fills, by its position in `RecordParts.routeFields`
    /// (`workoutRoute.latitude` → 0).
    static let fieldPositions: [String: Int] = Dictionary(uniqueKeysWithValues: RecordParts.routeFields.enumerated().map { position, name in
        (RecordParts.route[name]!.metric, position)
    })

    private struct FixKey: Hashable {
        let start: Int64
        let ordinal: Int64
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
            out += "      <trkpt lat=\"\(Self.number(fix.latitude!))\" lon=\"\(Self.number(fix.longitude!))\">"
            if let altitude = fix.altitude { out += "<ele>\(Self.number(altitude))</ele>" }
            out += "<time>\(ISOInstant.text(fix.start))</time>"
            let extensions = [("speed", fix.speed), ("course", fix.course), ("hAcc", fix.horizontalAccuracy), ("vAcc", fix.verticalAccuracy)]
                .compactMap { tag, value in value.map { "<\(tag)>\(Self.number($0))</\(tag)>" } }
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
