import EfferentMicroHTTPD

public typealias HTTPDaemonError = MicroHTTPDaemonError

/// A responder served over HTTP/1.1 (or HTTPS) on libmicrohttpd, one thread per connection,
/// with caps on connections, idle time and connections per address.
public final class HTTPDaemon: Sendable {
    public struct Configuration: Sendable {
        public var host: String
        public var port: Int
        public var connectionLimit: Int
        public var idleTimeoutSeconds: Int
        public var connectionsPerAddress: Int
        /// HTTPS with this certificate and key; plain HTTP when nil.
        public var tls: TLSCredentials?

        public init(host: String = "127.0.0.1", port: Int = 8750, connectionLimit: Int = 512, idleTimeoutSeconds: Int = 30,
                    connectionsPerAddress: Int = 64, tls: TLSCredentials? = nil) {
            self.host = host
            self.port = port
            self.connectionLimit = connectionLimit
            self.idleTimeoutSeconds = idleTimeoutSeconds
            self.connectionsPerAddress = connectionsPerAddress
            self.tls = tls
        }
    }

    private let daemon: MicroHTTPDaemon

    public init(configuration: Configuration, responder: any HTTPResponder) throws(HTTPDaemonError) {
        daemon = try MicroHTTPDaemon(configuration: .init(host: configuration.host, port: configuration.port,
                                                          connectionLimit: configuration.connectionLimit,
                                                          idleTimeoutSeconds: configuration.idleTimeoutSeconds,
                                                          connectionsPerAddress: configuration.connectionsPerAddress,
                                                          tlsKey: configuration.tls?.key, tlsCertificate: configuration.tls?.certificate),
                                     handler: ResponderHandler(responder: responder))
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
    func receive(_ chunk: [UInt8]) -> Bool { exchange.receive(chunk) }
    func finish() -> MicroHTTPReply { Self.reply(exchange.finish()) }

    static func reply(_ response: HTTPResponse) -> MicroHTTPReply {
        if let stream = response.stream {
            return MicroHTTPReply(status: response.status, headers: response.headers, body: .stream { try stream.next() })
        }
        return MicroHTTPReply(status: response.status, headers: response.headers, body: .bytes(response.body))
    }
}
