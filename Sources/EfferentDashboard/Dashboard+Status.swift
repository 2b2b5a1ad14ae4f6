import EfferentCore
import EfferentReader
import Foundation

/// `/api/v1/status`: how old the mirror is and what the background sync last came to, for the
/// line at the top of every page.
extension Dashboard {
    func status() throws -> JSONValue {
        let mirror = context.mirror
        let days = mirror.days
        let syncedAt = mirror.syncedAt.flatMap { ISO8601DateFormatter().date(from: $0) }
        let state: String, note: String
        switch sync.status.outcome {
        case .never:
            let due = BackgroundSync.due(syncedAt: syncedAt, lastAttempt: nil)
            (state, note) = ("waiting", "next refresh from the service " + (due <= Date() ? "now" : "in \(Int(due.timeIntervalSinceNow / 60) + 1) min"))
        case .running: (state, note) = ("syncing", "refreshing the mirror from the service")
        case let .synced(fetched): (state, note) = ("synced", fetched == 0 ? "the mirror is up to date" : "fetched \(fetched) changed days")
        case let .away(reason): (state, note) = ("away", "the service did not answer (\(reason)); showing the mirror as it is")
        case let .failed(reason): (state, note) = ("failed", "the last refresh failed: \(reason)")
        case .offline: (state, note) = ("offline", "offline: the mirror is shown as it is, never refreshed")
        }
        return .object([
            "mirror": .object(["days": .number(Double(days.count)), "firstDay": days.first.map { .string($0.description) } ?? .null,
                               "lastDay": days.last.map { .string($0.description) } ?? .null,
                               "syncedAt": mirror.syncedAt.map(JSONValue.string) ?? .null,
                               "age": .string(MirrorAge.text(since: syncedAt))]),
            "sync": .object(["state": .string(state), "note": .string(note),
                             "lastAttempt": sync.status.lastAttempt.map { .string(ISO8601DateFormatter().string(from: $0)) } ?? .null]),
            "timeZone": .string(zone), "today": .string(today.description),
        ])
    }
}
