import EfferentCurl
import EfferentSystem
import Foundation

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
    /// The most answer this request may bring, from the protocol's limits for its route (§6).
    public var maxAnswerBytes: Int

    public init(method: String, target: String, headers: [(String, String)] = [], body: [UInt8] = [],
                maxAnswerBytes: Int = ClientRequest.defaultAnswerCeiling) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        self.maxAnswerBytes = maxAnswerBytes
    }

    /// Answers without a ceiling of their own (stats, registrations, edits' small JSON).
    public static let defaultAnswerCeiling = 1 << 20
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

/// HTTP(S) on libcurl, with a reader's limits on an untrusted service: a connection within 2.5 s
/// or a sentence, a deadline for the whole exchange however slowly bytes drip, and each request's
/// answer ceiling enforced against the declared length and again as the body arrives.
public final class CurlTransport: HTTPTransport {
    private let session = CurlSession()
    private let endpoint: String
    private let connectTimeout: Double
    private let deadline: Double
    private let stallSeconds: Int

    /// `endpoint` is `scheme://host[:port][/prefix]` with no trailing slash. An exchange must
    /// connect within `connectTimeout`, finish within `deadline`, and never move less than
    /// 1 KiB/s for `stallSeconds` on end.
    public init(endpoint: String, connectTimeout: Double = 2.5, deadline: Double = 120, stallSeconds: Int = 15) {
        self.endpoint = endpoint
        self.connectTimeout = connectTimeout
        self.deadline = deadline
        self.stallSeconds = stallSeconds
    }

    public func send(_ request: ClientRequest) async throws(ArchiveError) -> ClientResponse {
        guard endpoint.hasPrefix("http://") || endpoint.hasPrefix("https://") else {
            throw .noConnection(endpoint: endpoint, reason: "the address must start with http:// or https://")
        }
        var headers = request.headers
        headers.append(("User-Agent", "efferent/0.1"))
        if request.method != "GET", !headers.contains(where: { $0.0.lowercased() == "content-type" }) {
            headers.append(("Content-Type", "application/octet-stream"))
        }
        let exchange = CurlExchange(method: request.method, url: endpoint + request.target, headers: headers, body: request.body,
                                    connectTimeout: connectTimeout, deadline: deadline, stallSeconds: stallSeconds,
                                    maxAnswerBytes: request.maxAnswerBytes)
        let cancellation = CurlCancellation()
        let session = self.session
        let result: Result<CurlAnswer, CurlFailure> = await withTaskCancellationHandler {
            // libcurl blocks its thread, so it gets one of its own: on Linux the global queues
            // are the tasks' cooperative pool (a thread per core), which an exchange waiting on
            // the network would hold from every task, and which busy tasks would keep the
            // exchange waiting for. A cancelled task stops it within a second through the flag.
            await Blocking.onOwnThread { () -> Result<CurlAnswer, CurlFailure> in
                do throws(CurlFailure) {
                    return .success(try session.perform(exchange, cancel: cancellation))
                } catch {
                    return .failure(error)
                }
            }
        } onCancel: {
            cancellation.cancel()
        }
        switch result {
        case let .success(answer):
            return ClientResponse(status: answer.status, headers: answer.headers, body: answer.body)
        case let .failure(failure):
            throw Self.error(failure, endpoint: endpoint)
        }
    }

    /// "3 s", "0.3 s".
    static func seconds(_ value: Double) -> String {
        value >= 1 && value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
    }

    /// The sentence for each way an exchange can fail, and whether trying again could help.
    static func error(_ failure: CurlFailure, endpoint: String) -> ArchiveError {
        switch failure {
        case .refused:
            .noConnection(endpoint: endpoint, reason: "nothing accepts connections there (connection refused); check the address and that the service runs")
        case .unresolved:
            .noConnection(endpoint: endpoint, reason: "the host name does not resolve; check the address")
        case let .connectTimedOut(seconds):
            .noConnection(endpoint: endpoint, reason: "no connection within \(Self.seconds(seconds)); the address may be wrong, or a firewall drops the traffic")
        case let .timedOut(seconds):
            .noConnection(endpoint: endpoint, reason: "it connected but did not finish answering within \(Self.seconds(seconds)), or stalled below 1 KiB/s")
        case let .tls(message):
            .noConnection(endpoint: endpoint, reason: endpoint.hasPrefix("https://")
                ? "the TLS handshake failed (\(message)); if the service speaks plain HTTP, its address starts with http://"
                : "the TLS handshake failed (\(message))")
        case let .answerTooLarge(limit): .answerTooLarge(limit: limit)
        case .cancelled: .cancelled
        case let .dropped(message): .unreachable(endpoint: endpoint, reason: "the connection dropped (\(message))")
        case let .other(code, message): .unreachable(endpoint: endpoint, reason: "\(message) (libcurl \(code))")
        }
    }
}
