import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP exchange as the client needs it; the real one is URLSession, tests may put the
/// service in process.
public protocol HTTPTransport: Sendable {
    func send(_ request: ClientRequest) async throws(ArchiveError) -> ClientResponse
}

public struct ClientRequest: Sendable {
    public var method: String
    /// Path and query, exactly as signed (§7).
    public var target: String
    public var headers: [(String, String)]
    public var body: [UInt8]

    public init(method: String, target: String, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
    }
}

public struct ClientResponse: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// URLSession over HTTP(S), with the reader's limits: 30 s a request, answers over 16 MiB refused.
public final class URLSessionTransport: HTTPTransport {
    private let session: URLSession
    private let endpoint: String
    private let maxAnswerBytes: Int

    /// `endpoint` is `scheme://host[:port][/prefix]` with no trailing slash.
    public init(endpoint: String, timeout: TimeInterval = 30, maxAnswerBytes: Int = 16 * 1024 * 1024) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.httpMaximumConnectionsPerHost = 8
        configuration.httpAdditionalHeaders = ["User-Agent": "efferent/0.1"]
        session = URLSession(configuration: configuration)
        self.endpoint = endpoint
        self.maxAnswerBytes = maxAnswerBytes
    }

    public func send(_ request: ClientRequest) async throws(ArchiveError) -> ClientResponse {
        guard let url = URL(string: endpoint + request.target) else {
            throw .unexpectedAnswer("the address \(endpoint) cannot be combined with \(request.target)")
        }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if request.method != "GET" {
            urlRequest.httpBody = Data(request.body)
        }
        let data: Data, response: URLResponse
        do {
            (data, response) = try await session.data(for: urlRequest)
        } catch {
            throw .unreachable(endpoint: endpoint, reason: Self.reason(error))
        }
        guard let http = response as? HTTPURLResponse else { throw .unexpectedAnswer("not an HTTP answer") }
        guard data.count <= maxAnswerBytes else { throw .answerTooLarge }
        var headers = [String: String]()
        for (name, value) in http.allHeaderFields {
            headers[String(describing: name).lowercased()] = String(describing: value)
        }
        return ClientResponse(status: http.statusCode, headers: headers, body: Array(data))
    }

    static func reason(_ error: Error) -> String {
        let nsError = error as NSError
        switch nsError.code {
        case NSURLErrorCannotConnectToHost: return "the connection was refused"
        case NSURLErrorTimedOut: return "it did not answer in time"
        case NSURLErrorCannotFindHost: return "the host name does not resolve"
        case NSURLErrorNetworkConnectionLost: return "the connection dropped"
        case NSURLErrorNotConnectedToInternet: return "this machine is offline"
        case NSURLErrorSecureConnectionFailed, NSURLErrorServerCertificateUntrusted: return "the TLS connection failed"
        default: return "network error \(nsError.code)"
        }
    }
}
