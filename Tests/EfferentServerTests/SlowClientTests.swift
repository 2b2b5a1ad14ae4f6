import EfferentTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Slowloris against the real `efferent-server`: 600 connections from ten addresses, each sending
/// its request head one byte a second. It once took every connection the daemon allowed (the
/// idle timeout never fires while bytes keep coming) and a good client got no answer for the
/// whole run. Now a head has a deadline, one address holds at most 32 connections, and a good
/// client is answered throughout; the latencies are printed for the notes.
@Suite(.serialized) struct SlowClientTests {
    @Test func aGoodClientIsAnsweredWhileSixHundredSlowClientsTrickle() throws {
        let data = NSTemporaryDirectory() + "efferent-slow-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: data) }
        let server = try ServerProcess(data: data, arguments: ["--admission", "open", "--rate-limits", "off", "--head-timeout", "3"])
        let swarm = SlowClientSwarm(port: server.port, count: 600, sources: 10)
        defer { swarm.stop() }
        sleep(2)
        var latencies = [Double]()
        var failures = [String]()
        // Long enough for the slow heads to pass their deadline, be closed and come back.
        let until = Date().addingTimeInterval(8)
        while Date() < until {
            let started = Date()
            do {
                let connection = try RawHTTPConnection(port: server.port)
                connection.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                let response = try connection.readResponse()
                if response.status == 200 { latencies.append(Date().timeIntervalSince(started)) } else { failures.append("status \(response.status)") }
            } catch {
                failures.append("\(error)")
            }
            usleep(100_000)
        }
        let reconnects = swarm.reconnects
        swarm.stop()
        server.terminate()
        let sorted = latencies.sorted()
        print("slowloris: \(sorted.count) good requests answered, \(failures.count) not; slowest \(String(format: "%.3f", sorted.last ?? -1)) s, "
              + "median \(String(format: "%.3f", sorted.isEmpty ? -1 : sorted[sorted.count / 2])) s; the slow clients' connections "
              + "were closed and opened again \(reconnects) times")
        #expect(failures.isEmpty, "every good request is answered: \(failures.prefix(3))")
        #expect(sorted.count >= 20)
        #expect(reconnects > 0, "slow heads past their deadline, and connections past an address's 32, are closed")
    }
}
