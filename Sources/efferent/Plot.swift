import EfferentClient
import EfferentCommandLine
import EfferentCore
import EfferentReader
import Foundation

/// `efferent plot`: a chart saved as an SVG file, drawn by the renderer the dashboard uses.
struct Plot: Subcommand {
    static let spec = CommandSpec(
        name: "plot",
        abstract: "Draw a chart as an SVG file a browser opens: a total per day as bars, readings as a band from minimum to maximum with the mean, sleep as stacked stages.",
        discussion: "Days and times are the archive's local ones (each day in its own zone); a range with nothing in it is drawn as such.",
        options: [.init("metric", value: "NAME", help: "daily: any metric with numbers; samples: a reading (or a total, by hour)."),
                  .init("out", value: "FILE", help: "Where to write the chart.", default: "<KIND>.svg"),
                  .init("width", value: "PIXELS", help: "The chart's width; readings are binned to one per pixel column.", default: "960"),
                  .init("since", value: "DAY", help: "First day (YYYY-MM-DD, a local day of the archive)."),
                  .init("until", value: "DAY", help: "Last day, inclusive.", default: "today"),
                  .flag("offline", help: "Draw from the mirror as it is, without asking the service for changes.")],
        arguments: [.init("KIND", help: "daily, samples or sleep.")])

    let kind: String
    let metric: String?
    let out: String
    let width: Int
    let since: CalendarDay?
    let until: CalendarDay?
    let offline: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        kind = arguments.argument(0) ?? ""
        guard ["daily", "samples", "sleep"].contains(kind) else { throw UsageError("plot draws daily, samples or sleep, not '\(kind)'.") }
        metric = arguments.string("metric")
        if kind != "sleep" && metric == nil { throw UsageError("plot \(kind) needs --metric NAME.") }
        out = arguments.string("out") ?? "\(kind).svg"
        width = try arguments.integer("width", default: 960, range: 240...4000)
        since = try ReadingOptions.day(arguments, "since")
        until = try ReadingOptions.day(arguments, "until")
        if let since, let until, until < since { throw UsageError("--until \(until) is before --since \(since).") }
        offline = arguments.flag("offline")
    }

    func run() async throws -> Int32 {
        let context = try ReaderContext()
        let source = try await ReadingOptions.freshSource(context, offline: offline)
        let renderer = ChartRenderer(width: width, height: 360, standalone: true)
        let fallbackZone = context.settings.timeZone
        let svg: String
        switch kind {
        case "sleep":
            let range = try DayRange(since: since, until: until, defaultDays: DayRange.Limits.sleepDefaultDays, today: context.today)
            let answer = try SleepAnswer(from: source, range: range)
            svg = renderer.svg(MetricSeries.nights(answer.nights, range: range, width: width, title: "Sleep per night"))
        default:
            // Read as every answer reads it (`Steps` → `steps`, saying so); an unknown name exits 64 with the closest.
            let resolution = try NameResolver(source: source).metric(metric ?? "")
            if let line = resolution.note { note(line) }
            let metric = resolution.name
            let defaultDays = kind == "daily" ? DayRange.Limits.dailyDefaultDays : DayRange.Limits.samplesDefaultDays
            let range = try DayRange(since: since, until: until, defaultDays: defaultDays, today: context.today)
            let events = try range.readEvents(from: source, matching: { $0 == metric })
            // The same refusals as `daily` (a metric with no numbers, a name nobody knows), from the events in hand.
            let answer = try DailyAnswer(from: EventList(events), metrics: [metric], range: range)
            let values = try DayValues(metric: metric, events: events, range: range)
            var zones = [CalendarDay: String]()
            for item in events { if let zone = item.timeZone { zones[item.day] = zone } }
            let timeline = ZoneTimeline(zones: zones, fallback: fallbackZone)
            let unit = answer.units[metric]
            var chart = kind == "daily"
                ? MetricSeries.days(values, range: range, width: width, title: MetricTitle.of(metric), unit: unit)
                : try MetricSeries.chart(metric: metric, range: range, width: width, unit: unit, values: values, zones: timeline, events: { events })
            chart.title += " · " + DayText.span(range.since, range.until)
            svg = renderer.svg(chart)
        }
        try svg.write(toFile: out, atomically: true, encoding: .utf8)
        print("wrote \(out)")
        return 0
    }
}
