import EfferentCore
import EfferentTestSupport
import EfferentSystem
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `efferent receive` as a person runs it: pairing, the protocol's corpus over real HTTP to the
/// real process, days sealed and uploaded without a push and read back by a reader's sync, one
/// receiver for two people, and a receiver killed mid-batch that loses nothing it acknowledged.
@Suite(.serialized) struct ReceiveTests {
    static func work() -> String { NSTemporaryDirectory() + "efferent-receive-cli-" + UUID().uuidString }

    @Test func pairingListsAndRevokesPhones() throws {
        let work = Self.work()
        defer { try? FileManager.default.removeItem(atPath: work) }
        let server = try ServerProcess(data: work + "/service", arguments: ["--admission", "open"])
        let writer = CommandRunner(home: work + "/phone")
        #expect(try writer.run(["init", "--server", server.url, "--time-zone", "UTC"]).status == 0)
        let notPaired = try writer.run(["receive", "--listen", "127.0.0.1:0"])
        #expect(notPaired.status == 1 && notPaired.stderr.contains("receive pair --url URL"), "\(notPaired.stderr)")

        let paired = try writer.run(["receive", "pair", "--url", "https://health.example.net/puls/", "--name", "Anna's iPhone"])
        #expect(paired.status == 0, "\(paired.stderr)")
        let lines = paired.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let token = lines.first { $0.hasPrefix("  token    ") }.map { String($0.dropFirst(11)) } ?? ""
        let user = lines.first { $0.hasPrefix("  user ID  ") }.map { String($0.dropFirst(11)) } ?? ""
        #expect(token.count == 43 && UUID(uuidString: user) != nil)
        #expect(lines.contains("  URL      https://health.example.net/puls"), "a trailing slash is dropped")
        #expect(lines.contains("  link     puls://pair?url=https%3A%2F%2Fhealth.example.net%2Fpuls&token=\(token)&user=\(user)"))
        // The QR code: square rows of half blocks (with the 4-module quiet zone), no colours off a terminal.
        let code = lines.filter { $0.contains("▀") || $0.contains("▄") || $0.hasPrefix("████") }
        #expect(code.count >= 15 && Set(code.map(\.count)).count == 1 && !paired.stdout.contains("\u{1B}["), "\(paired.stdout)")
        #expect(!(try String(contentsOfFile: work + "/phone/writer.sqlite", encoding: .isoLatin1)).contains(token), "only the token's hash is kept")

        let second = try writer.run(["receive", "pair", "--url", "https://health.example.net/puls", "--name", "Anna's iPad"])
        #expect(second.stdout.contains("  user ID  \(user)\n"), "one writer, one user ID")
        let other = try writer.run(["receive", "pair", "--url", "https://h.example", "--user", "5ea4d000-0000-4000-8000-000000000001"])
        #expect(other.status == 1 && other.stderr.contains(user), "\(other.stderr)")
        let list = try writer.run(["receive", "list"])
        #expect(list.stdout.hasPrefix("#1  Anna's iPhone  paired ") && list.stdout.contains("#2  Anna's iPad"), "\(list.stdout)")
        #expect(try writer.run(["receive", "revoke", "2"]).stdout.contains("phone 2 can no longer send"))
        #expect(try writer.run(["receive", "list"]).stdout.contains("revoked"))
        #expect(try writer.run(["receive", "revoke", "2"]).status == 1, "once only")

        for (arguments, says) in [(["receive", "pair"], "--url"), (["receive", "revoke"], "number"), (["receive", "--url", "https://x.example"], "receive pair"),
                                  (["receive", "pair", "--url", "ftp://x"], "https://"), (["receive", "unpair"], "not a verb"),
                                  (["receive", "--listen", "nowhere"], "ADDRESS:PORT")] {
            let refused = try writer.run(arguments)
            #expect(refused.status == 64 && refused.stderr.contains(says), "\(arguments): \(refused.stderr)")
        }
        let help = try writer.run(["receive", "--help"])
        #expect(help.status == 0 && help.stdout.contains("efferent receive pair --url URL") && help.stdout.contains("--debounce SECONDS"))
    }

    /// The corpus over real HTTP to the real process: the expected counts, a replay adding
    /// nothing; the days sealed and uploaded by the receiver itself; a reader's sync sees them;
    /// `efferent status` shows the phone; the log names no token and no value.
    @Test func theCorpusThroughARealReceiverReachesAReader() async throws {
        let work = Self.work()
        defer { try? FileManager.default.removeItem(atPath: work) }
        let server = try ServerProcess(data: work + "/service", arguments: ["--admission", "open"])
        let writer = try PairedWriter(home: work + "/phone", server: server, zone: "America/Los_Angeles")
        let receiver = try RunningReceiver(home: work + "/phone")
        let phone = PulsPhone(port: receiver.port, token: writer.token, user: writer.user)
        #expect(try phone.get("/v1/capabilities").status == 200)
        for fixture in PulsFixtures.all {
            let answer = try phone.post(fixture.ndjson)
            #expect(answer.status == 200 && PulsFixtures.counts(answer) == fixture.counts, "\(fixture.name): \(answer.body)")
        }
        for fixture in PulsFixtures.all {
            let answer = try phone.post(fixture.ndjson)
            #expect(answer.status == 200 && answer.count("accepted") == 0, "\(fixture.name): \(answer.body)")
        }
        let stats = try phone.get("/v1/stats")
        #expect(stats.body.contains("\"type\":\"HKQuantityTypeIdentifierHeartRate\",\"rows\":2,"), "\(stats.body)")

        // No one runs push: the receiver seals and uploads once the batches stop.
        var status = ""
        for _ in 0..<600 {
            status = try writer.runner.run(["status"]).stdout
            if status.contains("pending  0 days") && status.contains("uploaded 2") { break }
            usleep(50_000)
        }
        #expect(status.contains("pending  0 days"), "\(status)")
        #expect(status.contains("phone    #1 Anna's iPhone: last batch 20") && status.contains("today 16 batches, 9 samples; no error"), "\(status)")

        let handoff = work + "/handoff.txt"
        try writer.runner.run(["handoff"]).stdout.write(toFile: handoff, atomically: true, encoding: .utf8)
        try? FileMode.set(0o600, on: handoff)
        let reader = CommandRunner(home: work + "/laptop")
        #expect(try reader.run(["connect", "--handoff", handoff]).status == 0)
        #expect(try reader.run(["sync"]).status == 0)
        let samples = try reader.run(["samples", "--metric", "heartRate", "--since", "2024-06-09", "--until", "2024-06-10", "--format", "json", "--offline"])
        let json = try JSONParser.parse(samples.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        // 01 stored three samples, 04 one more, 05 deleted one; 02's series added two readings.
        #expect(json["matched"]?.integerValue == 4, "\(samples.stdout) \(samples.stderr)")
        let sleep = try reader.run(["sleep", "--since", "2024-06-08", "--until", "2024-06-10", "--format", "json", "--offline"])
        #expect(sleep.stdout.contains("asleepCore") || sleep.stdout.contains("\"core\""), "\(sleep.stdout)")

        #expect(receiver.terminate() == 0)
        let log = receiver.log
        #expect(log.contains("\"listening\":\"http://127.0.0.1:\(receiver.port)\"") && log.contains("only this machine can reach"))
        #expect(log.contains("\"batch\":{\"status\":200") && log.contains("\"sealed\":{\"sent\":") && log.contains("\"stopped\":true"))
        #expect(!log.contains(writer.token) && !log.contains("62.5") && !log.contains("Apple Watch") && !log.contains("Ibuprofen"))
    }

    /// A writer `init` left without a zone takes the zone the phone's first batch names, as an
    /// import's records would pin it (decision A.4); a later batch naming another zone warns.
    @Test func thePhonesZonePinsAnUnpinnedArchive() throws {
        let work = Self.work()
        defer { try? FileManager.default.removeItem(atPath: work) }
        let server = try ServerProcess(data: work + "/service", arguments: ["--admission", "open"])
        let writer = CommandRunner(home: work + "/phone")
        #expect(try writer.run(["init", "--server", server.url]).status == 0)
        let paired = try writer.run(["receive", "pair", "--url", "https://health.example.net/puls"]).stdout
        let token = paired.split(separator: "\n").first { $0.hasPrefix("  token    ") }.map { String($0.dropFirst(11)) } ?? ""
        let receiver = try RunningReceiver(home: work + "/phone")
        let phone = PulsPhone(port: receiver.port, token: token, user: nil)
        // Fixture 01's header names America/Los_Angeles.
        #expect(try phone.post(PulsFixtures.all[0].ndjson).status == 200)
        #expect(receiver.terminate() == 0)
        #expect(try writer.run(["status"]).stdout.contains("zone     America/Los_Angeles"))
    }

    /// One receiver for two people: each token is bound to its own writer and user ID.
    @Test func oneReceiverServesTwoPeople() throws {
        let work = Self.work()
        defer { try? FileManager.default.removeItem(atPath: work) }
        // Two writers claim and register from one address: the service's claim limit would hold the second back.
        let server = try ServerProcess(data: work + "/service", arguments: ["--admission", "open", "--rate-limits", "off"])
        let anna = try PairedWriter(home: work + "/anna", server: server)
        let ben = try PairedWriter(home: work + "/ben", server: server, name: "Ben's iPhone")
        #expect(anna.user != ben.user)
        let receiver = try RunningReceiver(home: work + "/anna", arguments: ["--profile", work + "/anna", "--profile", work + "/ben"])
        let batch = PulsFixtures.all[0].ndjson
        #expect(try PulsPhone(port: receiver.port, token: anna.token, user: ben.user).post(batch).status == 403)
        #expect(try PulsPhone(port: receiver.port, token: anna.token, user: anna.user).post(batch).count("accepted") == 3)
        #expect(try PulsPhone(port: receiver.port, token: ben.token, user: ben.user).post(batch).count("accepted") == 3, "Ben's own archive")
        #expect(try PulsPhone(port: receiver.port, token: ben.token, user: nil).post(batch).count("duplicates") == 3)
        #expect(receiver.terminate() == 0)
    }

    /// SIGKILL while a batch is arriving, and again right after one was sent whole: after a
    /// restart every acknowledged batch is there, and each interrupted batch, sent again, lands
    /// exactly once.
    @Test func aKilledReceiverLosesNoAcknowledgedBatch() throws {
        let work = Self.work()
        defer { try? FileManager.default.removeItem(atPath: work) }
        let server = try ServerProcess(data: work + "/service", arguments: ["--admission", "open"])
        let writer = try PairedWriter(home: work + "/phone", server: server)
        let stream = BackfillStream(seed: 7, first: CalendarDay("2024-06-01")!.startUnixSeconds, days: 2)
        let batches = stream.batches(size: 20, seed: 8)["HKQuantityTypeIdentifierStepCount"] ?? []
        #expect(batches.count >= 5)
        var receiver = try RunningReceiver(home: work + "/phone")
        var acknowledged = 0
        for batch in batches.dropLast(2) {
            let answer = try PulsPhone(port: receiver.port, token: writer.token, user: writer.user).post(batch.text)
            #expect(answer.status == 200)
            acknowledged += answer.count("accepted")
        }
        let port = receiver.port
        // Mid-body: half the batch is on the wire when the process dies.
        let cut = batches[batches.count - 2]
        let body = try gzipped(Array(cut.text.utf8))
        let connection = try RawHTTPConnection(port: port)
        connection.send("POST /v1/batches HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(writer.token)\r\nContent-Encoding: gzip\r\n"
                        + "Content-Length: \(body.count)\r\n\r\n")
        connection.send(Array(body.prefix(body.count / 2)))
        receiver.kill()
        receiver = try RunningReceiver(home: work + "/phone", port: port)
        let phone = PulsPhone(port: port, token: writer.token, user: writer.user)
        #expect(try phone.post(cut.text).count("accepted") == cut.samples, "nothing of the cut batch was kept")
        // Whole: the batch is sent and the process dies before (or while) it answers.
        let last = batches[batches.count - 1]
        let whole = try gzipped(Array(last.text.utf8))
        let late = try RawHTTPConnection(port: port)
        late.send(Array(("POST /v1/batches HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(writer.token)\r\nContent-Encoding: gzip\r\n"
                         + "Content-Length: \(whole.count)\r\n\r\n").utf8) + whole)
        receiver.kill()
        receiver = try RunningReceiver(home: work + "/phone", port: port)
        let retried = try phone.post(last.text)
        #expect(retried.status == 200 && retried.count("accepted") + retried.count("duplicates") == last.samples)
        let stats = try phone.get("/v1/stats")
        let rows = try JSONParser.parse(stats.body).arrayValue?.first?["rows"]?.integerValue
        #expect(rows.map(Int.init) == acknowledged + cut.samples + last.samples, "\(stats.body)")
        #expect(receiver.terminate() == 0)
    }
}
