import EfferentClient
import EfferentCommandLine
import EfferentCore
import EfferentReader
import EfferentReceiver
import EfferentWriter
import Foundation

struct Status: Subcommand {
    static let spec = CommandSpec(
        name: "status",
        abstract: "Show the archive, the local mirror, and for the writer what is pending, parked, uploaded and checked.")

    init(_ arguments: ParsedArguments) throws(UsageError) {}

    func run() async throws -> Int32 {
        let reader = try ReaderContext()
        print("bucket   \(reader.settings.bucket) on \(reader.settings.endpoint)")
        var stats: ArchiveStats?
        do {
            stats = try await reader.client().stats()
        } catch {
            print("archive  not reachable just now: \(error)")
        }
        if let stats {
            let mib = String(format: "%.1f", Double(stats.bytes) / 1_048_576)
            print("archive  \(stats.days)\(stats.complete ? "" : "+") days, \(mib) MiB"
                  + (stats.firstDay.map { ", \($0) … \(stats.lastDay!)" } ?? ""))
        }
        let mirror = reader.mirror
        if let first = mirror.days.first, let last = mirror.days.last {
            let behind = stats.map { max(0, $0.days - mirror.days.count) } ?? 0
            // Days whose files are missing or are not what was fetched: not up to date, whatever the count says.
            let damaged = try mirror.damagedDays()
            var state = behind == 0 ? "up to date" : "\(behind) behind, run sync"
            if !damaged.isEmpty {
                let days = damaged.keys.sorted()
                state = "\(days.count) \(days.count == 1 ? "day is" : "days are") missing or damaged (\(days.prefix(3).map(\.description).joined(separator: ", "))"
                    + (days.count > 3 ? ", …" : "") + "), run sync" + (behind == 0 ? "" : "; \(behind) behind")
            }
            print("mirror   \(mirror.days.count) days, \(first) … \(last)  — " + state)
            if let notice = mirror.takeIndexNotice() { note(notice) }
        } else {
            print("mirror   nothing yet — run sync")
        }
        guard reader.profile.exists(KeyFile.writerName) else { return 0 }
        let context = try WriterContext(profile: reader.profile, retry: Environment.retryPolicy, onRetry: { note($0) })
        let store = context.store
        let pending = try store.pendingDays()
        let parked = try store.parkedDaysWithReasons()
        func when(_ key: String) throws -> String {
            guard let seconds = try store.meta(key).flatMap(Double.init) else { return "never" }
            return ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: seconds))
        }
        print("zone     \(context.settings.timeZone)")
        print("records  \(try store.recordCount())" + (try store.earliestDay().map { " since \($0)" } ?? ""))
        print("pending  \(pending.count) days" + (pending.isEmpty ? "" : " (\(pending.last!) … \(pending.first!))"))
        print("parked   \(parked.count) days" + (parked.isEmpty ? "" : "; the daily check tries them again"))
        for entry in parked.prefix(10) { print("         \(entry.day): \(entry.refusal ?? "refused five times")") }
        if parked.count > 10 { print("         … and \(parked.count - 10) more") }
        print("uploaded \(try when("upload.lastAt"))")
        print("checked  \(try when("reconcile.lastAt"))")
        print("kit      \(try KitReminder.statusLine(context.profile))")
        if try context.profile.rotationJournal() != nil {
            print("keys     a rotation is under way: efferent keys rotate finishes it")
        }
        if let reminder = try KitReminder.dailyReminder(context.profile) { note(reminder) }
        // Phones paired with `efferent receive`: what each sent today and what went wrong last.
        func at(_ seconds: Double?) -> String { seconds.map { ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: $0)) } ?? "never" }
        for phone in try ReceiverStore(store: store).pairedPhones(today: store.zone.day(of: Date().timeIntervalSince1970)) where phone.revoked == nil {
            var line = "phone    #\(phone.id) \(phone.name): last batch \(at(phone.lastBatch)); today \(phone.batchesToday) batches, "
                + "\(phone.samplesToday) samples"
            if let error = phone.lastError { line += "; last error \(at(phone.lastErrorAt)): \(error)" } else { line += "; no error" }
            print(line)
        }
        // Agents' edits waiting for this phone (asked only when the service answered above).
        if stats != nil {
            if let waiting = try? await context.client().edits(readKey: context.reading.readKey) {
                print("edits    \(waiting.count) waiting on the service" + (waiting.isEmpty ? "" : "; push or apply takes them in"))
            } else {
                print("edits    unknown just now (the service did not list them)")
            }
        }
        return 0
    }
}
