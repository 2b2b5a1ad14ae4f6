import EfferentClient
import EfferentCommandLine
import EfferentCore
import EfferentReader
import Foundation

/// The filters of `query`, `ask` and `read` (§10.2).
struct EventOptions {
    static let specs: [CommandSpec.Option] = [
        .init("metric", value: "NAME", help: "Only this metric."),
        .init("bucket", value: "hour|day", help: "Only totals of this bucket."),
        .init("limit", value: "N", help: "At most this many events."),
        .init("since", value: "DAY", help: "First day (YYYY-MM-DD, local to the archive)."),
        .init("until", value: "DAY", help: "Last day, inclusive."),
        .init("format", value: "FORMAT", help: "ndjson, json, csv or table.", default: "ndjson"),
    ]

    let query: EventQuery
    let format: AnswerFormat

    init(_ arguments: ParsedArguments) throws(UsageError) {
        var bucket: DayEvent.Bucket?
        if let text = arguments.string("bucket") {
            guard let value = DayEvent.Bucket(rawValue: text) else { throw UsageError("--bucket takes hour or day.") }
            bucket = value
        }
        let since = try ReadingOptions.day(arguments, "since"), until = try ReadingOptions.day(arguments, "until")
        if let since, let until, until < since { throw UsageError("--until \(until) is before --since \(since).") }
        let limit = arguments.string("limit") == nil ? nil : try arguments.integer("limit", default: 0, range: 1...10_000_000)
        query = EventQuery(metric: arguments.string("metric"), bucket: bucket, since: since, until: until, limit: limit)
        guard let format = AnswerFormat(rawValue: arguments.string("format", default: "ndjson")) else {
            throw UsageError("--format takes ndjson, json, csv or table.")
        }
        self.format = format
    }

    /// Events as a table: the expanded fields of §3.2 with their archive day.
    static func table(_ events: [ArchiveEvent]) -> AnswerTable {
        let columns = ArchiveEvent.tableColumns
        return AnswerTable(columns: columns, rows: events.map { item in
            let object = item.json
            return columns.map { object[$0] ?? .null }
        })
    }

    /// The query with its metric read as the archive or the protocol names it (`Steps` → `steps`),
    /// saying so; an unknown name is refused with the names that would answer.
    func resolved(in source: EventSource) throws -> EventQuery {
        guard let metric = query.metric else { return query }
        let resolution = try NameResolver(source: source).metric(metric)
        if let line = resolution.note { note(line) }
        var resolved = query
        resolved.metric = resolution.name
        return resolved
    }

    /// Prints the events, then says on stderr when there were none or when `--limit` left some out.
    func print(_ events: [ArchiveEvent], of query: EventQuery, matched: Int) throws {
        try Self.print(events, as: format)
        Self.sayWhatWasLeft(query, returned: events.count, matched: matched)
    }

    /// Prints the events of `source` that `query` matches. NDJSON, CSV and JSON are written as the
    /// days are read, a month of them at a time: a decade of every type is millions of events
    /// (gigabytes of memory held whole). Only the aligned table needs the whole answer first.
    func print(_ query: EventQuery, from source: EventSource) throws {
        guard var printer = EventPrinter(format) else {
            let (events, matched) = try query.runCounting(source)
            return try print(events, of: query, matched: matched)
        }
        printer.begin()
        let (returned, matched) = try query.forEachWindow(source) { printer.write($0) }
        printer.end()
        Self.sayWhatWasLeft(query, returned: returned, matched: matched)
    }

    private static func sayWhatWasLeft(_ query: EventQuery, returned: Int, matched: Int) {
        if matched == 0, query.metric != nil || query.since != nil || query.until != nil {
            let what = query.metric.map { "no \($0) events" } ?? "no events"
            let when = query.since.map { " between \($0) and \(query.until?.description ?? "today")" } ?? query.until.map { " until \($0)" } ?? ""
            note(what + when)
        } else if matched > returned {
            note("matched \(matched), returned \(returned): --limit \(query.limit ?? returned) left out \(matched - returned); without --limit every one is printed")
        }
    }

    static func print(_ events: [ArchiveEvent], as format: AnswerFormat) throws {
        guard var printer = EventPrinter(format) else {
            return Swift.print(table(events).alignedText(), terminator: "")
        }
        printer.begin()
        printer.write(events)
        printer.end()
    }
}

/// Events written to stdout as NDJSON, CSV or JSON a mebibyte at a time, whether they come as one
/// answer or a window of days after another: CSV's header and JSON's brackets once, each event
/// straight from its fields (the bytes `EventOptions.table` and `ArchiveEvent.json` would give).
struct EventPrinter {
    private let format: AnswerFormat
    private var first = true

    /// Nil for the aligned table, whose column widths need every row first.
    init?(_ format: AnswerFormat) {
        guard format != .table else { return nil }
        self.format = format
    }

    func begin() {
        switch format {
        case .csv: Self.out(Array((ArchiveEvent.tableColumns.joined(separator: ",") + "\r\n").utf8))
        case .json: Self.out(Array("[".utf8))
        case .ndjson, .table: break
        }
    }

    mutating func write(_ events: [ArchiveEvent]) {
        var writer = JSONWriter(reservingCapacity: 1 << 20)
        for item in events {
            switch format {
            case .ndjson: item.writeLine(into: &writer)
            case .csv: item.writeCSVRow(into: &writer)
            case .json, .table:
                // The canonical array: the events' objects joined by commas.
                if !first { writer.raw(byte: UInt8(ascii: ",")) }
                item.writeObject(into: &writer)
            }
            first = false
            if writer.bytes.count >= 1 << 20 {
                Self.out(writer.bytes)
                writer = JSONWriter(reservingCapacity: 1 << 20)
            }
        }
        if !writer.bytes.isEmpty { Self.out(writer.bytes) }
    }

    func end() {
        if format == .json { Self.out(Array("]\n".utf8)) }
    }

    private static func out(_ bytes: [UInt8]) { FileHandle.standardOutput.write(Data(bytes)) }
}

struct Query: Subcommand {
    static let spec = CommandSpec(name: "query", abstract: "Events from the local mirror, offline, filtered by metric, bucket and days.",
                                  options: EventOptions.specs)
    let options: EventOptions
    init(_ arguments: ParsedArguments) throws(UsageError) { options = try EventOptions(arguments) }

    func run() async throws -> Int32 {
        let context = try ReaderContext()
        let query = try options.resolved(in: context.source)
        try options.print(query, from: context.source)
        return 0
    }
}

struct Ask: Subcommand {
    static let spec = CommandSpec(name: "ask", abstract: "Fetch the days in question from the service (no mirror), filter them, print the events.",
                                  options: EventOptions.specs)
    let options: EventOptions
    init(_ arguments: ParsedArguments) throws(UsageError) { options = try EventOptions(arguments) }

    func run() async throws -> Int32 {
        let context = try ReaderContext()
        let source = try await RemoteSource.fetch(client: context.client(), reading: context.reading, previous: context.previousReading,
                                                  from: options.query.fetchFrom, through: min(options.query.fetchThrough, context.today.next))
        let query = try options.resolved(in: source)
        let (events, matched) = try query.runCounting(source)
        try options.print(events, of: query, matched: matched)
        note("\(source.fetchedDays) days fetched, \(events.count) events kept")
        return 0
    }
}

struct Read: Subcommand {
    static let spec = CommandSpec(name: "read", abstract: "Fetch days from the service and print every event as it is, one JSON line each.",
                                  options: [.init("since", value: "DAY", help: "First day."), .init("until", value: "DAY", help: "Last day.")])
    let since: CalendarDay?
    let until: CalendarDay?
    init(_ arguments: ParsedArguments) throws(UsageError) {
        since = try ReadingOptions.day(arguments, "since")
        until = try ReadingOptions.day(arguments, "until")
    }

    func run() async throws -> Int32 {
        let context = try ReaderContext()
        let last = until ?? context.today
        let first = since ?? last.adding(days: -6)
        let source = try await RemoteSource.fetch(client: context.client(), reading: context.reading, previous: context.previousReading, from: first, through: last)
        try EventOptions.print(source.events, as: .ndjson)
        if source.events.isEmpty { note("no events between \(first) and \(last) (\(source.fetchedDays) days fetched); --since and --until choose other days") }
        return 0
    }
}
