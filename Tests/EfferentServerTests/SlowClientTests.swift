import EfferentTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Slowloris against the real `efferent-server`, each slow connection sending its request head
/// one byte a second. With a thread per connection, 600 of them from 20 addresses once left a
/// good client 8 answers of 31 (issue 33). Now connections cost no thread, an address past its
/// share sheds its slowest heads rather than refusing a newcomer, and a good client is answered:
/// from 2,000 slow connections over 50 addresses, and from the very address of 200 slow ones
/// (a proxy run without --trust-proxy). The figures are printed for the notes.
@Suite(.serialized) struct SlowClientTests {
    static func server() throws -> (ServerProcess, String) {
        let data = NSTemporaryDirectory() + "efferent-slow-" + UUID().uuidString
        return (try ServerProcess(data: data, arguments: ["--admission", "open", "--rate-limits", "off"]), data)
    }

    @Test func aGoodClientIsAnsweredWhileTwoThousandSlowClientsFromFiftyAddressesTrickle() throws {
        let (server, data) = try Self.server()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let swarm = SlowClientSwarm(port: server.port, count: 2000, sources: 50)
        defer { swarm.stop() }
        #expect(swarm.waitUntilOpen(), "every slow connection was accepted")
        let result = GoodClient(port: server.port, target: "/health").ask(30)
        let reconnects = swarm.reconnects
        swarm.stop()
        server.terminate()
        print("slowloris, 2,000 connections from 50 addresses: \(result); slow connections closed and reopened \(reconnects) times")
        #expect(result.answered >= 29, "\(result)")
    }

    @Test func aGoodClientIsAnsweredFromTheAddressOfTwoHundredSlowOnes() throws {
        let (server, data) = try Self.server()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let swarm = SlowClientSwarm(port: server.port, count: 200, sources: 1, firstSource: 9)
        defer { swarm.stop() }
        #expect(swarm.waitUntilOpen(), "every slow connection was accepted, each shedding an older one past the address's 32")
        let result = GoodClient(port: server.port, target: "/health", source: SlowClientSwarm.source(9)).ask(30)
        let reconnects = swarm.reconnects
        swarm.stop()
        server.terminate()
        print("slowloris, 200 connections from one address: the same address's good client: \(result); slow connections shed \(reconnects) times")
        #expect(result.answered >= 29, "\(result)")
        #expect(reconnects > 0, "past the address's 32, its slowest heads are shed")
    }
}
