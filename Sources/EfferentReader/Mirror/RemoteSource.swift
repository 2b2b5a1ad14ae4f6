import EfferentClient
import EfferentCore

/// Days fetched from the service for one question (`ask`, `read`), opened in memory and never
/// written to disk: the listing for the bounds, then ranges of the listed days.
public struct RemoteSource: EventSource {
    public let events: [ArchiveEvent]
    public let fetchedDays: Int

    /// Fetches every listed day in `from…through`.
    public static func fetch(client: ArchiveClient, reading: ReadingKey, previous: ReadingKey? = nil, from: CalendarDay,
                             through: CalendarDay) async throws -> RemoteSource {
        let listed = try await client.listing(from: from, to: through, readKey: reading.readKey)
        var events = [ArchiveEvent]()
        var fetched = 0
        for span in Syncer.spans(listed.map(\.day)) {
            var after: CalendarDay?
            repeat {
                let answer = try await client.range(from: span.from, to: span.to, after: after, readKey: reading.readKey)
                for entry in answer.days {
                    events += try MirrorSource.events(of: try Syncer.open(entry, keys: [reading] + (previous.map { [$0] } ?? []), bucket: client.bucket), day: entry.day)
                    fetched += 1
                }
                after = answer.next
            } while after != nil
        }
        return RemoteSource(events: events, fetchedDays: fetched)
    }

    public func events(from: CalendarDay, through: CalendarDay) throws -> [ArchiveEvent] {
        events.filter { $0.day >= from && $0.day <= through }
    }

    public func days() throws -> [CalendarDay] { Array(Set(events.map(\.day))).sorted() }
}
