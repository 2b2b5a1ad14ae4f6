import EfferentCore
import EfferentHTTP
import EfferentReader

/// Workouts: the list (activity, duration, distance, energy, heart rate) as `efferent workouts`
/// answers it, and one workout with its heart rate over time and its route drawn as a path.
extension Dashboard {
    func workoutsPage(_ request: HTTPRequest) throws -> JSONValue {
        let query = try PageQuery(request, allowed: ["range", "until"])
        let name = try query.range(default: .quarter)
        let snapshot = try snapshot()
        let until = try query.day("until") ?? name.defaultUntil(today: today, last: snapshot.lines["workout"]?.lastDay)
        let days = name.days(until: until, first: snapshot.lines["workout"]?.firstDay)
        let answer = try WorkoutsAnswer(from: context.source, range: days)
        let zones = snapshot.zones(around: days, fallback: zone)
        return .object([
            "range": Self.rangeJSON(name, days, today: today), "ranges": .array(ChartRange.allCases.dropFirst().map { .string($0.rawValue) }),
            "total": .number(Double(answer.workouts.count)),
            "byActivity": .array(answer.byActivity.sorted { ($0.value.count, $1.key) > ($1.value.count, $0.key) }.map { activity, tally in
                .object(["activity": .string(activity), "title": .string(MetricTitle.of(activity)), "count": .number(Double(tally.count)),
                         "minutes": .number(tally.minutes), "time": .string(MirrorAge.hours(tally.minutes / 60))])
            }),
            "workouts": .array(answer.workouts.reversed().map { Self.workoutJSON($0, zones: zones) }),
            "coverage": Self.coverageJSON("workout", name, days, snapshot: snapshot),
        ])
    }

    func workoutPage(_ start: Int64, _ request: HTTPRequest) throws -> JSONValue {
        let query = try PageQuery(request, allowed: ["width"])
        let width = try query.width
        let around = CalendarDay(unixSeconds: start)
        let range = try DayRange(since: around.previous, until: around.next)
        let answer = try WorkoutsAnswer(from: context.source, range: range)
        guard let workout = answer.workouts.first(where: { $0.start == start }) else {
            throw HTTPError(404, "no workout starts at \(ISOInstant.text(start)); the workouts page lists each one")
        }
        let zones = try snapshot().zones(around: range, fallback: zone)
        let events = try range.readEvents(from: context.source, extraAfter: 1, matching: { $0 == "heartRate" })
        let heartRate = MetricSeries.window(events, metric: "heartRate", start: workout.start, end: max(workout.end, workout.start + 60),
                                            zones: zones, width: width, title: "Heart rate during the workout", unit: "count/min")
        var members: [String: JSONValue] = [
            "workout": Self.workoutJSON(workout, zones: zones),
            "heartRate": ChartJSON.make(heartRate, renderer: Self.renderer(width: width)),
        ]
        do {
            let route = try RouteGPX(from: context.source, start: start)
            let points = route.fixes.map { (latitude: $0.latitude!, longitude: $0.longitude!) }
            members["route"] = .object(["fixes": .number(Double(points.count)),
                                        "svg": .string(RouteMap(title: "Route", points: points).svg(width: width, height: min(width, 480))),
                                        "gpx": .string("/api/v1/export/route?start=\(start)")])
        } catch AnswerError.noRoute {
            members["route"] = .null
        }
        return .object(members)
    }

    /// A workout as its row: the numbers `workouts` gives, exact, and as a person reads them, with
    /// its start on the local clock of its day.
    static func workoutJSON(_ workout: WorkoutsAnswer.Workout, zones: ZoneTimeline) -> JSONValue {
        func number(_ value: Double?) -> JSONValue { value.map { .number(Distribution.round3($0)) } ?? .null }
        let distance = DisplayUnit(symbol: "km", factor: 0.001)
        return .object([
            "start": .number(Double(workout.start)), "end": .number(Double(workout.end)),
            "startTime": .string(zones.iso(workout.start)),
            "when": .string("\(DayText.long(workout.day)), \(zones.clock(workout.start))"),
            "day": .string(workout.day.description), "activity": .string(workout.activity), "title": .string(MetricTitle.of(workout.activity)),
            "minutes": .number(workout.minutes), "duration": .string(MirrorAge.hours(workout.minutes / 60)),
            "source": workout.source.map(JSONValue.string) ?? .null,
            "distanceMeters": number(workout.distanceMeters), "distance": workout.distanceMeters.map { .string(distance.text($0, decimals: 2)) } ?? .null,
            "activeEnergyKcal": number(workout.activeEnergyKcal),
            "energy": workout.activeEnergyKcal.map { .string(DisplayUnit(symbol: "kcal").text($0, decimals: 0)) } ?? .null,
            "averageHeartRate": number(workout.averageHeartRate), "maximumHeartRate": number(workout.maximumHeartRate),
            "heartRate": workout.averageHeartRate.map { average in
                .string("\(DisplayUnit.number(average, decimals: 0)) bpm" + (workout.maximumHeartRate.map { ", max \(DisplayUnit.number($0, decimals: 0))" } ?? ""))
            } ?? .null,
            "routeFixes": workout.routeFixes.map { .number(Double($0)) } ?? .null,
        ])
    }
}
