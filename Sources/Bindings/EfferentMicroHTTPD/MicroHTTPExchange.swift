/// What the daemon knows when a request's head has arrived and its body has not.
public struct MicroHTTPHead: Sendable {
    public let method: String
    /// The request target exactly as the client sent it (path and query, not decoded).
    public let target: String
    /// `HTTP/1.1`, `HTTP/1.0`.
    public let version: String
    /// Header names in lower case; a repeated header's values joined with ", " (RFC 9110 §5.3).
    public let headers: [String: String]
    /// The peer's numeric address.
    public let clientAddress: String
}

/// An answer for the daemon to send: a status, headers, and a body held in memory or pulled in
/// pieces while it goes out (chunked transfer coding, so no length is needed up front).
public struct MicroHTTPReply: Sendable {
    public enum Body: Sendable {
        case bytes([UInt8])
        /// Called on a worker thread, a few pieces ahead of the socket, until it returns nil (the
        /// end) or throws (the connection is closed, since the status has long gone out).
        case stream(@Sendable () throws -> [UInt8]?)
    }

    public var status: Int
    public var headers: [(String, String)]
    public var body: Body

    public init(status: Int, headers: [(String, String)], body: Body) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// One request as the daemon drives it: asked for an early answer once the head is in (on a poll
/// thread, so it must not wait), handed the body as it arrives, then asked for the answer (on a
/// worker thread, where it may block). Never used by two threads at once.
public protocol MicroHTTPExchange: AnyObject {
    /// An answer to send without reading the body (a refusal), or nil to read it.
    func earlyReply() -> MicroHTTPReply?
    /// Whether `receive` may do real work (inflate, parse, write): then each piece is handed to
    /// it on a worker thread, otherwise on the poll thread.
    var receiveMayBlock: Bool { get }
    /// The next bytes of the body. Returns false once no more are wanted: the rest is read from
    /// the socket and dropped (libmicrohttpd cannot answer in the middle of an upload).
    func receive(_ chunk: [UInt8]) -> Bool
    /// The body has ended (or was dropped): the answer.
    func finish() -> MicroHTTPReply
}

extension MicroHTTPExchange {
    public var receiveMayBlock: Bool { true }
}

/// What serves a daemon's requests: one exchange per request.
public protocol MicroHTTPHandler: Sendable {
    func begin(_ head: MicroHTTPHead) -> any MicroHTTPExchange
}
