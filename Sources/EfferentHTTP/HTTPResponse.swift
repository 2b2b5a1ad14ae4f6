/// An HTTP response: a status, headers, and a body — in memory, or produced piece by piece while
/// it goes out (an export with no row limit never sits in memory whole).
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    /// The body; ignored when `stream` is set.
    public var body: [UInt8]
    /// A body produced while it is sent (chunked transfer coding: no length up front).
    public var stream: (any HTTPResponseStream)?

    public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public init(status: Int, headers: [(String, String)] = [], stream: any HTTPResponseStream) {
        self.status = status
        self.headers = headers
        self.body = []
        self.stream = stream
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    /// The whole body, a stream drained: for answers made in process, as tests read them.
    public func collectedBody() throws -> [UInt8] {
        guard let stream else { return body }
        var out = [UInt8]()
        while let piece = try stream.next() { out += piece }
        return out
    }
}

/// A response body produced in pieces, pulled on a worker thread (a few pieces ahead of the
/// socket) until it answers nil.
/// A failure after the first piece can no longer change the status: the connection is closed,
/// so the client sees a cut answer rather than a complete-looking one.
public protocol HTTPResponseStream: AnyObject, Sendable {
    func next() throws -> [UInt8]?
}
