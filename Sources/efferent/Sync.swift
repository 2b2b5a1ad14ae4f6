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
        let mirror = context.mirror
        let bar = ProgressBar(label: "sync", unit: "days")
        defer { bar.finish() }
        let started = Date()
        var progress: (@Sendable (Syncer.Progress) -> Void)?
        if Environment.isTerminal { progress = { step in bar.update(done: step.done, total: step.total, bytes: step.bytes) } }
        let report = try await context.sync(acceptRemovals: acceptRemovals, progress: progress)
        bar.finish()
        if let notice = mirror.takeIndexNotice() { note(notice) }
        print("fetched \(report.fetched) days in \(report.requests) range requests (\(report.bytes) bytes) in "
              + String(format: "%.1f s", Date().timeIntervalSince(started)) + "; the mirror holds \(mirror.days.count) days"
              + (report.dropped > 0 ? "; \(report.dropped) no longer in the archive were forgotten, their files deleted" : "")
              + (report.sweptFiles > 0 ? "; \(report.sweptFiles) files of days forgotten earlier deleted" : ""))
        // Long-term links (decision A.15) are sealed again when the days they cover changed.
        var sealing = Int32(0)
        if report.fetched > 0 {
            do {
                for item in try await LinkSharer(context: context).refresh(source: context.source) where item.version != nil || item.note != nil {
                    print(ShareText.refreshed(item))
                }
            } catch {
                note("warning: the sync is done, but a long-term shared link could not be sealed again: \(error)")
                sealing = 1
            }
        }
        guard report.unlisted.isEmpty else {
            let days = report.unlisted
            note("the service no longer lists \(days.count) day\(days.count == 1 ? "" : "s") the mirror holds (\(days.first!)"
                 + (days.count > 1 ? " … \(days.last!)" : "") + "); a writer never removes a day, so the mirror keeps "
                 + "\(days.count == 1 ? "it" : "them"). The writer's daily check sends lost days again; if the archive was "
                 + "cleared on purpose, `efferent sync --accept-removals` forgets them here.")
            return 1
        }
        return sealing
    }
}
