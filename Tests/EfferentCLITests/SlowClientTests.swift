import EfferentTestSupport
import Foundation
import Testing

/// Slowloris against `efferent receive` as a person runs it: 2,000 connections from 50 loopback
/// addresses, and 200 from the phone's own address (a proxy run without --trust-proxy), each
/// sending a request head a byte a second. With a thread per connection the phone got 3 batches
/// through of 30 (issue 33); now its requests are answered.
@Suite(.serialized) struct SlowClientTests {
    @Test func thePhoneIsAnsweredWhileSlowClientsTrickle() throws {
        let work = NSTemporaryDirectory() + "efferent-slow-receive-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: work) }
        let server = try ServerProcess(data: work + "/service", arguments: ["--admission", "open"])
        let writer = try PairedWriter(home: work + "/phone", server: server)
        let receiver = try RunningReceiver(home: work + "/phone")
        let phone = ["Authorization": "Bearer \(writer.token)"]

        let many = SlowClientSwarm(port: receiver.port, count: 2000, sources: 50)
        #expect(many.waitUntilOpen(), "every slow connection was accepted")
        let fromMany = GoodClient(port: receiver.port, target: "/v1/stats", headers: phone).ask(30)
        many.stop()
        print("slowloris against efferent receive, 2,000 connections from 50 addresses: \(fromMany)")
        #expect(fromMany.answered >= 29, "\(fromMany)")

        let proxy = SlowClientSwarm(port: receiver.port, count: 200, sources: 1, firstSource: 9)
        #expect(proxy.waitUntilOpen(), "every slow connection was accepted, each shedding an older one past the address's 32")
        let fromProxy = GoodClient(port: receiver.port, target: "/v1/stats", source: SlowClientSwarm.source(9), headers: phone).ask(30)
        let shed = proxy.reconnects
        proxy.stop()
        print("slowloris against efferent receive, 200 connections from the phone's address: \(fromProxy); shed \(shed) times")
        #expect(fromProxy.answered >= 29, "\(fromProxy)")
        #expect(receiver.terminate() == 0)
    }
}
