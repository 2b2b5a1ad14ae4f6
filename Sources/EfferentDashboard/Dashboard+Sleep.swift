import EfferentCore
import EfferentHTTP
import EfferentReader

/// Sleep: nights as stacked stage bars and a table, and one night as a hypnogram — the nights,
/// stages and hours `efferent sleep` answers (stages as unions across sources).
extension Dashboard {
    func sleepPage(_ request: HTTPRequest) throws -> JSONValue {
        let query = try PageQuery(request, allowed: ["range", "until", "width"])
        let name = try query.range(default: .month)
        let width = try query.width
        let snapshot = try snapshot()
        let until = try query.day("until") ?? name.defaultUntil(today: today, last: snapshot.lines["sleep"]?.lastDay)
        let days = name.days(until: until, first: snapshot.lines["sleep"]?.firstDay)
        let answer = try SleepAnswer(from: context.source, range: days)
        let zones = snapshot.zones(around: try DayRange(since: days.since, until: days.until.next), fallback: zone)
        let chart = MetricSeries.nights(answer.nights, range: days, width: width, title: "Sleep per night")
        var members: [String: JSONValue] = [
            "range": Self.rangeJSON(name, days, today: today), "ranges": .array(ChartRange.allCases.dropFirst().map { .string($0.rawValue) }),
            "chart": ChartJSON.make(chart, renderer: Self.renderer(width: width)),
            "nights": .array(answer.nights.reversed().map { Self.nightJSON($0, zones: zones) }),
            "coverage": Self.coverageJSON("sleep", name, days, snapshot: snapshot),
        ]
        if let distribution = answer.asleepDistribution {
            let inBed = answer.nightsInBedOnly
            let apart = inBed == 0 ? "" : "; \(inBed) night\(inBed == 1 ? "" : "s") with only time in bed \(inBed == 1 ? "has" : "have") no asleep figure"
            members["asleep"] = .object(["mean": .number(distribution.mean), "min": .number(distribution.min), "max": .number(distribution.max),
                                         "nights": .number(Double(distribution.n)), "nightsInBedOnly": .number(Double(inBed)),
                                         "text": .string("\(MirrorAge.hours(distribution.mean)) on average over \(distribution.n) night\(distribution.n == 1 ? "" : "s") "
                                                         + "(\(MirrorAge.hours(distribution.min)) to \(MirrorAge.hours(distribution.max)))\(apart)")])
        }
        return .object(members)
    }

    func nightPage(_ night: CalendarDay, _ request: HTTPRequest) throws -> JSONValue {
        let query = try PageQuery(request, allowed: ["width"])
        let width = try query.width
        let range = try DayRange(since: night, until: night)
        let answer = try SleepAnswer(from: context.source, range: range)
        let zones = try snapshot().zones(around: try DayRange(since: night, until: night.next), fallback: zone)
        var members: [String: JSONValue] = ["night": .string(night.description), "label": .string("Night of " + DayText.long(night)),
                                            "previous": .string(night.previous.description),
                                            "next": night < today ? .string(night.next.description) : .null]
        guard let recorded = answer.nights.first else {
            let empty = Hypnogram(title: "No sleep recorded", start: zones.start(of: night) + 12 * 3600, end: zones.start(of: night.next) + 12 * 3600,
                                  zones: zones, stages: [:])
            members["recorded"] = .bool(false)
            members["hypnogram"] = .object(["svg": .string(Self.renderer(width: width, height: 240).svg(empty))])
            return .object(members)
        }
        let hypnogram = Hypnogram(title: "Sleep stages, night of \(DayText.long(night))", start: recorded.start, end: recorded.end,
                                  zones: zones, stages: recorded.stageIntervals)
        members["recorded"] = .bool(true)
        members["summary"] = Self.nightJSON(recorded, zones: zones)
        members["hypnogram"] = .object(["svg": .string(Self.renderer(width: width, height: 60 + 34 * max(hypnogram.lanes.count, 1)).svg(hypnogram))])
        members["legend"] = .array(Hypnogram.order.filter { recorded.stages[$0.key] != nil }.map { .object(["key": .string($0.key), "name": .string($0.name)]) })
        return .object(members)
    }

    /// A night as its row: hours asleep and per stage (exact, as `sleep` gives them), and when it
    /// began and ended on the local clock.
    static func nightJSON(_ night: SleepNight, zones: ZoneTimeline) -> JSONValue {
        let order = ChartStyle.stages.map(\.key) + ["inBed"]
        let names = Dictionary(Hypnogram.order.map { ($0.key, $0.name) }, uniquingKeysWith: { a, _ in a })
        return .object([
            "night": .string(night.night.description), "label": .string(DayText.long(night.night)),
            "asleepHours": night.asleepHours.map(JSONValue.number) ?? .null, "asleep": .string(night.asleepHours.map(MirrorAge.hours) ?? "in bed only"),
            "inBedHours": night.inBedHours.map(JSONValue.number) ?? .null,
            "stages": .object(night.stages.mapValues(JSONValue.number)),
            "stageList": .array(order.compactMap { key in
                night.stages[key].map { .object(["key": .string(key), "name": .string(names[key] ?? key), "hours": .number($0),
                                                 "text": .string(MirrorAge.hours($0))]) }
            }),
            "start": .string(zones.iso(night.start)), "end": .string(zones.iso(night.end)),
            "from": .string(zones.clock(night.start)), "to": .string(zones.clock(night.end)),
            "segments": .number(Double(night.segments)), "naps": .number(Double(night.naps.count)),
        ])
    }
}
