import EfferentTestSupport
import Foundation
import Testing

/// Slowloris against the dashboard as `efferent dashboard` serves it (the same DashboardServer):
/// 2,000 connections from 50 loopback addresses each send a request head a byte a second, and a
/// page asked for at once is still answered (issue 33).
@Suite(.serialized) struct SlowClientTests {
    @Test func aPageIsAnsweredWhileTwoThousandSlowClientsFromFiftyAddressesTrickle() async throws {
        let harness = try await DashboardHarness(days: SampleDays.make())
        let port = harness.port
        let swarm = SlowClientSwarm(port: port, count: 2000, sources: 50)
        defer { swarm.stop() }
        #expect(swarm.waitUntilOpen(), "every slow connection was accepted")
        let result = GoodClient(port: port, target: "/api/v1/pages/catalogue", host: harness.host,
                                headers: ["Cookie": "efferent_dashboard_\(port)=\(DashboardHarness.token)"]).ask(30)
        swarm.stop()
        print("slowloris against the dashboard, 2,000 connections from 50 addresses: \(result)")
        #expect(result.answered >= 29, "\(result)")
    }
}
