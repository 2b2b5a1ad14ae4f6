import EfferentHTTP
import EfferentSystem
import Foundation

/// How a deployment runs the service: who may create archives, how much it takes, how hard it
/// limits callers. Every field has a default that serves a first user.
public struct ServiceConfiguration: Sendable {
    /// Decision A.2: who may claim a new bucket.
    public enum Admission: String, Sendable, CaseIterable {
        /// A claim must carry a one-time code from `efferent-server invite`.
        case invite
        /// Any correctly signed claim creates a bucket (a private network, a test).
        case open
    }

    public var admission: Admission
    /// The address people reach the service at (`https://archive.example.org`), used in the MCP
    /// answers; without it the request's `Host` is used.
    public var publicURL: String?
    /// Take the client address from `X-Forwarded-For` (only behind a proxy you run).
    public var trustProxy: Bool
    /// The daemon speaks TLS itself: addresses it hands out (a link file's `location`) are https
    /// without `publicURL`.
    public var servesTLS: Bool = false
    public var quota: Quota
    /// `nil` turns rate limiting off.
    public var rateLimits: RateLimits?
    /// The service clock; tests set it.
    public var clock: @Sendable () -> Date
    /// Where request log lines go; `nil` logs nothing.
    public var log: (@Sendable (String) -> Void)?
    /// Requests one client address may have in flight at once, counted behind a trusted proxy
    /// (where the daemon's per-address connection cap sees only the proxy); nil for no cap.
    public var requestsPerClient: Int?
    /// The memory all request bodies in flight may take together; past it, 503 with Retry-After.
    public var bodyBudgetBytes: Int

    public init(admission: Admission = .invite, publicURL: String? = nil, trustProxy: Bool = false, quota: Quota = Quota(),
                rateLimits: RateLimits? = RateLimits(), clock: @escaping @Sendable () -> Date = { Date() },
                log: (@Sendable (String) -> Void)? = { line in StandardError.writeLine(line) },
                requestsPerClient: Int? = nil, bodyBudgetBytes: Int = Router.Configuration.defaultBodyBudgetBytes) {
        self.admission = admission
        self.publicURL = publicURL
        self.trustProxy = trustProxy
        self.quota = quota
        self.rateLimits = rateLimits
        self.clock = clock
        self.log = log
        self.requestsPerClient = requestsPerClient
        self.bodyBudgetBytes = bodyBudgetBytes
    }
}

/// Requests per client address per minute (§6: claims 5, writes 300, edits 60; decision A.15:
/// link manifests and files 120).
public struct RateLimits: Sendable, Equatable {
    public var claims: Int
    public var writes: Int
    public var edits: Int
    /// Manifest requests and file fetches of shared links, which anyone holding a link may make.
    public var links: Int
    /// Recovery kits put and fetched (an extension: `PUT`/`GET /kit/<locator>`).
    public var kits: Int

    public init(claims: Int = 5, writes: Int = 300, edits: Int = 60, links: Int = 120, kits: Int = 30) {
        self.claims = claims
        self.writes = writes
        self.edits = edits
        self.links = links
        self.kits = kits
    }

    /// Parses `claims=5,writes=300,edits=60,links=120,kits=30` (any subset; the rest keep their defaults) or `off`.
    public static func parse(_ text: String) -> RateLimits?? {
        if text == "off" { return .some(nil) }
        var limits = RateLimits()
        for part in text.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, let n = Int(pair[1]), n > 0 else { return nil }
            switch pair[0] {
            case "claims": limits.claims = n
            case "writes": limits.writes = n
            case "edits": limits.edits = n
            case "links": limits.links = n
            case "kits": limits.kits = n
            default: return nil
            }
        }
        return .some(limits)
    }
}
