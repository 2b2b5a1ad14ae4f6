import EfferentClient
import EfferentCore
import EfferentReader
import Foundation

/// What every reading command opens: the profile's settings and reading key, the mirror, a client.
struct ReaderContext {
    let profile: Profile
    let settings: ProfileSettings
    let reading: ReadingKey

    init(profile: Profile = .standard()) throws {
        guard profile.exists(Profile.settingsName), profile.exists(KeyFile.readingName) else {
            throw ProfileError.missing(profile.path(Profile.settingsName))
        }
        self.profile = profile
        settings = try profile.settings()
        reading = try profile.readingKey()
    }

    /// A client whose retries are said on stderr; `connectTimeout` shorter where only a refresh waits on it.
    func client(connectTimeout: Double = 2.5) -> ArchiveClient {
        ArchiveClient(endpoint: settings.endpoint, bucket: settings.bucket, retry: Environment.retryPolicy,
                      connectTimeout: connectTimeout, onRetry: { note($0) })
    }

    func mirror() throws -> Mirror { try Mirror(profile: profile, endpoint: settings.endpoint) }

    /// Today in the archive's zone (the profile's; UTC for a reader that has not seen a day yet).
    var today: CalendarDay {
        (ZoneCalendar(identifier: settings.timeZone) ?? .utc).day(of: Date().timeIntervalSince1970)
    }
}
