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
            var request = AnswerRequest(kind: .samples, since: options.since, until: options.until, metric: metric)
            // A chart, like any file, draws every reading the range holds.
            request.complete = true
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
        if arguments.string("limit") != nil {
            throw UsageError("export writes every row and takes no --limit; `efferent samples --limit N` prints a page.")
        }
        var request = AnswerRequest(kind: kind, since: try ReadingOptions.day(arguments, "since"), until: try ReadingOptions.day(arguments, "until"),
                                    metrics: metrics, metric: metrics.first, groupBy: arguments.string("group-by"),
                                    activity: arguments.string("activity"))
        // A file is the whole answer: no page size, however many rows.
        request.complete = true
        self.request = request
        out = arguments.string("out")
        offline = arguments.flag("offline")
    }

    func run() async throws -> Int32 {
        let context = try ReaderContext()
        let source = try await ReadingOptions.freshSource(context, offline: offline)
        let output = try out.map { try StreamedFile(path: $0) }
        let write: (String) throws -> Void = { text in
            if let output { try output.write(text) } else { FileHandle.standardOutput.write(Data(text.utf8)) }
        }
        if let routeStart {
            try write(try RouteGPX(from: source, start: routeStart).text)
            try output?.finish()
            if let out { print("wrote \(out)") }
            return 0
        }
        let (request, nameNotes) = try request.resolvingNames(with: NameResolver(source: source))
        let answer = try request.answer(from: source, today: context.today)
        let table = answer.table
        try table.write(as: format, to: write)
        try output?.finish()
        for line in nameNotes { note(line) }
        if let empty = answer.emptyNote { note(empty) }
        if let out { print("wrote \(out): \(table.rows.count) rows, every one the answer holds") }
        return 0
    }
}
