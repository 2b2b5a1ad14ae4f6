import EfferentClient
import EfferentCommandLine
import EfferentCore
import EfferentReader
import Foundation

/// The options every reading command shares, and the mirror refresh before answering.
struct ReadingOptions {
    static let specs: [CommandSpec.Option] = [
        .init("since", value: "DAY", help: "First day (YYYY-MM-DD, a local day of the archive); alone, it runs through today.",
              default: "the command's usual window before --until"),
        .init("until", value: "DAY", help: "Last day, inclusive; days outside the archive are left out, and stderr says so.", default: "today"),
        .init("format", value: "FORMAT", help: "table, ndjson, csv or json.", default: "table"),
        .flag("offline", help: "Answer from the mirror as it is, without asking the service for changes."),
    ]

    let since: CalendarDay?
    let until: CalendarDay?
    let format: AnswerFormat
    let offline: Bool

    init(_ arguments: ParsedArguments, defaultFormat: AnswerFormat = .table) throws(UsageError) {
        since = try Self.day(arguments, "since")
        until = try Self.day(arguments, "until")
        if let since, let until, until < since { throw UsageError("--until \(until) is before --since \(since).") }
        let formatText = arguments.string("format", default: defaultFormat.rawValue)
        guard let format = AnswerFormat(rawValue: formatText) else { throw UsageError("--format takes table, ndjson, csv or json.") }
        self.format = format
        offline = arguments.flag("offline")
    }

    static func day(_ arguments: ParsedArguments, _ name: String) throws(UsageError) -> CalendarDay? {
        guard let text = arguments.string(name) else { return nil }
        guard let day = CalendarDay(text) else { throw UsageError("--\(name) takes a real date written YYYY-MM-DD, not '\(text)'.") }
        return day
    }

    /// Seconds an answer gives the service to accept a connection before answering from the mirror
    /// as it is: enough for a service on the same network or a nearby TLS host, short enough that a
    /// service that is away never makes an answer wait.
    static let refreshConnectTimeout = 0.3

    /// The 5-minute freshness rule (§10.3): the mirror is synced first when it is older, unless
    /// offline. A service that does not accept a connection at once leaves the mirror as it is,
    /// and the answer says how old it is.
    static func freshSource(_ context: ReaderContext, offline: Bool) async throws -> MirrorSource {
        let syncedAt = context.mirror.syncedAt.flatMap { ISO8601DateFormatter().date(from: $0) }
        let stale = syncedAt.map { Date().timeIntervalSince($0) > 300 } ?? true
        if stale && !offline {
            do {
                _ = try await context.sync(connectTimeout: refreshConnectTimeout)
            } catch let error as ArchiveError where error.isUnreachable {
                note("answering from the mirror as synced \(age(since: syncedAt)) — the service did not answer just now "
                     + "(\(error)); `efferent sync` brings the mirror up to date")
            } catch {
                note("warning: answering from the mirror as synced \(age(since: syncedAt)) — \(error)")
            }
        }
        return context.source
    }

    /// "3 h ago", "2 days ago", "never".
    static func age(since date: Date?) -> String { EfferentReader.MirrorAge.text(since: date) }

    static func print(_ answer: any Answer, as format: AnswerFormat) throws {
        Swift.print(try answer.rendered(as: format), terminator: "")
    }
}

/// One §10.3 answer as a subcommand (`daily`, `sleep`, …): parse, refresh, answer, print.
protocol AnswerSubcommand: Subcommand {
    var options: ReadingOptions { get }
    func request() -> AnswerRequest
}

extension AnswerSubcommand {
    func run() async throws -> Int32 {
        let context = try ReaderContext()
        let source = try await ReadingOptions.freshSource(context, offline: options.offline)
        try EmptyMirror.check(context)
        let (request, nameNotes) = try request().resolvingNames(with: NameResolver(source: source))
        var facts: ArchiveFacts?
        if request.kind == .overview, !options.offline, let stats = try? await context.client().stats() { facts = ArchiveFacts(stats) }
        // Every day asked for, cut to the archive by the one rule (AnswerScope); a terminal or a
        // file gets every row, so nothing is paged here, and a cut is said on stderr.
        let (answer, scope) = try request.answer(from: source, today: context.today, archive: facts, pageDays: nil)
        // JSON carries the answer's coverage as the API and MCP do; the cut and the days without
        // data are said on stderr, beside any format.
        if options.format == .json {
            Swift.print(String(decoding: try answer.jsonBytes { members in
                if let coverage = scope.coverage { members["coverage"] = coverage.json }
            }, as: UTF8.self))
        } else {
            try ReadingOptions.print(answer, as: options.format)
        }
        AnswerNotes.say(answer, request: request, format: options.format, nameNotes: nameNotes + scope.said)
        // An index that did not read is rebuilt from the days and the answer stands; a person hears of it once.
        if let notice = context.mirror.takeIndexNotice() { note(notice) }
        return 0
    }
}

/// A reader whose mirror holds no day has nothing to answer from: exit 1 with what to run, rather
/// than an empty answer that reads as "no data".
enum EmptyMirror: Error, CustomStringConvertible {
    case neverSynced
    case archiveEmpty(syncedAgo: String)

    static func check(_ context: ReaderContext) throws {
        guard context.mirror.days.isEmpty else { return }
        if context.mirror.syncedAt == nil { throw neverSynced }
        throw archiveEmpty(syncedAgo: ReadingOptions.age(since: context.mirror.syncedAt.flatMap { ISO8601DateFormatter().date(from: $0) }))
    }

    var description: String {
        switch self {
        case .neverSynced: "This reader's mirror holds no day yet: run efferent sync to fetch the archive, then ask again."
        case let .archiveEmpty(ago): "The archive held no day when this reader last synced it (\(ago)): the writer's efferent push uploads them, and efferent sync fetches them."
        }
    }
}
