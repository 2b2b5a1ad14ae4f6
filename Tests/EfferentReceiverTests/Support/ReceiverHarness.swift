import EfferentClient
import EfferentCore
import EfferentHTTP
@testable import EfferentReceiver
import EfferentServer
import EfferentTestSupport
@testable import EfferentWriter
import EfferentServiceTestSupport
import EfferentSystem
import Foundation

/// A writer profile on disk as `efferent init` leaves it (keys, settings, a claimed archive on a
/// real service on loopback), a phone paired with it, and a receiver serving it: in process for
/// route tests, and on a real libmicrohttpd daemon when asked.
final class ReceiverHarness: Sendable {
    let directory = NSTemporaryDirectory() + "efferent-receive-" + UUID().uuidString
    let service: RunningService
    let profile: Profile
    let reading = ReadingKey()
    let writer = Ed25519PrivateKey()
    let context: WriterContext
    let receiver: Receiver
    let token: String
    let phoneID: Int64
    let user: PulsUUID
    let log = LogLines()
    /// The receiver on a real daemon, once `listen()` started it.
    var daemon: HTTPDaemon? { started.withLock { $0 } }
    private let started = Mutex<HTTPDaemon?>(nil)

    /// `seals`: the receiver seals and uploads after `debounce` seconds (off: only the store is looked at).
    /// `pinned: false`: `init` was given no zone, so the first input naming one pins it.
    /// `beforeReceiving`: done to the paired writer's store before the receiver opens it.
    init(zone: String = "America/Los_Angeles", pinned: Bool = true, seals: Bool = false, debounce: Double = 1, failedAuthentications: Int = 10,
         limits: PulsLimits = PulsLimits(), beforeReceiving: ((SourceStore) throws -> Void)? = nil) async throws {
        service = try RunningService(directory: directory + "/service")
        let endpoint = service.endpoint
        profile = Profile(directory: directory + "/writer")
        try profile.prepare()
        try profile.write(KeyFile.readingName, KeyFile.encode(reading))
        try profile.write(KeyFile.writerName, KeyFile.encodeWriterKey(writer))
        try profile.save(ProfileSettings(endpoint: endpoint, bucket: reading.bucket, timeZone: zone, hourlyFrom: nil, role: "writer",
                                         timeZonePinned: pinned))
        _ = try await service.claimArchive(reading: reading, writer: writer)
        context = try WriterContext(profile: profile, retry: .immediate)
        // As `efferent receive pair` does, before a receiver runs.
        let pairing = try ReceiverStore(store: context.store)
        user = try pairing.phoneUser()
        (phoneID, token) = try pairing.pairPhone(name: "Test iPhone")
        try beforeReceiving?(context.store)
        let lines = log
        let configuration = ReceiverConfiguration(log: { lines.append($0) }, limits: limits, failedAuthenticationsPerMinute: failedAuthentications,
                                                  debounceSeconds: debounce, longestWaitSeconds: 600, checkIntervalSeconds: 3600, seals: seals)
        receiver = try Receiver(profiles: [try ReceiverProfile(context: context, configuration: configuration)], configuration: configuration)
    }

    deinit {
        // Stopped in order on a thread of its own: no more requests, then the sealer (a push under
        // way finishes against the service), then the service, and only then is the folder
        // removed. Not on this thread: a deinit may run on a thread of the cooperative pool, and a
        // push under way may need that very thread to finish (the pool has one per core).
        let (receiver, daemon, service, directory) = (receiver, daemon, service, directory)
        Thread {
            daemon?.stop()
            receiver.stop()
            service.stop()
            try? FileManager.default.removeItem(atPath: directory)
        }.start()
    }

    var store: SourceStore { context.store }
    /// The receiver's own tables and state, as its one profile keeps them.
    var phones: ReceiverStore { receiver.profiles[0].store }

    /// The archive as a reader sees it: a day opened with the reading key, as events.
    func archivedEvents(_ day: CalendarDay) async throws -> [DayEvent]? {
        let client = ArchiveClient(endpoint: service.endpoint, bucket: reading.bucket, retry: .immediate)
        guard let sealed = try await client.sealedDay(day, readKey: reading.readKey) else { return nil }
        let plaintext = try SealedEnvelope.open(sealed, with: reading.privateKey, aad: .day(bucket: reading.bucket.rawValue, day: day))
        guard case let .columnar(columns) = try DayBody.inflate(plaintext).decoded() else { return nil }
        return columns.events
    }

    /// Waits until `condition` holds, for at most `seconds` (a deadline for a test that would
    /// otherwise hang, never a duration the outcome depends on): sealing and uploading take a while.
    func eventually(_ seconds: Double = 60, _ condition: () async throws -> Bool) async throws -> Bool {
        try await EfferentTestSupport.eventually(within: seconds, every: 0.05, condition)
    }

    /// The receiver on a real daemon on loopback (started once), for a phone that posts over HTTP.
    func listen() throws -> Int {
        try started.withLock { started in
            if let daemon = started { return daemon.port }
            let daemon = try HTTPDaemon(configuration: .init(port: 0, connectionsPerAddress: 64), responder: receiver)
            started = daemon
            return daemon.port
        }
    }

    func phone(token: String? = nil, user: String? = nil) throws -> PulsPhone {
        PulsPhone(port: try listen(), token: token ?? self.token, user: user ?? self.user.description)
    }

    /// The app's request for `ndjson`, answered in process: gzip, the app's headers, then `headers`
    /// (a nil value removes a header).
    func post(_ ndjson: String, gzip: Bool = true, headers: [String: String?] = [:]) throws -> Answer {
        var all: [String: String] = ["Authorization": "Bearer \(token)", "Content-Type": "application/x-ndjson", "X-Puls-Protocol": "1",
                                     "X-User-ID": user.description]
        if gzip { all["Content-Encoding"] = "gzip" }
        for (name, value) in headers { all[name] = value }
        let body = gzip ? try gzipped(Array(ndjson.utf8)) : Array(ndjson.utf8)
        return Answer(receiver.respond(to: HTTPRequest(method: "POST", target: "/v1/batches", headers: all, body: body)))
    }

    func get(_ target: String, headers: [String: String?] = [:]) -> Answer {
        var all: [String: String] = ["Authorization": "Bearer \(token)", "X-Puls-Protocol": "1", "X-User-ID": user.description]
        for (name, value) in headers { all[name] = value }
        return Answer(receiver.respond(to: HTTPRequest(method: "GET", target: target, headers: all)))
    }

    /// A response as tests read it.
    struct Answer {
        let status: Int
        let body: String
        let headers: [(String, String)]

        init(_ response: HTTPResponse) {
            status = response.status
            body = String(decoding: (try? response.collectedBody()) ?? [], as: UTF8.self)
            headers = response.headers
        }

        var json: JSONValue? { try? JSONParser.parse(body) }
        var error: String? { json?["error"]?.stringValue }
        func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
        func count(_ name: String) -> Int? { json?[name]?.integerValue.map(Int.init) }

        /// The seven counts of a 2xx body, in the spec's order.
        var counts: [Int] {
            ["accepted", "deleted", "duplicates", "routePoints", "seriesPoints", "aggregateSamples", "activitySummaries"].map { count($0) ?? -1 }
        }
    }
}

/// The Puls Sync Protocol v1 corpus, copied into the repository with its licence (Apache-2.0,
/// Tests/Fixtures/puls-sync-v1/ORIGIN.md): each batch with the answer a conformant receiver gives
/// when the corpus is applied in file-name order to an empty store.
enum PulsCorpus {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/puls-sync-v1")

    struct Fixture {
        let name: String
        let ndjson: String
        let expected: JSONValue

        var status: Int { Int(expected["status"]?.integerValue ?? 0) }
        var counts: [Int] {
            ["accepted", "deleted", "duplicates", "routePoints", "seriesPoints", "aggregateSamples", "activitySummaries"]
                .map { Int(expected["response"]?[$0]?.integerValue ?? -1) }
        }
    }

    static var fixtures: [Fixture] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("fixtures").path)) ?? [])
            .filter { $0.hasSuffix(".ndjson") }.sorted()
        return names.map { name in
            let base = String(name.dropLast(".ndjson".count))
            let ndjson = (try? String(contentsOf: folder.appendingPathComponent("fixtures/\(name)"), encoding: .utf8)) ?? ""
            let expected = (try? JSONParser.parse(Array((try? Data(contentsOf: folder.appendingPathComponent("fixtures/\(base).expected.json"))) ?? Data()))) ?? .null
            return Fixture(name: base, ndjson: ndjson, expected: expected)
        }
    }

    static func schema(_ name: String) throws -> JSONValue {
        try JSONParser.parse(Array(try Data(contentsOf: folder.appendingPathComponent("schema/\(name).schema.json"))))
    }
}
