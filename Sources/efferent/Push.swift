import EfferentClient
import EfferentCommandLine
import EfferentCore
import EfferentWriter
import Foundation

struct Push: Subcommand {
    static let spec = CommandSpec(
        name: "push",
        abstract: "Seal the days that changed and upload them; once a day, check the archive lost nothing.",
        options: [
            .flag("check", help: "Walk the archive's listing now, even if it was checked today."),
            .flag("no-check", help: "Skip the daily archive check this time."),
            PriorityOption.option,
        ])

    let check: Pusher.Check
    let priority: SourcePriority

    init(_ arguments: ParsedArguments) throws(UsageError) {
        if arguments.flag("check") && arguments.flag("no-check") { throw UsageError("--check and --no-check contradict each other; give one.") }
        check = arguments.flag("check") ? .always : arguments.flag("no-check") ? .never : .daily
        priority = try PriorityOption.parse(arguments)
    }

    func run() async throws -> Int32 {
        let context = try WriterContext()
        // Agent edits first, so the days they touch go out in this same run.
        let edits: EditApplier.Report?
        do { edits = try await context.applyEditsPrinting() } catch let error as EditApplierError {
            note(error.description)
            edits = nil
        } catch let error as ArchiveError where error.isUnreachable {
            // Nothing can go out either: say so and fail, so a scheduled run is noticed.
            throw error
        } catch {
            note("agent edits could not be fetched this time and stay queued: \(error)")
            edits = nil
        }
        let bar = ProgressBar(label: "push", unit: "days")
        defer { bar.finish() }
        let started = Date()
        var progress: (@Sendable (Pusher.Progress) -> Void)?
        if Environment.isTerminal { progress = { step in bar.update(done: step.done, total: step.total, bytes: step.bytes) } }
        let report = try await context.push(check: check, priority: priority, progress: progress)
        bar.finish()
        let seconds = Date().timeIntervalSince(started)
        print("sent \(report.sent) days in \(report.requests) requests (\(report.bytes) bytes) in \(String(format: "%.1f", seconds)) s; "
              + "\(report.unchanged) unchanged, \(report.refused) refused, \(report.parked) parked")
        for (day, every) in report.thinned.sorted(by: { $0.key < $1.key }) {
            note("\(day): its GPS routes keep every \(every)th fix, so the day fits the archive's 1 MiB")
        }
        if let missing = report.checkedMissing {
            print("archive check: \(missing) days were missing or wrong and were sent again"
                  + (report.rewrittenElsewhere > 0 ? " (\(report.rewrittenElsewhere) of them rewritten on the service without this writer: a replayed upload?)" : ""))
        }
        for (_, reason) in report.parkedNow.sorted(by: { $0.key < $1.key }) { note("parked: \(reason); efferent status lists parked days") }
        if let failure = report.checkFailure { note("the archive check could not finish and will run again next time: \(failure)") }
        if let refused = edits?.refused, refused > 0 { note("\(refused) agent edits were refused whole; `efferent edits --all` on the agent's side shows why") }
        if let reminder = try? KitReminder.dailyReminder(context.profile) { note(reminder) }
        return report.refused > 0 ? 1 : 0
    }
}
