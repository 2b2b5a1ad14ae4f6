/// An HTTP request as a handler sees it: the head, and the body once it has been read (decoded
/// from gzip where the route takes that), or empty for a route that streams its body to a sink.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The request target exactly as the client sent it (path and query): what a signed read
    /// signs (protocol §7).
    public var target: String
    public var headers: [String: String]
    public var body: [UInt8]
    /// The peer's numeric address (before any `X-Forwarded-For`).
    public var clientAddress: String

    public init(method: String, target: String, headers: [String: String] = [:], body: [UInt8] = [], clientAddress: String = "127.0.0.1") {
        self.init(method: method, target: target, lowercasedHeaders: Dictionary(headers.map { ($0.key.lowercased(), $0.value) },
                                                                               uniquingKeysWith: { a, _ in a }),
                  body: body, clientAddress: clientAddress)
    }

    /// For the daemon, whose header names are already lower case.
    init(method: String, target: String, lowercasedHeaders: [String: String], body: [UInt8], clientAddress: String) {
        self.method = method
        self.target = target
        self.headers = lowercasedHeaders
        self.body = body
        self.clientAddress = clientAddress
    }

    /// The path, before any `?`.
    public var path: Substring { HTTPRequestHead.path(of: target) }

    /// The raw query, after the first `?` (empty when there is none).
    public var query: Substring {
        target.firstIndex(of: "?").map { target[target.index(after: $0)...] } ?? ""
    }

    /// A header by its lower-case name.
    public func header(_ name: String) -> String? { headers[name] }

    /// The client's address: the peer, or behind a proxy the server trusts, the address that
    /// proxy appended to `X-Forwarded-For`.
    public func client(trustingProxy: Bool) -> String { head.client(trustingProxy: trustingProxy) }

    /// What the daemon knew before the body: a request made in process has no HTTP version.
    var head: HTTPRequestHead {
        HTTPRequestHead(method: method, target: target, version: nil, headers: headers, clientAddress: clientAddress)
    }
}
