import Foundation

/// What is known of a request when its head has arrived and its body has not: enough to refuse
/// early (an unknown path, a declared length over the route's ceiling, a bad token) without
/// reading a byte of the body.
public struct HTTPRequestHead: Sendable {
    public let method: String
    /// The request target exactly as sent (path and query, not decoded).
    public let target: String
    /// `HTTP/1.1` or `HTTP/1.0` from the wire; nil for a request made in process.
    public let version: String?
    /// Header names in lower case.
    public let headers: [String: String]
    /// The peer's numeric address.
    public let clientAddress: String

    public init(method: String, target: String, version: String?, headers: [String: String], clientAddress: String) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.clientAddress = clientAddress
    }

    public var path: Substring { Self.path(of: target) }

    public func header(_ name: String) -> String? { headers[name] }

    /// The client's address: the peer, or when the server stands behind a proxy it trusts, the
    /// last `X-Forwarded-For` entry (the one that proxy appended; earlier ones the client wrote).
    public func client(trustingProxy: Bool) -> String {
        if trustingProxy, let forwarded = headers["x-forwarded-for"],
           let last = forwarded.split(separator: ",").last?.trimmingCharacters(in: .whitespaces), !last.isEmpty {
            return last
        }
        return clientAddress
    }

    static func path(of target: String) -> Substring {
        target.firstIndex(of: "?").map { target[..<$0] } ?? target[...]
    }
}
