import EfferentClient
import EfferentCommandLine
import EfferentCore
import EfferentWriter
import Foundation

struct Status: Subcommand {
    static let spec = CommandSpec(name: "status", abstract: "Show what is pending, parked and when the archive was last written and checked.")

    init(_ arguments: ParsedArguments) throws(UsageError) {}

    func run() async throws -> Int32 {
        let context = try WriterContext()
        let store = context.store
        let pending = try store.pendingDays()
        let parked = try store.parkedDays()
        func when(_ key: String) throws -> String {
            guard let seconds = try store.meta(key).flatMap(Double.init) else { return "never" }
            return ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: seconds))
        }
        print("archive  \(context.settings.bucket) on \(context.settings.endpoint)")
        print("zone     \(context.settings.timeZone)")
        print("records  \(try store.recordCount())" + (try store.earliestDay().map { " since \($0)" } ?? ""))
        print("pending  \(pending.count) days" + (pending.isEmpty ? "" : " (\(pending.last!) … \(pending.first!))"))
        print("parked   \(parked.count) days" + (parked.isEmpty ? "" : ": " + parked.prefix(10).map(\.description).joined(separator: ", ")))
        print("uploaded \(try when("upload.lastAt"))")
        print("checked  \(try when("reconcile.lastAt"))")
        return 0
    }
}
