import EfferentClient
import EfferentCommandLine
import EfferentCore
import EfferentReader
import EfferentSystem
import Foundation

struct Export: Subcommand {
    static let spec = CommandSpec(
        name: "export",
        abstract: "Write an answer to a CSV or JSON Lines file, a workout's route as GPX, or all your data as an SQLite database.",
        discussion: """
        export sqlite FILE writes every event of the mirror and the answers' tables (daily, sleep_nights, workouts, \
        routes, metrics) to a plaintext SQLite file, schema in documents/sql.md; run it again and only the days that \
        changed since are rewritten. The file holds your health records unencrypted: it is created readable by you alone.
        """,
        options: [.init("metric", value: "NAME", help: "The metric (repeat for daily).", repeatable: true),
                  .init("group-by", value: "PERIOD", help: "statistics: day, week, month or year."),
                  .init("activity", value: "NAME", help: "workouts: only this activity."),
                                    .init("start", value: "INSTANT", help: "route: the workout's start as workouts lists it (2025-06-01T07:00:00Z)."),
                  .init("out", value: "FILE", help: "Where to write.", default: "standard output"),
                  .init("since", value: "DAY", help: "First day."), .init("until", value: "DAY", help: "Last day."),
                  .init("format", value: "csv|jsonl", help: "The file's format.", default: "csv"),
                  .flag("offline", help: "Answer from the mirror as it is.")],
        arguments: [.init("KIND", help: "daily, statistics, sleep, workouts, samples, overview, route (GPX) or sqlite."),
                    .init("FILE", help: "Where to write (as --out); sqlite needs it.", optional: true)])

    let request: AnswerRequest
    /// `route`: the start of the workout whose route is written.
    let routeStart: Int64?
    let format: AnswerFormat
    let out: String?
    let offline: Bool
    /// `sqlite`: the database file to write or bring up to date.
    let database: String?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        if arguments.argument(1) != nil && arguments.string("out") != nil {
            throw UsageError("export takes its file once: as the second argument or as --out, not both.")
        }
        out = arguments.argument(1) ?? arguments.string("out")
        offline = arguments.flag("offline")
        if arguments.argument(0) == "sqlite" {
            guard let out else { throw UsageError("export sqlite needs the database file to write, as in: efferent export sqlite health.db") }
            for name in ["metric", "group-by", "activity", "limit", "start", "format"] where arguments.string(name) != nil {
                throw UsageError("export sqlite writes every metric in one schema and takes no --\(name); query the file instead.")
            }
            database = out
            routeStart = nil
            format = .csv
            request = AnswerRequest(kind: .overview, since: try ReadingOptions.day(arguments, "since"), until: try ReadingOptions.day(arguments, "until"))
            if let since = request.since, let until = request.until, until < since { throw UsageError("--until \(until) is before --since \(since).") }
            return
        }
        database = nil
        if arguments.argument(0) == "route" {
            guard let text = arguments.string("start") else { throw UsageError("export route needs --start, the workout's start as workouts lists it.") }
            guard let start = InstantArgument.seconds(text) else {
                throw UsageError("--start takes an instant such as 2025-06-01T07:00:00Z or 2025-06-01T09:00:00+02:00, as workouts prints it.")
            }
            routeStart = start
        } else {
            routeStart = nil
        }
        guard let kind = arguments.argument(0) == "route" ? .workouts : arguments.argument(0).flatMap(AnswerRequest.Kind.init(rawValue:)) else {
            throw UsageError("export takes one of daily, statistics, sleep, workouts, samples, overview, route, sqlite.")
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
                                    metrics: metrics, metric: metrics.first,
                                    groupBy: arguments.string("group-by") == nil ? nil : try Statistics.grouping(arguments),
                                    activity: arguments.string("activity"))
        // A file is the whole answer: no page size, however many rows.
        request.complete = true
        self.request = request
    }

    func run() async throws -> Int32 {
        let context = try ReaderContext()
        let source = try await ReadingOptions.freshSource(context, offline: offline)
        if let database { return try writeDatabase(database, context: context) }
        try EmptyMirror.check(context)
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
        // Every day asked for, cut to the archive by the one rule (AnswerScope), and the cut said.
        let (answer, scope) = try request.answer(from: source, today: context.today, pageDays: nil)
        let table = answer.table
        try table.write(as: format, to: write)
        try output?.finish()
        for line in nameNotes + scope.said { note(line) }
        if let empty = answer.emptyNote { note(empty) }
        if let out { print("wrote \(out): \(table.rows.count) rows, every one the answer holds") }
        return 0
    }
}

extension Export {
    /// `export sqlite FILE`: builds or updates the file, says what it did, and warns what it holds.
    func writeDatabase(_ path: String, context: ReaderContext) throws -> Int32 {
        let started = Date()
        let report = try SQLExport(context: context, path: path, since: request.since, until: request.until).run()
        let seconds = String(format: "%.1f s", Date().timeIntervalSince(started))
        switch (report.kind, report.daysChanged) {
        case (.built, _): print("wrote \(path): \(report.days) days, \(report.events) events, in \(seconds)")
        case (_, 0): print("\(path) is up to date: \(report.days) days, none changed since it was written")
        default: print("updated \(path): \(report.daysChanged) of \(report.days) days changed, \(report.events) events written, in \(seconds)")
        }
        let mode = FileMode.permissions(of: path) ?? 0o600
        note("warning: \(path) holds your health records unencrypted; "
             + (mode & 0o077 == 0 ? "it is readable by you alone (mode 0600), so keep it that way when you copy it"
                : "its mode \(String(mode, radix: 8)) lets others on this machine read it (chmod 600 \(path) stops that)"))
        return 0
    }
}
