import EfferentCore
import EfferentHTTP
import EfferentReader

/// Today: the activity rings against their goals, the latest and 7-day values of the headline
/// metrics, last night's sleep and the recent workouts.
extension Dashboard {
    /// The headline metrics, in the order the page shows them (sleep comes from the sleep answer).
    static let headlines = ["steps", "activeEnergy", "restingHeartRate", "heartRateVariability", "bodyMass"]

    func todayPage(_ request: HTTPRequest) throws -> JSONValue {
        let query = try PageQuery(request, allowed: ["day"])
        let day = try query.day("day") ?? today
        let snapshot = try snapshot()
        let week = try DayRange(since: day.adding(days: -6), until: day)
        var members: [String: JSONValue] = ["day": .string(day.description), "label": .string(DayText.long(day))]
        members["rings"] = rings(snapshot, day: day)
        members["headlines"] = .array(Self.headlines.map { headline($0, snapshot: snapshot, day: day, week: week) })
        members["sleep"] = try sleepHeadline(day: day, snapshot: snapshot)
        // The last 30 days' workouts; when they hold none, the latest the archive holds, said as
        // such (as the cards show their latest values), rather than an empty list.
        var end = day
        var recent = try WorkoutsAnswer(from: context.source, range: DayRange(since: end.adding(days: -29), until: end))
        if recent.workouts.isEmpty, let last = snapshot.lines["workout"]?.lastDay, last < end.adding(days: -29) {
            end = last
            recent = try WorkoutsAnswer(from: context.source, range: DayRange(since: end.adding(days: -29), until: end))
            members["workoutsNote"] = .string("None in the last 30 days; these are the latest the archive holds, to \(DayText.long(last)).")
        }
        let zones = snapshot.zones(around: try DayRange(since: end.adding(days: -30), until: end), fallback: zone)
        members["workouts"] = .array(recent.workouts.suffix(5).reversed().map { Self.workoutJSON($0, zones: zones) })
        return .object(members)
    }

    /// Apple's own ring figures for the day (or the latest day that has them); without any, the
    /// day's totals, with no goal to measure them against.
    func rings(_ snapshot: DigestSnapshot, day: CalendarDay) -> JSONValue {
        let parts = [("move", "Move", "activeEnergyBurned", "kcal"), ("exercise", "Exercise", "appleExerciseTime", "min"),
                     ("stand", "Stand", "appleStandHours", "h")]
        let moveMetric = "activitySummary.activeEnergyBurned"
        if let found = snapshot.latest(moveMetric, onOrBefore: day) {
            func value(_ attribute: String) -> Double? {
                snapshot.values(of: "activitySummary." + attribute, range: try! DayRange(since: found.day, until: found.day)).readings[found.day]?.lastValue
            }
            let rings = parts.map { key, _, attribute, _ in ActivityRings.Ring(key: key, value: value(attribute), goal: value(attribute + "Goal")) }
            return ringsJSON(rings, names: parts.map { ($0.1, $0.3) }, day: found.day, source: "activitySummary",
                             note: found.day == day ? nil : "Apple's rings for \(DayText.long(found.day)), the latest the archive holds")
        }
        let totals = [("move", "activeEnergy"), ("exercise", "exerciseTime")].map { key, metric in
            ActivityRings.Ring(key: key, value: snapshot.values(of: metric, range: try! DayRange(since: day, until: day)).totals[day], goal: nil)
        } + [ActivityRings.Ring(key: "stand", value: nil, goal: nil)]
        return ringsJSON(totals, names: parts.map { ($0.1, $0.3) }, day: day, source: "totals",
                         note: "the archive holds no activity rings (Apple's activity summaries), so there are no goals; these are the day's totals")
    }

    func ringsJSON(_ rings: [ActivityRings.Ring], names: [(String, String)], day: CalendarDay, source: String, note: String?) -> JSONValue {
        let drawing = ActivityRings(title: "Activity rings for \(DayText.long(day))", rings: rings)
        var members: [String: JSONValue] = [
            "day": .string(day.description), "label": .string(DayText.long(day)), "source": .string(source), "svg": .string(drawing.svg()),
            "rings": .array(zip(rings, names).map { ring, name in
                let unit = DisplayUnit(symbol: name.1)
                let value = ring.value.map { unit.text($0, decimals: 0) } ?? "–"
                let text = ring.goal.map { "\(value) of \(unit.text($0, decimals: 0))" } ?? value
                return .object(["key": .string(ring.key), "name": .string(name.0), "value": ring.value.map(JSONValue.number) ?? .null,
                                "goal": ring.goal.map(JSONValue.number) ?? .null, "text": .string(text),
                                "percent": ring.fraction.map { .number(($0 * 100).rounded()) } ?? .null])
            }),
        ]
        if let note { members["note"] = .string(note) }
        return .object(members)
    }

    /// A headline: the latest value (a day's total, or the latest reading) and the last 7 days'
    /// (the mean daily total over the days that have one, or the mean of the readings).
    func headline(_ metric: String, snapshot: DigestSnapshot, day: CalendarDay, week: DayRange) -> JSONValue {
        let line = snapshot.lines[metric]
        let unit = DisplayUnit.of(metric, unit: line?.unit ?? MetricCatalogue.unit(of: metric))
        var members: [String: JSONValue] = ["metric": .string(metric), "title": .string(MetricTitle.of(metric)),
                                            "unit": .string(unit.symbol), "kind": .string(snapshot.isTotal(metric) ? "total" : "reading")]
        if let latest = snapshot.latest(metric, onOrBefore: day), let value = latest.total ?? latest.readings?.lastValue {
            members["latest"] = .object(["day": .string(latest.day.description), "value": .number(value), "text": .string(unit.text(value)),
                                         "when": .string(Self.relative(latest.day, to: day))])
        }
        let values = snapshot.values(of: metric, range: week)
        if values.isTotal, !values.totals.isEmpty {
            let mean = values.totals.values.reduce(0, +) / Double(values.totals.count)
            members["week"] = .object(["value": .number(Distribution.round3(mean)), "text": .string(unit.text(mean)),
                                       "note": .string("a day on average over \(values.totals.count) of the last 7 days")])
        } else if !values.isTotal, case let statistics = RangeStatistics(values), let mean = statistics.mean {
            members["week"] = .object(["value": .number(mean), "text": .string(unit.text(mean)),
                                       "note": .string("mean of \(statistics.count) reading\(statistics.count == 1 ? "" : "s") over the last 7 days")])
        }
        return .object(members)
    }

    /// Last night's sleep and the mean of the last seven nights, as `sleep` answers them; when
    /// the last seven nights hold none, the latest night the archive holds and the seven up to it,
    /// said as such (the other cards show their latest value too, so "nothing recorded" beside
    /// them was wrong).
    func sleepHeadline(day: CalendarDay, snapshot: DigestSnapshot) throws -> JSONValue {
        var end = day.previous
        var answer = try SleepAnswer(from: context.source, range: DayRange(since: end.adding(days: -6), until: end))
        if answer.nights.isEmpty, let last = snapshot.lines["sleep"]?.lastDay, last < end {
            // A night is named by its evening: the stretches filed under the last day may be the
            // night before's morning, so both are asked.
            end = last
            answer = try SleepAnswer(from: context.source, range: DayRange(since: end.adding(days: -6), until: end))
        }
        var members: [String: JSONValue] = ["metric": .string("sleep"), "title": .string("Sleep"), "unit": .string("h")]
        if let last = answer.nights.last {
            // A night with only time in bed has no asleep figure (SleepNight): said, not shown as 0 h.
            members["latest"] = .object(["night": .string(last.night.description), "value": last.asleepHours.map(JSONValue.number) ?? .null,
                                         "text": .string(last.asleepHours.map(MirrorAge.hours) ?? "in bed only"),
                                         "when": .string("night of " + DayText.long(last.night))])
        }
        if let distribution = answer.asleepDistribution {
            let span = end == day.previous ? "the last 7 nights" : "the 7 nights to \(DayText.long(end)), the latest the archive holds"
            let inBed = answer.nightsInBedOnly
            let apart = inBed == 0 ? "" : " (\(inBed) more with only time in bed, no asleep figure)"
            members["week"] = .object(["value": .number(distribution.mean), "text": .string(MirrorAge.hours(distribution.mean)),
                                       "nights": .number(Double(distribution.n)),
                                       "note": .string("asleep on average over \(distribution.n) of \(span)\(apart)")])
        }
        return .object(members)
    }

    /// `today`, `yesterday`, or the day's date.
    static func relative(_ day: CalendarDay, to today: CalendarDay) -> String {
        if day == today { return "today" }
        if day == today.previous { return "yesterday" }
        return DayText.long(day)
    }
}
