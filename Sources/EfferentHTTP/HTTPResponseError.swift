import EfferentCore

/// An error that is an answer: it renders its own status and body. Anything a handler throws that
/// is not one becomes a 500 that says nothing private (the router logs what it was).
public protocol HTTPResponseError: Error {
    var status: Int { get }
    var response: HTTPResponse { get }
}

/// The layer's own refusals, `{"error": "<sentence>"}` with the status: an unknown path, a
/// method the path does not take, a body over its ceiling, an encoding the route does not read.
public struct HTTPError: HTTPResponseError, Equatable, CustomStringConvertible {
    public let status: Int
    public let message: String
    public var headers: [(String, String)]

    public init(_ status: Int, _ message: String, headers: [(String, String)] = []) {
        self.status = status
        self.message = message
        self.headers = headers
    }

    public var description: String { "\(status) \(message)" }

    public var response: HTTPResponse { Self.render(status: status, message: message, headers: headers) }

    /// `{"error": "<sentence>"}` (and any further members, written after it) as JSON.
    public static func render(status: Int, message: String, members: [(String, Int64)] = [], headers: [(String, String)] = []) -> HTTPResponse {
        var writer = JSONWriter()
        writer.raw("{\"error\":")
        writer.string(message)
        for (name, value) in members {
            writer.raw(",")
            writer.string(name)
            writer.raw(":")
            writer.integer(value)
        }
        writer.raw(byte: UInt8(ascii: "}"))
        return HTTPResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: writer.bytes)
    }

    public static func == (lhs: HTTPError, rhs: HTTPError) -> Bool {
        lhs.status == rhs.status && lhs.message == rhs.message && lhs.headers.elementsEqual(rhs.headers, by: ==)
    }

    public static let unknownPath = HTTPError(404, "unknown path")
    public static func methodNotAllowed(_ method: String) -> HTTPError { HTTPError(405, "\(method) is not allowed here") }
    public static func bodyTooLarge(_ limit: Int) -> HTTPError { HTTPError(413, "this route takes a body of at most \(limit) bytes") }
    /// RFC 9112 §3.2: an HTTP/1.1 request must name the host it is for.
    public static let missingHost = HTTPError(400, "an HTTP/1.1 request must carry a Host header")
    /// A client with more requests in flight than it may have (behind a trusted proxy).
    public static func tooManyAtOnce(_ limit: Int) -> HTTPError {
        HTTPError(429, "this address has \(limit) requests in flight already; wait for them and try again", headers: [("Retry-After", "1")])
    }
    public static let internalFailure = HTTPError(500, "the service failed to answer this request; try again, and tell its operator if it keeps failing")

    /// The 500 for a failure that was logged under `id`.
    public static func internalFailure(id: String) -> HTTPError {
        HTTPError(500, "the service failed to answer this request (error \(id) in its log); try again, and tell its operator if it keeps failing")
    }
}
