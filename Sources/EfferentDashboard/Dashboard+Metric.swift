import EfferentCore
import EfferentHTTP
import EfferentReader

/// A metric's detail: its trend chart over a range (bars of daily totals, or a min–max band of
/// readings with the mean), the range's statistics, its unit and plain name.
extension Dashboard {
    func metricPage(_ metric: String, _ request: HTTPRequest) throws -> JSONValue {
        let query = try PageQuery(request, allowed: ["range", "until", "width"])
        if MetricCatalogue.withoutValues.contains(metric) {
            throw HTTPError(400, "\(metric) has no numbers to chart; sleep and workouts have pages of their own")
        }
        let snapshot = try snapshot()
        let line = snapshot.lines[metric]
        guard line != nil || HealthCatalogue.describe(metric) != nil || MetricCatalogue.totals.contains(metric) else {
            throw HTTPError(404, "\(metric.prefix(80)) is neither a metric the protocol names nor one in this archive; the catalogue lists those it holds")
        }
        let name = try query.range(default: .month)
        let width = try query.width
        let until = try query.day("until") ?? name.defaultUntil(today: today, last: line?.lastDay)
        let days = name.days(until: until, first: line?.firstDay)
        let values = snapshot.values(of: metric, range: days)
        let unit = line?.unit ?? MetricCatalogue.unit(of: metric)
        let zones = snapshot.zones(around: days, fallback: zone)
        let chart = try MetricSeries.chart(metric: metric, range: days, width: width, unit: unit, values: values, zones: zones) {
            try days.readEvents(from: context.source, matching: { $0 == metric })
        }
        let display = chart.unit
        let statistics = RangeStatistics(values)
        var statisticsJSON = statistics.json.objectValue ?? [:]
        var texts = [String: JSONValue]()
        for (key, value) in [("mean", statistics.mean), ("min", statistics.min), ("max", statistics.max), ("total", statistics.total)] {
            if let value { texts[key] = .string(display.text(value)) }
        }
        statisticsJSON["texts"] = .object(texts)
        var members: [String: JSONValue] = [
            "metric": .string(metric), "title": .string(MetricTitle.of(metric)),
            "unit": .object(["wire": unit.map(JSONValue.string) ?? .null, "symbol": .string(display.symbol)]),
            "kind": .string(values.isTotal ? "total" : "reading"),
            "reads": .string(values.isTotal ? "bars: the day's total (a bin of several days: the mean day, its whisker the lowest and highest day)"
                                            : "band: lowest to highest reading, line: the mean"),
            "range": Self.rangeJSON(name, days, today: today),
            "ranges": .array(ChartRange.allCases.map { .string($0.rawValue) }),
            "chart": ChartJSON.make(chart, renderer: Self.renderer(width: width)),
            "statistics": .object(statisticsJSON),
            "coverage": Self.coverageJSON(metric, name, days, snapshot: snapshot),
        ]
        if let line {
            members["firstDay"] = .string(line.firstDay.description)
            members["lastDay"] = .string(line.lastDay.description)
        }
        // The catalogue's note says how to read the wire's numbers (a fraction of 1 for a
        // percentage); a page that shows them converted (`96 %`) states its unit once, in the
        // symbol, and a note about the wire's would contradict it.
        if display.factor == 1, let note = MetricCatalogue.note(for: metric) { members["note"] = .string(note) }
        return .object(members)
    }
}
