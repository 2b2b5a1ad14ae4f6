import EfferentMicroHTTPD

public typealias HTTPDaemonError = MicroHTTPDaemonError
/// A socket bound and listening before a daemon serves it (bind first, serve second).
public typealias HTTPListener = MicroHTTPListener

/// A responder served over HTTP/1.1 (or HTTPS) on libmicrohttpd: a few epoll threads serve the
/// connections and a bounded pool of workers makes the answers, with caps on connections, idle
/// time and connections per address (past a cap the slowest head is shed, not the newcomer).
public final class HTTPDaemon: Sendable {
    public struct Configuration: Sendable {
        public var host: String
        public var port: Int
        public var connectionLimit: Int
        public var idleTimeoutSeconds: Int
        public var connectionsPerAddress: Int
        /// HTTPS with this certificate and key; plain HTTP when nil.
        public var tls: TLSCredentials?
        /// Seconds a request's whole head may take, however slowly its bytes come (slowloris).
        public var headTimeoutSeconds: Double
        /// The slowest a body may arrive: `bodyGraceSeconds` plus its declared length at this many
        /// bytes a second (a body of unknown length gets 60 s).
        public var minimumBodyBytesPerSecond: Double
        public var bodyGraceSeconds: Double
        /// Threads answering requests at once (a handler may block on the database); more wait.
        public var workers: Int

        /// The connection limit every server starts with: an idle connection costs a descriptor
        /// and a few KiB, no thread, so thousands of slow clients leave room for a good one.
        public static let defaultConnectionLimit = 8192

        /// `connectionsPerAddress` 0 means no cap per address (behind a proxy, cap requests per
        /// client with `Router.Configuration.requestsPerClient` instead).
        public init(host: String = "127.0.0.1", port: Int = 8750, connectionLimit: Int = defaultConnectionLimit, idleTimeoutSeconds: Int = 30,
                    connectionsPerAddress: Int = 32, tls: TLSCredentials? = nil, headTimeoutSeconds: Double = 10,
                    minimumBodyBytesPerSecond: Double = 16 * 1024, bodyGraceSeconds: Double = 10, workers: Int = 32) {
            self.host = host
            self.port = port
            self.connectionLimit = connectionLimit
            self.idleTimeoutSeconds = idleTimeoutSeconds
            self.connectionsPerAddress = connectionsPerAddress
            self.tls = tls
            self.headTimeoutSeconds = headTimeoutSeconds
            self.minimumBodyBytesPerSecond = minimumBodyBytesPerSecond
            self.bodyGraceSeconds = bodyGraceSeconds
            self.workers = workers
        }
    }

    private let daemon: MicroHTTPDaemon

    /// Serves `responder` on `listener` when given (bound already: a server that must know its
    /// port before it can make its responder binds first), else on the configuration's host and port.
    public init(configuration: Configuration, listener: HTTPListener? = nil, responder: any HTTPResponder) throws(HTTPDaemonError) {
        daemon = try MicroHTTPDaemon(configuration: .init(host: configuration.host, port: configuration.port,
                                                          connectionLimit: configuration.connectionLimit,
                                                          idleTimeoutSeconds: configuration.idleTimeoutSeconds,
                                                          connectionsPerAddress: configuration.connectionsPerAddress,
                                                          tlsKey: configuration.tls?.key, tlsCertificate: configuration.tls?.certificate,
                                                          headTimeoutSeconds: configuration.headTimeoutSeconds,
                                                          minimumBodyBytesPerSecond: configuration.minimumBodyBytesPerSecond,
                                                          bodyGraceSeconds: configuration.bodyGraceSeconds,
                                                          workers: configuration.workers),
                                     listener: listener, handler: ResponderHandler(responder: responder))
    }

    /// The port actually bound (the one asked for, or the one the system chose for port 0).
    public var port: Int { daemon.port }
    /// Requests being answered right now.
    public var inFlight: Int { daemon.inFlight }
    /// Stops accepting new connections; requests in flight go on.
    public func quiesce() { daemon.quiesce() }
    /// Stops accepting, lets requests in flight finish (up to `grace` seconds), then stops.
    public func shutDown(grace: Double = 30) { daemon.shutDown(grace: grace) }
    /// Stops at once, closing every connection.
    public func stop() { daemon.stop() }
    /// Connections closed because their head, or their body, passed its deadline.
    public var deadlineClosures: (heads: Int, bodies: Int) { daemon.deadlineClosures }
    /// Connections shed (the slowest heads) to make room past the connection limit or an address's.
    public var shedConnections: Int { daemon.shedConnections }
    /// The connections allowed at once (fewer than asked when the process may not open that many files).
    public var connectionLimit: Int { daemon.connectionLimit }
}

/// The daemon's handler: one `HTTPExchange` per request, its answers turned into replies.
private struct ResponderHandler: MicroHTTPHandler {
    let responder: any HTTPResponder

    func begin(_ head: MicroHTTPHead) -> any MicroHTTPExchange {
        ExchangeReply(responder.exchange(for: HTTPRequestHead(method: head.method, target: head.target, version: head.version,
                                                              headers: head.headers, clientAddress: head.clientAddress)))
    }
}

private final class ExchangeReply: MicroHTTPExchange {
    let exchange: HTTPExchange
    init(_ exchange: HTTPExchange) { self.exchange = exchange }

    func earlyReply() -> MicroHTTPReply? { exchange.earlyResponse.map(Self.reply) }
    var receiveMayBlock: Bool { exchange.receiveMayBlock }
    func receive(_ chunk: [UInt8]) -> Bool { exchange.receive(chunk) }
    func finish() -> MicroHTTPReply { Self.reply(exchange.finish()) }

    static func reply(_ response: HTTPResponse) -> MicroHTTPReply {
        if let stream = response.stream {
            return MicroHTTPReply(status: response.status, headers: response.headers, body: .stream { try stream.next() })
        }
        return MicroHTTPReply(status: response.status, headers: response.headers, body: .bytes(response.body))
    }
}
