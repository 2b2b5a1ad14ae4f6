import EfferentCore
import Foundation

/// The reading tools beyond the answers every surface gives (issue 30): a metric's latest value,
/// the activity rings, State of Mind, one workout in detail and two periods side by side. Each
/// answers from the mirror with what the answers already compute (`DailyAnswer` for a day's
/// total, `WorkoutsAnswer` for a workout's figures, `RouteGPX` for its fixes), so their numbers
/// are the CLI's.
enum MCPDetailTools {
    static let names: Set<String> = ["phone_data_latest", "phone_data_rings", "phone_data_state_of_mind", "phone_data_workout", "phone_data_compare"]

    /// What `phone_data_latest` gives when asked for no metric: the headline figures, those held.
    static let headlines = ["steps", "activeEnergy", "restingHeartRate", "heartRate", "heartRateVariability", "bodyMass",
                            "oxygenSaturation", "respiratoryRate", "vo2Max", "sleep"]

    static func answer(_ name: String, _ arguments: [String: JSONValue], source: EventSource, today: CalendarDay) throws -> JSONValue {
        func day(_ key: String) throws -> CalendarDay? { try MCPTools.day(key, in: arguments) }
        switch name {
        case "phone_data_latest":
            return try latest(arguments["metrics"]?.arrayValue?.compactMap(\.stringValue) ?? [], source: source, today: today)
        case "phone_data_rings":
            let scope = try Scope(DayRange(since: try day("since"), until: try day("until"), defaultDays: 7, today: today), source: source)
            return try scope.annotated(try rings(scope.range, source: source),
                                       covering: "activitySummary.activeEnergyBurned", called: "activity rings", source: source)
        case "phone_data_state_of_mind":
            let scope = try Scope(DayRange(since: try day("since"), until: try day("until"), defaultDays: 30, today: today), source: source)
            return try scope.annotated(try stateOfMind(scope.range, source: source), covering: "stateOfMind", called: "State of Mind", source: source)
        case "phone_data_workout":
            guard let text = arguments["start"]?.stringValue, let start = InstantArgument.seconds(text) else {
                throw MCPDetailError.badStart
            }
            return try workout(start: start, source: source)
        case "phone_data_compare":
            guard let metric = arguments["metric"]?.stringValue else { throw MCPDetailError.noMetric }
            func period(_ key: String) throws -> DayRange {
                let object = arguments[key]?.objectValue ?? [:]
                guard let since = object["since"]?.stringValue.flatMap(CalendarDay.init), let until = object["until"]?.stringValue.flatMap(CalendarDay.init) else {
                    throw MCPDetailError.badPeriod(key)
                }
                return try DayRange(since: since, until: until)
            }
            return try compare(metric: metric, activity: arguments["activity"]?.stringValue, first: try period("first"),
                               second: try period("second"), source: source, today: today)
        default:
            throw MCPError.unknownTool(name)
        }
    }

    /// The days a listing answer covers, by the rule of every answer (`AnswerScope`): cut to the
    /// days the archive holds, then `MCPTools.dayWindow` days a page, the rest named by `next`.
    struct Scope {
        let range: DayRange
        let next: DayRange?
        let note: String?

        init(_ asked: DayRange, source: EventSource) throws {
            let held = try source.days()
            guard let first = held.first, let last = held.last, asked.until >= first, asked.since <= last else {
                range = asked
                next = nil
                note = nil
                return
            }
            let cut = try DayRange(since: max(asked.since, first), until: min(asked.until, last))
            var notes: [String] = []
            if cut != asked { notes.append("cut to \(cut.since) … \(cut.until), the days the archive holds; \(asked.since) … \(asked.until) was asked.") }
            if cut.dayCount > MCPTools.dayWindow {
                let page = try DayRange(since: cut.since, until: cut.since.adding(days: MCPTools.dayWindow - 1))
                let rest = try DayRange(since: page.until.next, until: cut.until)
                notes.append("this page covers \(page.since) … \(page.until); ask again with since \(rest.since) and until \(rest.until) for the rest.")
                range = page
                next = rest
            } else {
                range = cut
                next = nil
            }
            note = notes.isEmpty ? nil : notes.joined(separator: " ")
        }

        /// The answer with `next`, `note` and the `coverage` of `metric` (as every answer over
        /// days carries it): when the days hold none, the answer's own "no … between" sentence
        /// gives way to the one that says where the data is.
        func annotated(_ answer: JSONValue, covering metric: String, called name: String, source: EventSource) throws -> JSONValue {
            guard case var .object(members) = answer else { return answer }
            var coverage = try Coverage(span: range, metrics: [metric], of: source)
            coverage.names = [metric: name]
            members["coverage"] = coverage.json
            if let sentence = coverage.sentences.first {
                // The answer's own sentence keeps its explanation (where such data comes from).
                let why = members["note"]?.stringValue.flatMap { note in note.firstIndex(of: ":").map { String(note[$0...]) } } ?? ""
                members["note"] = .string(sentence + (why.isEmpty ? "." : why))
            }
            if let next { members["next"] = .object(["since": .string(next.since.description), "until": .string(next.until.description)]) }
            if let note { members["note"] = .string(members["note"]?.stringValue.map { $0 + " " + note } ?? note) }
            return .object(members)
        }
    }

    /// An instant on the wall clock of the zone its day was cut in, as the tables print it.
    static func iso(_ seconds: Int64, _ zone: String?) -> String {
        LocalClock().shown(seconds, in: zone)
    }

    // MARK: Latest

    /// Each metric's latest value, with its time, source and unit: for a total the last day's
    /// (as `daily` gives it), for a reading the last one. The overview says which day that is.
    static func latest(_ asked: [String], source: EventSource, today: CalendarDay) throws -> JSONValue {
        let (overview, _) = try AnswerRequest(kind: .overview).answer(from: source, today: today, pageDays: nil)
        var held: [String: (kind: String, lastDay: CalendarDay, unit: JSONValue)] = [:]
        for metric in overview.json["metrics"]?.arrayValue ?? [] {
            guard let name = metric["metric"]?.stringValue, let last = metric["lastDay"]?.stringValue.flatMap(CalendarDay.init) else { continue }
            held[name] = (metric["kind"]?.stringValue ?? "record", last, metric["unit"] ?? .null)
        }
        let metrics = asked.isEmpty ? headlines.filter { held[$0] != nil } : asked
        var rows: [JSONValue] = []
        for metric in metrics {
            guard let facts = held[metric] else {
                rows.append(.object(["metric": .string(metric), "value": .null, "note": .string("the archive holds no \(metric)")]))
                continue
            }
            var row: [String: JSONValue] = ["metric": .string(metric), "kind": .string(facts.kind), "unit": facts.unit,
                                            "day": .string(facts.lastDay.description)]
            if facts.kind == "total" {
                let (daily, _) = try AnswerRequest(kind: .daily, since: facts.lastDay, until: facts.lastDay, metrics: [metric])
                    .answer(from: source, today: today, pageDays: nil)
                row["value"] = daily.json["rows"]?.arrayValue?.first?.arrayValue?.dropFirst().first ?? .null
                row["note"] = .string("the day's total, de-duplicated across sources as daily gives it")
            } else {
                let events = try source.events(from: facts.lastDay, through: facts.lastDay, metric: metric)
                guard let last = events.max(by: { ($0.event.end, $0.event.start) < ($1.event.end, $1.event.start) }) else { continue }
                let event = last.event
                row["value"] = event.value.map { .number($0) } ?? .null
                row["start"] = .string(iso(event.start, last.timeZone))
                row["end"] = .string(iso(event.end, last.timeZone))
                row["source"] = event.source.map(JSONValue.string) ?? .null
                if let stage = event.stage { row["stage"] = .string(stage) }
                if let activity = event.activity { row["activity"] = .string(MetricCatalogue.activityName(activity)) }
            }
            rows.append(.object(row))
        }
        return .object(["latest": .array(rows), "today": .string(today.description)])
    }

    // MARK: Rings

    /// Apple's own ring figures per day (`activitySummary.*`, as the export and the phone give
    /// them), each with its goal and whether it closed.
    static func rings(_ range: DayRange, source: EventSource) throws -> JSONValue {
        let rings: [(name: String, value: String, goal: String, unit: String)] = [
            ("move", "activeEnergyBurned", "activeEnergyBurnedGoal", "kcal"),
            ("moveTime", "appleMoveTime", "appleMoveTimeGoal", "min"),
            ("exercise", "appleExerciseTime", "appleExerciseTimeGoal", "min"),
            ("stand", "appleStandHours", "appleStandHoursGoal", "h"),
        ]
        var byDay: [CalendarDay: [String: Double]] = [:]
        try range.forEachWindow(of: source, matching: { $0.hasPrefix("activitySummary.") }) { events in
            for item in events where range.contains(item.day) {
                guard let value = item.event.value else { continue }
                byDay[item.day, default: [:]][String(item.event.metric.dropFirst("activitySummary.".count))] = value
            }
        }
        var rows: [JSONValue] = []
        var closed: [String: Int] = [:]
        for day in byDay.keys.sorted() {
            let figures = byDay[day]!
            var row: [String: JSONValue] = ["day": .string(day.description)]
            for ring in rings {
                guard let value = figures[ring.value] else { continue }
                let goal = figures[ring.goal]
                let isClosed = goal.map { $0 > 0 && value >= $0 }
                if isClosed == true { closed[ring.name, default: 0] += 1 }
                row[ring.name] = .object(["value": .number(Distribution.round3(value)), "goal": goal.map { .number($0) } ?? .null,
                                          "unit": .string(ring.unit), "closed": isClosed.map(JSONValue.bool) ?? .null])
            }
            rows.append(.object(row))
        }
        var answer: [String: JSONValue] = ["rows": .array(rows), "daysWithRings": .number(Double(rows.count)),
                                           "closedDays": .object(closed.mapValues { .number(Double($0)) })]
        if rows.isEmpty { answer["note"] = .string("no activity rings \(range.phrase): rings come from an Apple Watch, through an export or the phone") }
        return .object(answer)
    }

    // MARK: State of Mind

    static let kinds = [1: "momentaryEmotion", 2: "dailyMood"]
    static let classifications = [1: "veryUnpleasant", 2: "unpleasant", 3: "slightlyUnpleasant", 4: "neutral", 5: "slightlyPleasant",
                                  6: "pleasant", 7: "veryPleasant"]

    /// Each State of Mind logged (iOS 18): its valence (−1 very unpleasant … +1 very pleasant),
    /// kind and classification.
    static func stateOfMind(_ range: DayRange, source: EventSource) throws -> JSONValue {
        var entries: [Int64: [String: JSONValue]] = [:]
        try range.forEachWindow(of: source, matching: { $0 == "stateOfMind" || $0.hasPrefix("stateOfMind.") }) { events in
            for item in events where range.contains(item.day) {
                let event = item.event
                var entry = entries[event.start] ?? ["start": .string(iso(event.start, item.timeZone)),
                                                      "day": .string(item.day.description), "source": event.source.map(JSONValue.string) ?? .null]
                switch event.metric {
                case "stateOfMind": entry["valence"] = event.value.map { .number($0) } ?? .null
                case "stateOfMind.kind": entry["kind"] = event.value.flatMap { kinds[Int($0)] }.map(JSONValue.string) ?? .null
                case "stateOfMind.valenceClassification":
                    entry["classification"] = event.value.flatMap { classifications[Int($0)] }.map(JSONValue.string) ?? .null
                default: break
                }
                entries[event.start] = entry
            }
        }
        let rows = entries.keys.sorted().map { JSONValue.object(entries[$0]!) }
        let valences = rows.compactMap { $0["valence"]?.numberValue }
        var answer: [String: JSONValue] = ["rows": .array(rows), "count": .number(Double(rows.count))]
        if !valences.isEmpty { answer["meanValence"] = .number(Distribution.round3(valences.reduce(0, +) / Double(valences.count))) }
        if rows.isEmpty { answer["note"] = .string("no State of Mind \(range.phrase): it is logged in the Health app or the Mindfulness app (iOS 18 and later)") }
        return .object(answer)
    }

    // MARK: One workout

    /// One workout in detail: its figures (as `workouts` gives them), its heart rate during it
    /// (at most 300 points, each the mean of its slice), its route as coordinates (at most 500)
    /// with the distance the fixes cover and a split per kilometre, and where its GPX is.
    static func workout(start: Int64, source: EventSource) throws -> JSONValue {
        let around = CalendarDay(unixSeconds: start)
        let range = try DayRange(since: around.previous, until: around.next)
        let answer = try WorkoutsAnswer(from: source, range: range)
        guard let workout = answer.workouts.first(where: { $0.start == start }) else { throw MCPDetailError.noWorkout(start) }
        func number(_ value: Double?) -> JSONValue { value.map { .number(Distribution.round3($0)) } ?? .null }
        var members: [String: JSONValue] = [
            "start": .string(iso(workout.start, workout.timeZone)), "end": .string(iso(workout.end, workout.timeZone)),
            "day": .string(workout.day.description), "activity": .string(workout.activity), "minutes": .number(workout.minutes),
            "source": workout.source.map(JSONValue.string) ?? .null, "distanceMeters": number(workout.distanceMeters),
            "activeEnergyKcal": number(workout.activeEnergyKcal), "averageHeartRate": number(workout.averageHeartRate),
            "maximumHeartRate": number(workout.maximumHeartRate),
        ]
        // Heart rate during the workout: every reading, or the means of 300 even slices of it.
        let readings = try range.readEvents(from: source, extraAfter: 1, matching: { $0 == "heartRate" })
            .compactMap { item -> (Int64, Double)? in
                guard item.event.kind == .record, item.event.start >= workout.start, item.event.start <= workout.end, let value = item.event.value else { return nil }
                return (item.event.start, value)
            }.sorted { $0.0 < $1.0 }
        // A workout whose figures carry no heart rate (Apple's statistics are missing from older
        // exports and from the phone's) takes its average and maximum from the readings during it,
        // and says so: a list of 112 readings beside a null average reads as a fault.
        if workout.averageHeartRate == nil, workout.maximumHeartRate == nil, !readings.isEmpty {
            members["averageHeartRate"] = .number(Distribution.round3(readings.reduce(0) { $0 + $1.1 } / Double(readings.count)))
            members["maximumHeartRate"] = .number(Distribution.round3(readings.map(\.1).max()!))
            members["heartRateFrom"] = .string("the \(readings.count) heart-rate readings during the workout")
        }
        members["heartRate"] = .object(["unit": .string("count/min"), "readings": .number(Double(readings.count)),
                                        "columns": .array([.string("time"), .string("bpm")]),
                                        "points": .array(slices(readings, limit: 300).map { point in
                                            .array([.string(iso(point.0, workout.timeZone)), .number(Distribution.round3(point.1))])
                                        })])
        do {
            let route = try RouteGPX(from: source, start: start)
            let fixes = route.fixes.compactMap { fix -> (time: Int64, latitude: Double, longitude: Double)? in
                guard let latitude = fix.latitude, let longitude = fix.longitude else { return nil }
                return (fix.start, latitude, longitude)
            }
            var covered = 0.0, splits: [JSONValue] = [], splitStart = fixes.first?.time ?? start, nextKilometre = 1000.0
            for (previous, fix) in zip(fixes, fixes.dropFirst()) {
                covered += haversine(previous.latitude, previous.longitude, fix.latitude, fix.longitude)
                while covered >= nextKilometre {
                    splits.append(.object(["kilometre": .number(nextKilometre / 1000), "seconds": .number(Double(fix.time - splitStart))]))
                    splitStart = fix.time
                    nextKilometre += 1000
                }
            }
            let step = max(1, (fixes.count + 499) / 500)
            members["route"] = .object([
                "fixes": .number(Double(fixes.count)), "distanceMeters": .number(Distribution.round3(covered)),
                "splits": .array(splits),
                "columns": .array([.string("time"), .string("latitude"), .string("longitude")]),
                "points": .array(stride(from: 0, to: fixes.count, by: step).map { index in
                    let fix = fixes[index]
                    return .array([.string(iso(fix.time, workout.timeZone)), .number(fix.latitude), .number(fix.longitude)])
                }),
                "gpx": .string("efferent export route --start \(ISOInstant.text(start)) writes every fix as GPX"),
            ])
            if step > 1 { members["note"] = .string("the route's points are one fix in \(step) of \(fixes.count); distance and splits use them all") }
        } catch AnswerError.noRoute {
            members["route"] = .null
        }
        return .object(members)
    }

    /// Up to `limit` points: the readings themselves, or the mean of each of `limit` even slices.
    static func slices(_ points: [(Int64, Double)], limit: Int) -> [(Int64, Double)] {
        guard points.count > limit else { return points }
        let size = Double(points.count) / Double(limit)
        return (0..<limit).map { slice in
            let part = points[Int(Double(slice) * size)..<min(points.count, Int(Double(slice + 1) * size))]
            return (part.first!.0, part.reduce(0) { $0 + $1.1 } / Double(part.count))
        }
    }

    /// Metres between two coordinates on a sphere of the Earth's mean radius.
    static func haversine(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let radians = Double.pi / 180
        let dLat = (lat2 - lat1) * radians, dLon = (lon2 - lon1) * radians
        let a = sin(dLat / 2) * sin(dLat / 2) + cos(lat1 * radians) * cos(lat2 * radians) * sin(dLon / 2) * sin(dLon / 2)
        return 6_371_008.8 * 2 * atan2(a.squareRoot(), (1 - a).squareRoot())
    }

    // MARK: Compare

    /// One metric over two periods side by side: a total's days, sum and mean a day (as `daily`
    /// gives each day), a reading's count, mean, minimum and maximum; `workouts` (optionally of
    /// one activity) their count, minutes and distance. With the change from the first to the second.
    static func compare(metric: String, activity: String?, first: DayRange, second: DayRange, source: EventSource,
                        today: CalendarDay) throws -> JSONValue {
        func figures(_ range: DayRange) throws -> [String: Double] {
            if metric == "workouts" || metric == "workout" {
                let workouts = try WorkoutsAnswer(from: source, range: range, activity: activity).workouts
                return ["count": Double(workouts.count), "minutes": workouts.reduce(0) { $0 + $1.minutes },
                        "distanceMeters": workouts.reduce(0) { $0 + ($1.distanceMeters ?? 0) }]
            }
            let (daily, _) = try AnswerRequest(kind: .daily, since: range.since, until: range.until, metrics: [metric])
                .answer(from: source, today: today, pageDays: nil)
            let columns = daily.json["columns"]?.arrayValue?.compactMap(\.stringValue) ?? []
            if columns.count == 2 {
                let values = (daily.json["rows"]?.arrayValue ?? []).compactMap { $0.arrayValue?.last?.numberValue }
                let sum = values.reduce(0, +)
                return ["days": Double(values.count), "sum": sum, "meanPerDay": values.isEmpty ? .nan : sum / Double(values.count)]
            }
            var count = 0.0, sum = 0.0, low = Double.infinity, high = -Double.infinity
            try range.forEachWindow(of: source, matching: { $0 == metric }) { events in
                for item in events where range.contains(item.day) && item.event.kind == .record {
                    guard let value = item.event.value else { continue }
                    count += 1
                    sum += value
                    low = min(low, value)
                    high = max(high, value)
                }
            }
            return count == 0 ? ["count": 0] : ["count": count, "mean": sum / count, "min": low, "max": high]
        }
        func json(_ range: DayRange, _ values: [String: Double]) -> JSONValue {
            var object: [String: JSONValue] = ["since": .string(range.since.description), "until": .string(range.until.description)]
            for (key, value) in values { object[key] = value.isFinite ? .number(Distribution.round3(value)) : .null }
            return .object(object)
        }
        let a = try figures(first), b = try figures(second)
        var change: [String: JSONValue] = [:]
        for (key, before) in a {
            guard let after = b[key], before.isFinite, after.isFinite else { continue }
            change[key] = .object(["difference": .number(Distribution.round3(after - before)),
                                   "percent": before == 0 ? .null : .number(Distribution.round3((after - before) / abs(before) * 100))])
        }
        var answer: [String: JSONValue] = ["metric": .string(metric), "first": json(first, a), "second": json(second, b),
                                           "change": .object(change)]
        if let activity { answer["activity"] = .string(activity) }
        return .object(answer)
    }
}

enum MCPDetailError: Error, CustomStringConvertible {
    case badStart
    case noWorkout(Int64)
    case noMetric
    case badPeriod(String)

    var description: String {
        switch self {
        case .badStart: "start must be the workout's start as phone_data_workouts lists it (2025-06-01T07:00:00+02:00) or in Unix seconds."
        case let .noWorkout(start): "no workout starts at \(ISOInstant.text(start)); phone_data_workouts lists each one with its start."
        case .noMetric: "phone_data_compare needs a metric (a name the archive holds, or workouts)."
        case let .badPeriod(key): "\(key) must be {\"since\": \"YYYY-MM-DD\", \"until\": \"YYYY-MM-DD\"}."
        }
    }
}
