import EfferentHTTP
import EfferentCore
@testable import EfferentServer
import EfferentTestSupport
import EfferentServiceTestSupport
import EfferentSystem
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Which store backs a test's service, and how the test reaches it: straight into
/// `respond(to:)`, or through the real daemon on loopback. The route suite runs over every one, so
/// each answer is checked on the wire too, and on both stores. The PostgreSQL kinds run where
/// `scripts/test` has started its throwaway cluster (`EFFERENT_TEST_POSTGRES_URL`); elsewhere each
/// shows as skipped, with the reason, where it would have run.
enum ServiceKind: String, CustomStringConvertible, Sendable {
    case inProcess, loopback, postgresInProcess, postgresLoopback

    var description: String {
        switch self {
        case .inProcess: "SQLite, in process"
        case .loopback: "SQLite, loopback"
        case .postgresInProcess: "PostgreSQL, in process"
        case .postgresLoopback: "PostgreSQL, loopback"
        }
    }

    var usesPostgres: Bool { self == .postgresInProcess || self == .postgresLoopback }
    var overLoopback: Bool { self == .loopback || self == .postgresLoopback }

    /// Every kind; the PostgreSQL ones skip visibly where no cluster runs.
    static let allCases: [ServiceKind] = [.inProcess, .loopback, .postgresInProcess, .postgresLoopback]

    /// One kind per store, over loopback: for tests about the daemon and concurrency.
    static var loopbackCases: [ServiceKind] { allCases.filter(\.overLoopback) }
    /// One kind per store, in process.
    static var inProcessCases: [ServiceKind] { allCases.filter { !$0.overLoopback } }
}

/// A service on a fresh store (a new SQLite file, or a new PostgreSQL schema), reachable by the
/// chosen transport: the shared `RunningService` with the route suite's clock and kinds.
final class TestService: Sendable {
    let running: RunningService
    let kind: ServiceKind
    let database: PostgresTestDatabase?
    var directory: String { running.directory }
    var store: any ArchiveStore { running.store }
    var service: ArchiveService { running.service }
    var daemon: HTTPDaemon? { running.daemon }
    var logLines: LogLines { running.log }
    /// The service's clock, in seconds.
    var clockSeconds: Double { clockBox.now.timeIntervalSince1970 }

    init(_ kind: ServiceKind, admission: ServiceConfiguration.Admission = .open, quota: Quota = Quota(),
         rateLimits: RateLimits? = nil, clock: Double = Date().timeIntervalSince1970) throws {
        database = kind.usesPostgres ? try PostgresTestDatabase.forThisCase() : nil
        let box = ClockBox(clock)
        clockBox = box
        self.kind = kind
        // The route suite sends up to 80 requests at once from one address: past the production
        // default of 32 connections an address (SlowClientTests covers that cap).
        running = try RunningService(postgres: database, loopback: kind.overLoopback, admission: admission, quota: quota,
                                     rateLimits: rateLimits, clock: { box.now }, connectionsPerAddress: 256)
    }

    private let clockBox: ClockBox

    func advanceClock(by seconds: Double) {
        clockBox.advance(by: seconds)
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let daemon else { return service.respond(to: request) }
        return try await Loopback.send(request, port: daemon.port)
    }
}

final class ClockBox: Sendable {
    private let seconds: Mutex<Double>
    init(_ seconds: Double) { self.seconds = Mutex(seconds) }
    var now: Date { Date(timeIntervalSince1970: seconds.withLock { $0 }) }
    func set(_ value: Double) { seconds.withLock { $0 = value } }
    func advance(by delta: Double) { seconds.withLock { $0 += delta } }
}

/// Sends an `HTTPRequest` to a daemon on loopback with URLSession, target untouched.
enum Loopback {
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 64
        configuration.timeoutIntervalForRequest = 30
        return URLSession(configuration: configuration)
    }()

    static func send(_ request: HTTPRequest, port: Int) async throws -> HTTPResponse {
        var urlRequest = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(request.target)")!)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if !request.body.isEmpty || request.method == "PUT" || request.method == "POST" {
            urlRequest.httpBody = Data(request.body)
            if request.header("content-type") == nil { urlRequest.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type") }
        }
        let (data, response) = try await session.data(for: urlRequest)
        let http = response as! HTTPURLResponse
        let headers = http.allHeaderFields.map { (String(describing: $0.key), String(describing: $0.value)) }
        return HTTPResponse(status: http.statusCode, headers: headers, body: Array(data))
    }
}
