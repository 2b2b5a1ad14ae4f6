import EfferentClient
import EfferentCommandLine
import EfferentCore
import EfferentSystem
import EfferentWriter
import Foundation

/// What every writer command opens: the profile, its keys and settings, the store and the client.
struct WriterContext {
    let profile: Profile
    let settings: ProfileSettings
    let reading: ReadingKey
    let writer: Ed25519PrivateKey
    let zone: ZoneCalendar
    let store: SourceStore

    init(profile: Profile = .standard()) throws {
        guard profile.exists(Profile.settingsName), profile.exists(KeyFile.writerName) else {
            if profile.exists(Profile.settingsName), (try? profile.settings())?.role == "reader" {
                throw WriterError.readerProfile(profile.directory)
            }
            throw WriterError.notInitialised(profile.directory)
        }
        self.profile = profile
        settings = try profile.settings()
        reading = try profile.readingKey()
        writer = try profile.writerKey()
        guard let zone = ZoneCalendar(identifier: settings.timeZone) else { throw WriterError.unknownTimeZone(settings.timeZone) }
        self.zone = zone
        store = try SourceStore(path: profile.path(SourceStore.fileName), zone: zone)
    }

    func client() throws -> ArchiveClient {
        let offset = try store.meta("clock.offset").flatMap { Int64($0) } ?? 0
        return ArchiveClient(endpoint: settings.endpoint, bucket: settings.bucket, clock: ServiceClock(offset: offset),
                             retry: Environment.retryPolicy, onRetry: { note($0) })
    }
}

/// `--priority LIST`, taken by every command that builds days (push, apply, check).
enum PriorityOption {
    static let option = CommandSpec.Option("priority", value: "LIST", help: "Source classes for overlapping totals, highest first.",
                                           default: "Watch,iPhone")

    static func parse(_ arguments: ParsedArguments) throws(UsageError) -> SourcePriority {
        guard let priority = SourcePriority(parsing: arguments.string("priority", default: "Watch,iPhone")) else {
            throw UsageError("--priority takes a comma-separated list such as Watch,iPhone.")
        }
        return priority
    }
}

enum Environment {
    /// `EFFERENT_RETRY_DELAYS=0,0` shortens the backoff (tests); the default is 2, 4, 8, 16 s.
    static var retryPolicy: RetryPolicy {
        guard let text = ProcessInfo.processInfo.environment["EFFERENT_RETRY_DELAYS"] else { return RetryPolicy() }
        return RetryPolicy(delays: text.split(separator: ",").compactMap { Double($0) }, jitter: 0)
    }

    static var isTerminal: Bool { Terminal.standardErrorIsTerminal }
}

/// A line on stderr that starts on a line of its own, even while a progress bar is drawn.
func note(_ text: String) {
    ProgressBar.clearLine()
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
