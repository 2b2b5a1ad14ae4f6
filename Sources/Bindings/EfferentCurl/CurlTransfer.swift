internal import CCurl
import Foundation
import EfferentSystem

/// One HTTP exchange performed by libcurl (https://curl.se/libcurl/c/libcurl-easy.html), with the
/// limits a client of an untrusted service needs, each enforced by libcurl as the bytes move: a
/// connect timeout, a deadline for the whole exchange, a floor under the transfer speed, and a
/// ceiling on the answer's size checked against its declared length and again as it arrives.
public struct CurlExchange: Sendable {
    public var method: String
    public var url: String
    public var headers: [(String, String)]
    public var body: [UInt8]
    /// Seconds to establish the connection (TCP and TLS).
    public var connectTimeout: Double
    /// Seconds for the whole exchange, however the bytes trickle.
    public var deadline: Double
    /// Seconds the transfer may stay below 1 KiB/s before it counts as stalled.
    public var stallSeconds: Int
    /// Bytes of answer body taken at most; a longer answer is abandoned as soon as it shows.
    public var maxAnswerBytes: Int
    /// PEM certificates to trust for HTTPS instead of the system's (a private service's own CA).
    public var caFile: String?

    public init(method: String, url: String, headers: [(String, String)] = [], body: [UInt8] = [],
                connectTimeout: Double = 2.5, deadline: Double = 120, stallSeconds: Int = 15, maxAnswerBytes: Int = 16 << 20,
                caFile: String? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.connectTimeout = connectTimeout
        self.deadline = deadline
        self.stallSeconds = stallSeconds
        self.maxAnswerBytes = maxAnswerBytes
        self.caFile = caFile
    }
}

/// An answer: its status, its headers (names lower-cased; the last of repeated ones), its body.
public struct CurlAnswer: Sendable {
    public let status: Int
    public let headers: [String: String]
    public let body: [UInt8]
}

/// Why an exchange produced no answer, in terms a person can act on.
public enum CurlFailure: Error, Equatable, Sendable {
    /// Nothing listens at the address (connection refused).
    case refused
    /// The host name does not resolve.
    case unresolved
    /// No connection within the connect timeout (a black-holed address, a firewall dropping).
    case connectTimedOut(seconds: Double)
    /// Connected, but the exchange passed its deadline or stalled below the speed floor.
    case timedOut(seconds: Double)
    /// The TLS handshake failed (libcurl's message, which names no secret).
    case tls(String)
    /// The answer declared or sent more than the ceiling.
    case answerTooLarge(limit: Int)
    /// The caller gave up (its task was cancelled).
    case cancelled
    /// The connection dropped mid-exchange (libcurl's message).
    case dropped(String)
    /// Anything else libcurl reports: its code and message.
    case other(code: Int, message: String)
}

/// A pool of libcurl easy handles: each exchange takes one and gives it back, so connections to
/// the service are kept alive and reused between exchanges (curl_easy_reset keeps the cache).
public final class CurlSession: Sendable {
    private let idle = Mutex<[CurlEasy]>([])
    private let keep: Int

    /// `keep`: handles (and so connections) kept open between exchanges.
    public init(keep: Int = 8) {
        CurlGlobal.initialise()
        self.keep = keep
    }

    /// Performs the exchange on the calling thread (it blocks); `isCancelled` is polled while it runs.
    public func perform(_ exchange: CurlExchange, cancel: CurlCancellation) throws(CurlFailure) -> CurlAnswer {
        let easy: CurlEasy
        if let reused = idle.withLock({ $0.popLast() }) {
            easy = reused
        } else {
            guard let created = CurlEasy() else { throw .other(code: -1, message: "libcurl could not make a handle") }
            easy = created
        }
        defer {
            easy.reset()
            idle.withLock { handles in if handles.count < keep { handles.append(easy) } }
        }
        return try easy.perform(exchange, cancel: cancel)
    }
}

/// A flag a caller sets to abandon an exchange in flight; libcurl polls it at least once a second.
public final class CurlCancellation: Sendable {
    private let flag = Atomic<Bool>(false)
    public init() {}
    public func cancel() { flag.store(true, ordering: .relaxed) }
    public var isCancelled: Bool { flag.load(ordering: .relaxed) }
}

/// `curl_global_init` once per process, before any handle (https://curl.se/libcurl/c/curl_global_init.html).
enum CurlGlobal {
    private static let once: Bool = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK }()
    static func initialise() { _ = once }
}
