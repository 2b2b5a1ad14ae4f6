import EfferentClient
import EfferentCommandLine
import EfferentCore
import EfferentReader
import Foundation

struct Plot: Subcommand {
    static let spec = CommandSpec(
        name: "plot",
        abstract: "Draw a chart as an SVG file a browser opens: daily totals as bars, readings as a line, sleep as stacked stages.",
        options: [.init("metric", value: "NAME", help: "The total (daily) or reading (samples) to draw."),
                  .init("out", value: "FILE", help: "Where to write the chart.", default: "<KIND>.svg")] + ReadingOptions.specs,
        arguments: [.init("KIND", help: "daily, samples or sleep.")])

    let kind: String
    let metric: String?
    let out: String
    let options: ReadingOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        kind = arguments.argument(0) ?? ""
        guard ["daily", "samples", "sleep"].contains(kind) else { throw UsageError("plot draws daily, samples or sleep, not '\(kind)'.") }
        metric = arguments.string("metric")
        if kind != "sleep" && metric == nil { throw UsageError("plot \(kind) needs --metric NAME.") }
        out = arguments.string("out") ?? "\(kind).svg"
        options = try ReadingOptions(arguments)
    }

    func run() async throws -> Int32 {
        let context = try ReaderContext()
        let source = try await ReadingOptions.freshSource(context, offline: options.offline)
        let svg: String
        switch kind {
        case "daily":
            let request = AnswerRequest(kind: .daily, since: options.since, until: options.until, metrics: [metric ?? ""])
            guard let answer = try request.answer(from: source, today: context.today) as? DailyAnswer else { return 1 }
            svg = SVGChart.bars(title: "\(metric ?? "") per day", unit: answer.units[metric ?? ""] ?? "", days: answer.range.days,
                                values: answer.series(of: metric ?? ""))
        case "samples":
            let request = AnswerRequest(kind: .samples, since: options.since, until: options.until, metric: metric, limit: 5000)
            guard let answer = try request.answer(from: source, today: context.today) as? SamplesAnswer else { return 1 }
            let points = answer.events.compactMap { item in item.event.value.map { (seconds: item.event.start, value: $0) } }
            svg = SVGChart.line(title: "\(metric ?? "")", unit: answer.events.first?.event.unit ?? "", points: points)
        default:
            let request = AnswerRequest(kind: .sleep, since: options.since, until: options.until)
            guard let answer = try request.answer(from: source, today: context.today) as? SleepAnswer else { return 1 }
            svg = SVGChart.sleep(title: "Sleep per night", nights: answer.nights.map(\.night), stages: answer.nights.map(\.stages))
        }
        try svg.write(toFile: out, atomically: true, encoding: .utf8)
        print("wrote \(out)")
        return 0
    }
}

struct Export: Subcommand {
    static let spec = CommandSpec(
        name: "export",
        abstract: "Write an answer (daily, statistics, sleep, workouts, samples, overview) to a CSV or JSON Lines file, or a workout's route as GPX.",
        options: [.init("metric", value: "NAME", help: "The metric (repeat for daily).", repeatable: true),
                  .init("group-by", value: "PERIOD", help: "statistics: day, week, month or year."),
                  .init("activity", value: "NAME", help: "workouts: only this activity."),
                  .init("limit", value: "N", help: "samples: at most this many rows."),
                  .init("start", value: "INSTANT", help: "route: the workout's start as workouts lists it (2025-06-01T07:00:00Z)."),
                  .init("out", value: "FILE", help: "Where to write.", default: "standard output"),
                  .init("since", value: "DAY", help: "First day."), .init("until", value: "DAY", help: "Last day."),
                  .init("format", value: "csv|jsonl", help: "The file's format.", default: "csv"),
                  .flag("offline", help: "Answer from the mirror as it is.")],
        arguments: [.init("KIND", help: "daily, statistics, sleep, workouts, samples, overview, or route (GPX).")])

    let request: AnswerRequest
    /// `route`: the start of the workout whose route is written.
    let routeStart: Int64?
    let format: AnswerFormat
    let out: String?
    let offline: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        if arguments.argument(0) == "route" {
            guard let text = arguments.string("start") else { throw UsageError("export route needs --start, the workout's start as workouts lists it.") }
            guard let start = ISOInstant.seconds(text) else { throw UsageError("--start takes an instant such as 2025-06-01T07:00:00Z.") }
            routeStart = start
        } else {
            routeStart = nil
        }
        guard let kind = arguments.argument(0) == "route" ? .workouts : arguments.argument(0).flatMap(AnswerRequest.Kind.init(rawValue:)) else {
            throw UsageError("export takes one of daily, statistics, sleep, workouts, samples, overview, route.")
        }
        switch arguments.string("format", default: "csv") {
        case "csv": format = .csv
        case "jsonl", "ndjson": format = .ndjson
        default: throw UsageError("--format takes csv or jsonl.")
        }
        let metrics = arguments.strings("metric")
        let limit = arguments.string("limit") == nil ? nil : try arguments.integer("limit", default: 500, range: 1...5000)
        request = AnswerRequest(kind: kind, since: try ReadingOptions.day(arguments, "since"), until: try ReadingOptions.day(arguments, "until"),
                                metrics: metrics, metric: metrics.first, groupBy: arguments.string("group-by"),
                                activity: arguments.string("activity"), limit: limit)
        out = arguments.string("out")
        offline = arguments.flag("offline")
    }

    func run() async throws -> Int32 {
        let context = try ReaderContext()
        let source = try await ReadingOptions.freshSource(context, offline: offline)
        let text = try routeStart.map { try RouteGPX(from: source, start: $0).text }
            ?? request.answer(from: source, today: context.today).rendered(as: format)
        if let out {
            try text.write(toFile: out, atomically: true, encoding: .utf8)
            print("wrote \(out)")
        } else {
            print(text, terminator: "")
        }
        return 0
    }
}
