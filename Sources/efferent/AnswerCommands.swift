import EfferentCommandLine
import EfferentCore
import EfferentReader

struct Overview: AnswerSubcommand {
    static let spec = CommandSpec(name: "overview", abstract: "What the archive holds: each metric, its unit, days covered and events.",
                                  options: ReadingOptions.specs)
    let options: ReadingOptions
    init(_ arguments: ParsedArguments) throws(UsageError) { options = try ReadingOptions(arguments) }
    func request() -> AnswerRequest { AnswerRequest(kind: .overview, since: options.since, until: options.until) }
}

struct Daily: AnswerSubcommand {
    static let spec = CommandSpec(
        name: "daily", abstract: "Per day: totals summed as the Health app shows them, readings as min, mean and max.",
        options: [.init("metric", value: "NAME", help: "A metric to list (any in overview); repeat for several.", default: "steps and activeEnergy",
                        repeatable: true)] + ReadingOptions.specs)
    let options: ReadingOptions
    let metrics: [String]
    init(_ arguments: ParsedArguments) throws(UsageError) {
        options = try ReadingOptions(arguments)
        metrics = arguments.strings("metric").flatMap { $0.split(separator: ",").map(String.init) }
    }
    func request() -> AnswerRequest { AnswerRequest(kind: .daily, since: options.since, until: options.until, metrics: metrics) }
}

struct Statistics: AnswerSubcommand {
    static let spec = CommandSpec(
        name: "statistics", abstract: "Distribution of a metric per day, week, month or year (min, percentiles, mean, max, sum).",
        options: [.init("metric", value: "NAME", help: "A total or a reading: steps, heartRate, bloodPressureSystolic, … (overview lists them)."),
                  .init("group-by", value: "PERIOD", help: "day, week, month or year.", default: "month")] + ReadingOptions.specs)
    let options: ReadingOptions
    let metric: String
    let groupBy: String
    init(_ arguments: ParsedArguments) throws(UsageError) {
        options = try ReadingOptions(arguments)
        metric = try arguments.required("metric")
        groupBy = try Self.grouping(arguments)
    }

    /// `--group-by`, checked here so a refusal names the flag typed (the API's says `groupBy`).
    static func grouping(_ arguments: ParsedArguments) throws(UsageError) -> String {
        let text = arguments.string("group-by", default: "month")
        guard Grouping(rawValue: text) != nil else {
            throw UsageError("--group-by takes day, week, month or year; \(text.prefix(40)) is none of them.")
        }
        return text
    }
    func request() -> AnswerRequest {
        AnswerRequest(kind: .statistics, since: options.since, until: options.until, metric: metric, groupBy: groupBy)
    }
}

struct Sleep: AnswerSubcommand {
    static let spec = CommandSpec(
        name: "sleep", abstract: "Nights stitched from every source (stages as unions, never summed), named by their evening; naps apart.",
        options: ReadingOptions.specs)
    let options: ReadingOptions
    init(_ arguments: ParsedArguments) throws(UsageError) { options = try ReadingOptions(arguments) }
    func request() -> AnswerRequest { AnswerRequest(kind: .sleep, since: options.since, until: options.until) }
}

struct Workouts: AnswerSubcommand {
    static let spec = CommandSpec(
        name: "workouts", abstract: "Workouts, one a row: start, end, activity, minutes, source, distance, energy, heart rate and GPS fixes.",
        discussion: "--format json adds the count and minutes of each activity (byActivity) and the total.",
        options: [.init("activity", value: "NAME", help: "Only this activity (running, walking, cycling, …).")] + ReadingOptions.specs)
    let options: ReadingOptions
    let activity: String?
    init(_ arguments: ParsedArguments) throws(UsageError) {
        options = try ReadingOptions(arguments)
        activity = arguments.string("activity")
    }
    func request() -> AnswerRequest { AnswerRequest(kind: .workouts, since: options.since, until: options.until, activity: activity) }
}

struct Samples: AnswerSubcommand {
    static let spec = CommandSpec(
        name: "samples", abstract: "The events of one metric as they are (heart rate readings, sleep stretches, …).",
        options: [.init("metric", value: "NAME", help: "The metric."),
                  .init("limit", value: "N", help: "A page of this many rows (up to 5000); stderr says how many matched, and `efferent export samples` writes them all.", default: "500")] + ReadingOptions.specs)
    let options: ReadingOptions
    let metric: String
    let limit: Int
    init(_ arguments: ParsedArguments) throws(UsageError) {
        options = try ReadingOptions(arguments)
        metric = try arguments.required("metric")
        limit = try arguments.integer("limit", default: 500, range: 1...5000)
    }
    func request() -> AnswerRequest {
        AnswerRequest(kind: .samples, since: options.since, until: options.until, metric: metric, limit: limit)
    }
}
