/// An HTTP request as the service sees it, after libmicrohttpd has read it.
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
    public var path: Substring {
        target.firstIndex(of: "?").map { target[..<$0] } ?? target[...]
    }

    /// The raw query, after the first `?` (empty when there is none).
    public var query: Substring {
        target.firstIndex(of: "?").map { target[target.index(after: $0)...] } ?? ""
    }

    /// A header by its lower-case name.
    public func header(_ name: String) -> String? { headers[name] }
}

/// An HTTP response the service hands back to libmicrohttpd.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
}

/// What the daemon has learnt when a request's head has arrived and its body has not: enough to
/// refuse early (a declared length over the limit, an unknown path) without reading the body.
public struct HTTPRequestHead: Sendable {
    public let method: String
    public let target: String
    public let headers: [String: String]
    public let clientAddress: String
}
