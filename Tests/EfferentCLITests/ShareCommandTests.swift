import EfferentCore
import EfferentSystem
import EfferentTestSupport
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `efferent share` through the real binaries against a real efferent-server (issue 42): a link
/// made, opened as a receiving application would, listed, revoked; a long-term link sealed again
/// by `sync` when a day changes; bad input refused with a sentence. (That the service's folder holds
/// nothing of a share in the clear is WholeLoopTests' canary, beside the archive's.)
@Suite(.serialized) struct ShareCommandTests {
    /// POSTs the manifest (IG, "SMART Health Link Manifest Request") and decrypts its first file.
    static func open(_ link: SHLink, passcode: String? = nil) throws -> (status: Int, body: JSONValue) {
        var members: [String: JSONValue] = ["recipient": .string("CLI test")]
        if let passcode { members["passcode"] = .string(passcode) }
        var request = URLRequest(url: URL(string: link.url)!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(try JSONValue.object(members).canonicalBytes())
        let done = DispatchSemaphore(value: 0)
        let result = Answer()
        URLSession.shared.dataTask(with: request) { data, response, _ in
            result.value.withLock { $0 = ((response as? HTTPURLResponse)?.statusCode ?? 0, data ?? Data()) }
            done.signal()
        }.resume()
        done.wait()
        let (status, data) = result.value.withLock { $0 }
        let manifest = try JSONParser.parse(Array(data))
        guard status == 200, let compact = manifest["files"]?.arrayValue?.first?["embedded"]?.stringValue else { return (status, manifest) }
        return (status, try JSONParser.parse(try JWE.open(compact, key: link.key).plaintext))
    }

    final class Answer: Sendable {
        let value = Mutex<(Int, Data)>((0, Data()))
    }

    static func lines(_ text: String, _ prefix: String) -> String? {
        text.split(separator: "\n").first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }

    @Test func aLinkIsMadeOpenedListedAndRevoked() throws {
        let work = NSTemporaryDirectory() + "efferent-share-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: work) }
        let (_, reader, service) = try CommandRunner.syncedReader(work)
        defer { withExtendedLifetime(service) {} }
        let made = try reader.run(["share", "--since", "2023-12-30", "--until", "2024-01-03", "--label", "Canary label", "--name", "Canary Patient",
                                   "--passcode", "canary-pass-42", "--expires", "7d"])
        #expect(made.status == 0, "\(made.stderr)")
        let text = try #require(Self.lines(made.stdout, "link    "))
        let viewer = try #require(Self.lines(made.stdout, "viewer  "))
        #expect(viewer.hasPrefix(service.url + "/share#shlink:/") && viewer.hasSuffix(text))
        #expect(made.stdout.contains("█"), "the QR code is drawn")
        #expect(made.stdout.contains("expires ") && made.stdout.contains("the recipient needs the passcode"))
        #expect(made.stderr.contains("only this machine reaches"), "a loopback address is said to be one: \(made.stderr)")
        let link = try SHLink(parsing: text)
        #expect(link.flags == [.passcode] && link.label == "Canary label")
        #expect(try Self.open(link).status == 401)
        let opened = try Self.open(link, passcode: "canary-pass-42")
        #expect(opened.status == 200 && opened.body["type"]?.stringValue == "document", "\(opened.body)")
        #expect(opened.body["entry"]?.arrayValue?.first?["resource"]?["title"]?.stringValue == "Canary label")

        let listed = try reader.run(["share", "list"])
        #expect(listed.status == 0 && listed.stdout.contains("active  Canary label") && listed.stdout.contains("by \"CLI test\""), "\(listed.stdout)")
        #expect(listed.stdout.contains("passcode, 0 wrong tries"), "the right passcode after none counts nothing: \(listed.stdout)")
        let id = try #require(link.linkID)
        let revoked = try reader.run(["share", "revoke", "--", String(id.rawValue.prefix(8))])
        #expect(revoked.status == 0 && revoked.stdout.hasPrefix("revoked \(id)"), "\(revoked.stdout) \(revoked.stderr)")
        #expect(try Self.open(link, passcode: "canary-pass-42").status == 404)
        let json = try reader.run(["share", "list", "--json"])
        #expect(try JSONParser.parse(String(json.stdout.split(separator: "\n")[0]))["status"]?.stringValue == "revoked")
        let unknown = try reader.run(["share", "revoke", "zzzzzzzz"])
        #expect(unknown.status == 1 && unknown.stderr.contains("efferent share list shows their ids"), "\(unknown.stderr)")
    }

    /// A long-term link runs through the newest day: `sync` seals it again when the writer's new
    /// day arrives, under the same key, and the manifest says its files may change.
    @Test func aLongTermLinkFollowsNewDays() throws {
        let work = NSTemporaryDirectory() + "efferent-share-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: work) }
        let (writer, reader, service) = try CommandRunner.syncedReader(work)
        defer { withExtendedLifetime(service) {} }
        let made = try reader.run(["share", "--long-term", "--since", "2023-12-30", "--metric", "heartRate", "--no-qr"])
        #expect(made.status == 0, "\(made.stderr)")
        let link = try SHLink(parsing: try #require(Self.lines(made.stdout, "link    ")))
        #expect(link.flags == [.longTerm])
        func readings() throws -> Int {
            let bundle = try Self.open(link).body
            return (bundle["entry"]?.arrayValue ?? []).filter { $0["resource"]?["resourceType"]?.stringValue == "Observation" }.count
        }
        let before = try readings()
        let quiet = try reader.run(["sync"])
        #expect(quiet.status == 0 && !quiet.stdout.contains("sealed long-term link"), "nothing changed: \(quiet.stdout)")
        // The writer records a reading on a new day and pushes it.
        let events = work + "/new.ndjson"
        try #"{"id":"cli:hr:1","v":1,"metric":"heartRate","start":"2024-01-09T10:00:00Z","end":"2024-01-09T10:00:00Z","value":77,"unit":"count/min","source":"Test"}"#
            .write(toFile: events, atomically: true, encoding: .utf8)
        #expect(try writer.run(["import", events]).status == 0)
        #expect(try writer.run(["push"]).status == 0)
        let synced = try reader.run(["sync"])
        #expect(synced.status == 0 && synced.stdout.contains("sealed long-term link") && synced.stdout.contains("version 2"), "\(synced.stdout) \(synced.stderr)")
        #expect(try readings() == before + 1, "the new day's summary is in the link, opened with the key it was made with")
    }

    @Test func badInputIsRefusedWithASentence() throws {
        let runner = CommandRunner(home: NSTemporaryDirectory() + "efferent-none-" + UUID().uuidString)
        for (arguments, words) in [(["share", "--long-term", "--until", "2024-01-01"], "leave out --until"),
                                   (["share", "--expires", "11y"], "--expires takes a duration"),
                                   (["share", "--expires", "4000d"], "at most 3650 days"),
                                   (["share", "--passcode", "123"], "4 to 256 bytes"),
                                   (["share", "--label", String(repeating: "x", count: 81)], "at most 80 characters"),
                                   (["share", "fly"], "share takes list, revoke or refresh"),
                                   (["share", "revoke"], "share revoke takes the link to end"),
                                   (["share", "revoke", "-kf0uIY3"], "an argument that begins with '-' goes after --")] {
            let result = try runner.run(arguments)
            #expect(result.status == 64 && result.stderr.contains(words), "\(arguments): \(result.stderr)")
        }
        let help = try runner.run(["share", "--help"])
        #expect(help.status == 0 && help.stdout.hasPrefix("USAGE: efferent share [ACTION] [LINK] [options]\n") && help.stdout.contains("--passcode TEXT"))
        let noProfile = try runner.run(["share"])
        #expect(noProfile.status == 1 && noProfile.stderr.contains("efferent connect"), "\(noProfile.stderr)")
    }
}
