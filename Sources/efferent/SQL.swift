import EfferentCommandLine
import EfferentCore
import EfferentReader
import Foundation

/// `efferent sql "SELECT …"`: one read-only query over the mirror as SQL (documents/sql.md),
/// the copy beside the mirror built or brought up to date first.
struct SQL: Subcommand {
    static let spec = CommandSpec(
        name: "sql",
        abstract: "Run one read-only SQL query over your data: daily, events, sleep_nights, workouts, routes, metrics (documents/sql.md).",
        discussion: """
        The query reads a copy of the mirror kept beside it (mirror.sqlite in EFFERENT_HOME), built on first use and \
        brought up to date before each query from the days that changed. Only reading statements run: SELECT, WITH, \
        VALUES, EXPLAIN and pragmas that report. Example: efferent sql "SELECT strftime('%Y-%m', day) AS month, \
        avg(value) FROM daily WHERE metric = 'restingHeartRate' GROUP BY month"
        """,
        options: [.init("format", value: "FORMAT", help: "table, csv or json.", default: "table"),
                  .init("time-limit", value: "SECONDS", help: "Stop the statement after this long (1 to 86400).", default: "300"),
                  .flag("offline", help: "Answer from the mirror as it is, without asking the service for changes.")],
        arguments: [.init("QUERY", help: "One SQL statement, quoted.")])

    /// Rows a table shows; past this it says how to get every row.
    static let tableRowLimit = 10_000

    let query: String
    let format: AnswerFormat
    let offline: Bool
    let seconds: Int

    init(_ arguments: ParsedArguments) throws(UsageError) {
        query = arguments.argument(0) ?? ""
        seconds = try arguments.integer("time-limit", default: Int(SQLQuery.defaultSeconds), range: 1...86_400)
        guard let format = AnswerFormat(rawValue: arguments.string("format", default: "table")), format != .ndjson else {
            throw UsageError("--format takes table, csv or json.")
        }
        self.format = format
        offline = arguments.flag("offline")
    }

    func run() async throws -> Int32 {
        // Before any database opens: SQLite's memory in this process, the query's included, is bounded.
        SQLQuery.boundProcessMemory()
        let context = try ReaderContext()
        _ = try await ReadingOptions.freshSource(context, offline: offline)
        try context.profile.prepare()
        let export = SQLExport.besideMirror(context)
        let started = Date()
        let report = try export.run()
        if report.kind == .built {
            note("built the mirror's SQL copy (\(report.days) days, \(report.events) events) in "
                 + String(format: "%.1f s", Date().timeIntervalSince(started)) + "; later queries update it")
        }
        let result: SQLQuery
        do {
            result = try SQLQuery(path: export.path, sql: query, seconds: Double(seconds))
        } catch let error as SQLQueryError where error.isRefusal {
            throw UsageError(error.description)
        }
        switch format {
        case .table:
            var rows = [[JSONValue]]()
            while rows.count < Self.tableRowLimit, let row = try result.next() { rows.append(row) }
            print(AnswerTable(columns: result.columns, rows: rows).alignedText(), terminator: "")
            if try result.next() != nil {
                note("the table shows the first \(Self.tableRowLimit) rows; --format csv or json gives every row")
            }
        case .csv:
            let header = try AnswerTable(columns: result.columns, rows: []).csv()
            write(header)
            try Self.chunks(of: result) { rows in write(String(try AnswerTable(columns: result.columns, rows: rows).csv().dropFirst(header.count))) }
        default:
            var first = true
            write("[")
            try Self.chunks(of: result) { rows in
                var text = ""
                for line in try AnswerTable(columns: result.columns, rows: rows).ndjson().split(separator: "\n") {
                    text += (first ? "\n" : ",\n") + line
                    first = false
                }
                write(text)
            }
            write(first ? "]\n" : "\n]\n")
        }
        return 0
    }

    /// The rows of `result` a thousand at a time, so a long answer streams out.
    static func chunks(of result: SQLQuery, _ body: ([[JSONValue]]) throws -> Void) throws {
        var rows = [[JSONValue]]()
        while let row = try result.next() {
            rows.append(row)
            if rows.count == 1000 {
                try body(rows)
                rows.removeAll(keepingCapacity: true)
            }
        }
        if !rows.isEmpty { try body(rows) }
    }

    private func write(_ text: String) { FileHandle.standardOutput.write(Data(text.utf8)) }
}
