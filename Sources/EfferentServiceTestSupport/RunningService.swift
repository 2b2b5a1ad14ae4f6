import EfferentClient
import EfferentCore
import EfferentHTTP
import EfferentServer
import EfferentSystem
import EfferentTestSupport
import Foundation

/// A real archive service for a test, the one every suite starts: a fresh store — an SQLite file in
/// a folder of its own, or a schema of its own in the throwaway PostgreSQL cluster — behind a real
/// libmicrohttpd daemon bound to port 0 on loopback (or no daemon, for tests that call
/// `respond(to:)` straight). Its log lines are kept in `log`.
///
/// `stop()` (and the deinit) stops the daemon, which returns once its threads have ended, and only
/// then removes the folder: nothing is still writing into a folder being deleted.
public final class RunningService: Sendable {
    public let directory: String
    public let store: any ArchiveStore
    public let service: ArchiveService
    /// Nil when started with `loopback: false`.
    public let daemon: HTTPDaemon?
    public let log = LogLines()
    private let stopped = Mutex(false)

    /// - Parameters:
    ///   - directory: the folder the SQLite store is made in (a new one under the temporary folder
    ///     when nil); removed when the service stops.
    ///   - postgres: a database to store into instead of SQLite.
    ///   - loopback: serve on a daemon (port 0 on 127.0.0.1), or only in process.
    ///   - connectionsPerAddress: the daemon's cap per client address (the production default is 32).
    public init(directory: String? = nil, postgres: PostgresTestDatabase? = nil, loopback: Bool = true,
                admission: ServiceConfiguration.Admission = .open, quota: Quota = Quota(), rateLimits: RateLimits? = nil,
                clock: @escaping @Sendable () -> Date = { Date() }, connectionsPerAddress: Int = 32) throws {
        let directory = directory ?? NSTemporaryDirectory() + "efferent-service-" + UUID().uuidString
        self.directory = directory
        if let postgres {
            store = try PostgresArchiveStore(url: postgres.url, connections: 8)
        } else {
            store = try SQLiteArchiveStore(directory: directory)
        }
        let lines = log
        service = ArchiveService(store: store, configuration: ServiceConfiguration(
            admission: admission, quota: quota, rateLimits: rateLimits, clock: clock, log: { lines.append($0) }))
        daemon = loopback ? try HTTPDaemon(configuration: .init(port: 0, connectionsPerAddress: connectionsPerAddress), responder: service) : nil
    }

    /// The daemon's port; a service started with `loopback: false` has none, and asking is a test's mistake.
    public var port: Int {
        guard let daemon else { preconditionFailure("this service was started in process only (loopback: false)") }
        return daemon.port
    }

    /// The SQLite store, for a test that reaches into its tables; one on PostgreSQL has none.
    public var sqlite: SQLiteArchiveStore {
        guard let store = store as? SQLiteArchiveStore else { preconditionFailure("this service stores into PostgreSQL") }
        return store
    }

    /// Where a client reaches it.
    public var endpoint: String { "http://127.0.0.1:\(port)" }

    /// A client of a new archive on this service, claimed by `writer` with `reading` (and `editor`,
    /// when given) registered, as `efferent init` leaves it.
    public func claimArchive(reading: ReadingKey, writer: Ed25519PrivateKey, editor: EditorKey? = nil,
                             clock: ServiceClock = ServiceClock()) async throws -> ArchiveClient {
        let client = ArchiveClient(endpoint: endpoint, bucket: reading.bucket, clock: clock, retry: .immediate)
        try await client.claim(writer: writer, invite: nil)
        try await client.register(.reader, key: reading.readKey.publicKey, writer: writer)
        if let editor { try await client.register(.editor, key: editor.publicKey, writer: writer) }
        return client
    }

    /// Stops the daemon (returning once its threads have ended), then removes the folder. Once.
    public func stop() {
        guard stopped.withLock({ was in defer { was = true }; return !was }) else { return }
        daemon?.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    deinit { stop() }
}
