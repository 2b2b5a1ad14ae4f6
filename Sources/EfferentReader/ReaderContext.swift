import EfferentClient
import EfferentCore
import Foundation
import EfferentSystem

/// The reader as a library: a profile's settings and reading key, the one mirror of the archive
/// and the service client, shared by every reading command and by servers that run for days (a
/// local dashboard).
///
/// It may be used from several threads at once: answers read the mirror while a sync writes it
/// (each day file is replaced whole, and a day is recorded only once its file is written, so an
/// answer sees every day as it was or as it is, never half of one), and syncs take turns.
public final class ReaderContext: Sendable {
    public let profile: Profile
    public let reading: ReadingKey
    /// The reading key a key rotation under way on this profile replaces (days not re-sealed yet).
    public let previousReading: ReadingKey?
    public let mirror: Mirror
    private let current: Mutex<ProfileSettings>
    private let retry: RetryPolicy
    private let transport: (any HTTPTransport)?
    private let onRetry: (@Sendable (String) -> Void)?
    private let syncs = Turnstile()

    /// Opens the reading profile at `profile`; `onRetry` hears each retry as a sentence (the CLI
    /// prints it); `transport` puts the service elsewhere (tests).
    public init(profile: Profile, retry: RetryPolicy = RetryPolicy(), transport: (any HTTPTransport)? = nil,
                onRetry: (@Sendable (String) -> Void)? = nil) throws {
        guard profile.exists(Profile.settingsName), profile.exists(KeyFile.readingName) else {
            throw ProfileError.missing(profile.path(Profile.settingsName))
        }
        self.profile = profile
        let settings = try profile.settings()
        current = Mutex(settings)
        (reading, previousReading) = try profile.readingKeys()
        mirror = try Mirror(profile: profile, endpoint: settings.endpoint)
        self.retry = retry
        self.transport = transport
        self.onRetry = onRetry
    }

    /// The settings as they stand (a reader learns its zone from the archive).
    public var settings: ProfileSettings { current.withLock { $0 } }

    /// A client; `connectTimeout` shorter where only a refresh waits on it.
    public func client(connectTimeout: Double = 2.5) -> ArchiveClient {
        let settings = settings
        return ArchiveClient(endpoint: settings.endpoint, bucket: settings.bucket, retry: retry, transport: transport,
                             connectTimeout: connectTimeout, onRetry: onRetry)
    }

    /// Today in the archive's zone (the profile's; UTC for a reader that has not seen a day yet).
    public var today: CalendarDay {
        (ZoneCalendar(identifier: settings.timeZone) ?? .utc).day(of: Date().timeIntervalSince1970)
    }

    /// Events straight from the mirror.
    public var source: MirrorSource { MirrorSource(mirror: mirror) }

    /// Brings the mirror up to date (the days within the bounds, all when nil), after any sync
    /// already going has finished, and learns the archive's zone from its newest day. Days the
    /// service stops listing stay unless `acceptRemovals` (see `Syncer.run`).
    public func sync(from: CalendarDay? = nil, to: CalendarDay? = nil, acceptRemovals: Bool = false, connectTimeout: Double = 2.5,
                     progress: (@Sendable (Syncer.Progress) -> Void)? = nil) async throws -> Syncer.Report {
        let client = client(connectTimeout: connectTimeout)
        return try await syncs.pass { [self] in
            let syncer = Syncer(client: client, reading: reading, previous: previousReading, mirror: mirror)
            syncer.progress = progress
            let report = try await syncer.run(from: from, to: to, acceptRemovals: acceptRemovals)
            try learnTimeZone()
            return report
        }
    }

    /// A reader learns the archive's zone from its newest day (decision A.4) for "today" defaults.
    func learnTimeZone() throws {
        let settings = settings
        guard settings.role == "reader", let last = mirror.days.last, let body = try mirror.body(last),
              case let .columnar(columns)? = try? DayBody(bytes: body).decoded(), let zone = columns.timeZone,
              zone != settings.timeZone else { return }
        var updated = settings
        updated.timeZone = zone
        try profile.save(updated)
        current.withLock { $0 = updated }
    }
}
