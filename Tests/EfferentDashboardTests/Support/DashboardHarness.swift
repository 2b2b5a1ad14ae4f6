import EfferentClient
import EfferentCompression
import EfferentCore
@testable import EfferentDashboard
import EfferentHTTP
import EfferentReader
import EfferentServer
import EfferentTestSupport
import EfferentServiceTestSupport
import EfferentSystem
import Foundation

/// How a test reaches the dashboard: straight into its router, or over loopback with the exact
/// bytes of a request (its own Host header included).
enum Transport: String, CaseIterable, CustomStringConvertible, Sendable {
    case inProcess, loopback
    var description: String { rawValue }
}

/// What a test reads of an answer, the same whichever way it came.
struct Answer {
    let status: Int
    let headers: [String: String]
    let body: String

    var json: JSONValue? { try? JSONParser.parse(Array(body.utf8)) }
    var error: String? { json?["error"]?.stringValue }
}

/// A real archive service on loopback holding `days`, a reader profile synced from it, and a
/// dashboard serving that reader on a loopback port with a known token.
final class DashboardHarness: Sendable {
    static let token = "test-token-0123456789abcdefghijklmnopqrstu"
    let directory = NSTemporaryDirectory() + "efferent-dashboard-" + UUID().uuidString
    let service: RunningService
    let reading = ReadingKey()
    let writer = Ed25519PrivateKey()
    let client: ArchiveClient
    let profile: Profile
    let context: ReaderContext
    let server: DashboardServer

    init(days: [(CalendarDay, String)]) async throws {
        service = try RunningService(directory: directory + "/service")
        let endpoint = service.endpoint
        client = try await service.claimArchive(reading: reading, writer: writer)
        profile = Profile(directory: directory + "/reader")
        try profile.prepare()
        try profile.write(KeyFile.readingName, KeyFile.encode(reading))
        try profile.save(ProfileSettings(endpoint: endpoint, bucket: reading.bucket, timeZone: "Europe/Berlin", hourlyFrom: nil, role: "reader"))
        context = try ReaderContext(profile: profile, retry: .immediate)
        server = try DashboardServer(context: context, host: "127.0.0.1", port: 0, token: Self.token)
        try await upload(days)
        _ = try await context.sync()
    }

    deinit {
        server.stop(grace: 0)
        service.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    var dashboard: Dashboard { server.dashboard }
    var port: Int { server.port }
    var host: String { "127.0.0.1:\(port)" }

    /// Seals bodies (raw deflate, HPKE v2, the day's AAD) and uploads them a month at a time.
    func upload(_ bodies: [(CalendarDay, String)]) async throws {
        let deflater = try Deflater()
        let sealed = try bodies.map { day, text in
            Frame.Day(day: day, sealed: try SealedEnvelope.seal(try deflater.compress(Array(text.utf8)), to: reading.publicKey,
                                                                aad: .day(bucket: reading.bucket.rawValue, day: day)))
        }
        for start in stride(from: 0, to: sealed.count, by: 31) {
            _ = try await client.upload(Array(sealed[start..<min(start + 31, sealed.count)]), writer: writer)
        }
    }

    /// A request as a browser holding the token sends it; `headers` adds or replaces.
    func get(_ target: String, over transport: Transport = .inProcess, token: Bool = true, headers: [String: String] = [:],
             method: String = "GET") throws -> Answer {
        var all = ["Host": host]
        if token { all["Authorization"] = "Bearer \(Self.token)" }
        for (name, value) in headers { all[name] = value }
        return try send(method: method, target: target, headers: all.filter { !$0.value.isEmpty }, over: transport)
    }

    func send(method: String, target: String, headers: [String: String], over transport: Transport) throws -> Answer {
        switch transport {
        case .inProcess:
            let response = dashboard.responder().respond(to: HTTPRequest(method: method, target: target, headers: headers))
            return Answer(status: response.status, headers: Dictionary(response.headers.map { ($0.0.lowercased(), $0.1) }, uniquingKeysWith: { a, _ in a }),
                          body: String(decoding: try response.collectedBody(), as: UTF8.self))
        case .loopback:
            var head = "\(method) \(target) HTTP/1.1\r\nConnection: close\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            return try raw(head + "\r\n", bodiless: method == "HEAD")
        }
    }

    /// Exact bytes over loopback, one answer read (to the close when it is chunked).
    func raw(_ text: String, bodiless: Bool = false) throws -> Answer {
        let connection = try RawHTTPConnection(port: port)
        connection.send(text)
        let response = try connection.readResponse(bodiless: bodiless)
        let body = response.headers["transfer-encoding"] == "chunked" ? RawHTTPConnection.dechunked(response.body) : response.body
        return Answer(status: response.status, headers: response.headers, body: body)
    }
}
