import EfferentClient
import EfferentCommandLine
import EfferentCore
import EfferentReader
import Foundation

struct Sync: Subcommand {
    static let spec = CommandSpec(
        name: "sync",
        abstract: "Bring the local mirror up to date: every day whose upload time changed since the last sync.",
        discussion: """
        Safe to interrupt: each day is written as it arrives, and the next sync takes the rest. Days the \
        service stops listing are kept in the mirror, and the sync says so and exits 1, unless \
        --accept-removals says to forget them.
        """,
        options: [.flag("accept-removals", help: "Forget mirrored days the service no longer lists.")])

    let acceptRemovals: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) { acceptRemovals = arguments.flag("accept-removals") }

    func run() async throws -> Int32 {
        let context = try ReaderContext()
        let mirror = try context.mirror()
        let syncer = Syncer(client: context.client(), reading: context.reading, mirror: mirror)
        let bar = ProgressBar(label: "sync", unit: "days")
        if Environment.isTerminal { syncer.progress = { bar.update(done: $0.done, total: $0.total, bytes: $0.bytes) } }
        defer { bar.finish() }
        let started = Date()
        let report = try await syncer.run(acceptRemovals: acceptRemovals)
        bar.finish()
        try context.learnTimeZone(from: mirror)
        print("fetched \(report.fetched) days in \(report.requests) range requests (\(report.bytes) bytes) in "
              + String(format: "%.1f s", Date().timeIntervalSince(started)) + "; the mirror holds \(mirror.days.count) days"
              + (report.dropped > 0 ? "; \(report.dropped) no longer in the archive were forgotten" : ""))
        guard report.unlisted.isEmpty else {
            let days = report.unlisted
            note("the service no longer lists \(days.count) day\(days.count == 1 ? "" : "s") the mirror holds (\(days.first!)"
                 + (days.count > 1 ? " … \(days.last!)" : "") + "); a writer never removes a day, so the mirror keeps "
                 + "\(days.count == 1 ? "it" : "them"). The writer's daily check sends lost days again; if the archive was "
                 + "cleared on purpose, `efferent sync --accept-removals` forgets them here.")
            return 1
        }
        return 0
    }
}

extension ReaderContext {
    /// A reader learns the archive's zone from its newest day (decision A.4) for "today" defaults.
    func learnTimeZone(from mirror: Mirror) throws {
        guard settings.role == "reader", let last = mirror.days.last, let body = try mirror.body(last),
              case let .columnar(columns)? = try? DayBody(bytes: body).decoded(), let zone = columns.timeZone,
              zone != settings.timeZone else { return }
        var updated = settings
        updated.timeZone = zone
        try profile.save(updated)
    }
}
