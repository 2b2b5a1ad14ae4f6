import EfferentCore
@testable import EfferentDashboard
import EfferentReader
import Foundation
import Testing

/// The dashboard's mirror is refreshed at most every five minutes and never holds up a page: the
/// schedule is a pure function of the last sync and the last attempt; a tick with the service
/// away records it and the pages answer from the mirror as it is. Moments are given, not waited for.
@Suite struct BackgroundSyncTests {
    @Test func aSyncIsDueFiveMinutesAfterTheLaterOfTheLastSyncAndTheLastAttempt() {
        let now = Date(timeIntervalSince1970: 1_750_000_000)
        #expect(BackgroundSync.due(syncedAt: nil, lastAttempt: nil) <= now, "a mirror never synced is due at once")
        #expect(BackgroundSync.due(syncedAt: now.addingTimeInterval(-60), lastAttempt: nil) == now.addingTimeInterval(240))
        #expect(BackgroundSync.due(syncedAt: now.addingTimeInterval(-3600), lastAttempt: now.addingTimeInterval(-10)) == now.addingTimeInterval(290),
                "a failed attempt waits as long as a good one")
    }

    @Test func ticksSyncOnlyWhenDueAndAnAwayServiceNeverHoldsUpAPage() async throws {
        let harness = try await DashboardHarness(days: SampleDays.make())
        let sync = harness.dashboard.sync
        let synced = try #require(harness.context.mirror.syncedAt.flatMap { ISO8601DateFormatter().date(from: $0) })
        #expect(await sync.tick(now: synced.addingTimeInterval(60)) == false, "one minute after a sync nothing happens")
        #expect(sync.status.outcome == .never)
        // New days on the service: the next due tick brings them, and the digest shows them.
        let extra = SampleDays.last.next
        try await harness.upload([(extra, String(decoding: try DayBody(events: [DayEvent(kind: .total, metric: "steps", bucket: .day, unit: "count",
                                                                                           start: extra.startUnixSeconds, end: extra.startUnixSeconds + 86_400,
                                                                                           value: 4321)], timeZone: "Europe/Berlin").bytes, as: UTF8.self))])
        #expect(await sync.tick(now: synced.addingTimeInterval(301)))
        #expect(sync.status.outcome == .synced(fetched: 1))
        #expect(harness.dashboard.digest.snapshot.values(of: "steps", range: try DayRange(since: extra, until: extra)).totals[extra] == 4321)
        let attempt = try #require(sync.status.lastAttempt)
        #expect(await sync.tick(now: attempt.addingTimeInterval(299)) == false)

        // The service goes away: the tick says so, and pages still answer at once from the mirror.
        harness.service.stop()
        #expect(await sync.tick(now: attempt.addingTimeInterval(301)))
        guard case .away = sync.status.outcome else { Issue.record("outcome \(sync.status.outcome)"); return }
        let status = try harness.get("/api/v1/status")
        #expect(status.json?["sync"]?["state"]?.stringValue == "away" && status.json?["mirror"]?["days"]?.integerValue == Int64(SampleDays.count + 1))
        #expect(try harness.get("/api/v1/pages/metric/steps?range=7D&until=\(extra)").status == 200)
    }
}
