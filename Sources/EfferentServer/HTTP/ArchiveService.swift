import EfferentCore
import EfferentHTTP
import Foundation

/// The Efferent archive service: its routes on the shared HTTP layer, which matches them, reads
/// bodies within each route's ceiling, renders refusals and logs one line per request. It holds
/// no state of its own; the store holds it all, request counts for the rate limits included.
public final class ArchiveService: HTTPResponder {
    let handlers: ArchiveHandlers
    /// The route table, frozen once the routes are registered.
    private let routes: RoutedResponder

    public init(store: any ArchiveStore, configuration: ServiceConfiguration = ServiceConfiguration()) {
        handlers = ArchiveHandlers(store: store, configuration: configuration)
        // A database out of reach is worth a retry: 503 with Retry-After, not a 500.
        let router = Router(configuration: Router.Configuration(log: configuration.log, trustProxy: configuration.trustProxy, recover: { error in
            (error as? StoreError)?.isUnavailable == true ? ServiceError.storeUnavailable : nil
        }, requestsPerClient: configuration.requestsPerClient, bodyBudgetBytes: configuration.bodyBudgetBytes))
        handlers.addRoutes(to: router)
        routes = router.responder()
    }

    public func exchange(for head: HTTPRequestHead) -> HTTPExchange { routes.exchange(for: head) }

    public var store: any ArchiveStore { handlers.store }
    public var configuration: ServiceConfiguration { handlers.configuration }
    /// Deletes shared links' files as they expire (decision A.15): `efferent-server serve` starts
    /// it; a test sweeps by hand on its own clock.
    public var linkSweeper: LinkSweeper { handlers.sweeper }

    public static func jsonString(_ text: String) -> String { AccessLog.jsonString(text) }
}

/// What answers each route: the store, the configuration and the rate limits, shared by every
/// handler the route table holds.
final class ArchiveHandlers: Sendable {
    let store: any ArchiveStore
    let configuration: ServiceConfiguration
    let limiter: RateLimiter?
    /// Argon2id checks of link passcodes, a few at a time.
    let passcodes = PasscodeGate()
    let sweeper: LinkSweeper

    init(store: any ArchiveStore, configuration: ServiceConfiguration) {
        self.store = store
        self.configuration = configuration
        self.limiter = configuration.rateLimits.map { RateLimiter(limits: $0, counter: store.requestCounter) }
        sweeper = LinkSweeper(store: store, clock: configuration.clock, log: configuration.log)
    }

    // MARK: Shared pieces

    var now: Date { configuration.clock() }
    var nowSeconds: Int64 { Int64(now.timeIntervalSince1970.rounded(.down)) }

    /// The client's address: the peer, or with `--trust-proxy` the last `X-Forwarded-For` entry
    /// (the one the proxy itself appended).
    func clientAddress(_ request: HTTPRequest) -> String { request.client(trustingProxy: configuration.trustProxy) }

    func rateLimit(_ kind: RateLimiter.Kind, _ request: HTTPRequest) throws {
        try limiter?.admit(kind, from: clientAddress(request), now: now)
    }

    /// Parses and checks signature headers for `role` (§6 order), then the signature over `message`.
    func verify(_ role: SignedHeaders.Role, _ request: HTTPRequest, message: (Int64) -> [UInt8]) throws(ServiceError) -> SignedHeaders {
        let headers: SignedHeaders
        do {
            headers = try SignedHeaders(parsing: { request.header($0) }, role: role, now: nowSeconds)
        } catch {
            throw ServiceError.signedHeaders(error)
        }
        guard headers.isValid(for: message(headers.timestamp)) else { throw ServiceError.badSignature }
        return headers
    }

    static func json(_ status: Int, _ value: JSONValue, headers: [(String, String)] = []) -> HTTPResponse {
        // Answers are built from finite numbers only, so serialising cannot fail.
        let body = (try? value.canonicalBytes()) ?? Array("{}".utf8)
        return HTTPResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: body)
    }

    static func jsonString(_ text: String) -> String { AccessLog.jsonString(text) }
}
