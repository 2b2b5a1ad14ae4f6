import EfferentClient
import EfferentCore
import EfferentReader
import Foundation
import EfferentSystem

/// Keeps the mirror fresh while the dashboard runs: a sync when the mirror is more than five
/// minutes old, never more often, in the background — a page never waits on the service, it
/// answers from the mirror as it is and says how old that is.
public final class BackgroundSync: Sendable {
    /// What the last attempt came to, for the page's status line.
    public enum Outcome: Sendable, Equatable {
        case never
        case running
        case synced(fetched: Int)
        /// The service could not be reached; the sentence says why.
        case away(String)
        case failed(String)
        case offline
    }

    public struct Status: Sendable, Equatable {
        public var outcome: Outcome = .never
        public var lastAttempt: Date?
    }

    /// Five minutes (§10.3's freshness rule).
    public static let interval: TimeInterval = 300

    private let context: ReaderContext
    private let digest: MirrorDigest
    private let state = Mutex(Status())
    private let report: @Sendable (String) -> Void

    /// `report` hears a sentence when a sync fails (the command prints it).
    public init(context: ReaderContext, digest: MirrorDigest, report: @escaping @Sendable (String) -> Void = { _ in }) {
        self.context = context
        self.digest = digest
        self.report = report
    }

    public var status: Status { state.withLock { $0 } }

    /// When the next sync is due: five minutes after the later of the mirror's last sync and the
    /// last attempt (a failed attempt waits as long as a good one), now when neither happened.
    public static func due(syncedAt: Date?, lastAttempt: Date?) -> Date {
        guard let latest = [syncedAt, lastAttempt].compactMap({ $0 }).max() else { return .distantPast }
        return latest.addingTimeInterval(interval)
    }

    /// Syncs if one is due at `now`; returns whether it tried.
    @discardableResult
    public func tick(now: Date = Date()) async -> Bool {
        let syncedAt = context.mirror.syncedAt.flatMap { ISO8601DateFormatter().date(from: $0) }
        guard now >= Self.due(syncedAt: syncedAt, lastAttempt: status.lastAttempt) else { return false }
        state.withLock { $0 = Status(outcome: .running, lastAttempt: now) }
        let outcome: Outcome
        do {
            let report = try await context.sync()
            outcome = .synced(fetched: report.fetched)
        } catch let error as ArchiveError where error.isUnreachable {
            outcome = .away("\(error)")
            report("the mirror was not refreshed: the service did not answer (\(error)); the dashboard shows it as it is")
        } catch {
            outcome = .failed("\(error)")
            report("the mirror was not refreshed: \(error)")
        }
        // New days are digested now rather than by the next page.
        _ = try? digest.refresh()
        state.withLock { $0.outcome = outcome }
        return true
    }

    /// Runs until cancelled: a tick whenever one is due.
    public func run() async {
        while !Task.isCancelled {
            await tick()
            let syncedAt = context.mirror.syncedAt.flatMap { ISO8601DateFormatter().date(from: $0) }
            let wait = max(1, Self.due(syncedAt: syncedAt, lastAttempt: status.lastAttempt).timeIntervalSinceNow)
            try? await Task.sleep(nanoseconds: UInt64(min(wait, Self.interval) * 1_000_000_000))
        }
    }

    /// Never syncs: the dashboard shows the mirror as it is (`--offline`).
    public func markOffline() { state.withLock { $0.outcome = .offline } }
}
