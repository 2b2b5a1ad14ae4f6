/// The route table: method, path pattern and handler registered together (Hummingbird's
/// `Router` is the model), answering through `HTTPResponder`.
///
/// Patterns are literal segments and `:name` parameters (`/b/:bucket/d/:day`). A parameter is
/// checked by its parser while the path is walked, so a malformed bucket id is refused with the
/// parser's error wherever it stands; a path no pattern matches is 404, a method the pattern does
/// not take 405, and `HEAD` is answered by the `GET` handler (libmicrohttpd sends no body for it).
/// The route pattern, never the concrete path, is what the access log names.
///
/// A router is a builder: routes are registered on it, then `responder()` freezes them into the
/// immutable table a daemon serves (`RoutedResponder`), which threads share without a lock.
public final class Router {
    public struct Configuration: Sendable {
        /// Where the access log and error lines go; nil logs nothing.
        public var log: (@Sendable (String) -> Void)?
        /// Take the client address from `X-Forwarded-For` (only behind a proxy you run).
        public var trustProxy: Bool
        /// For a failure that is not an `HTTPResponseError`: an answer other than the plain 500
        /// (a database out of reach is a 503). It is logged either way.
        public var recover: (@Sendable (any Error) -> (any HTTPResponseError)?)?
        /// Requests one client may have in flight at once; nil for no cap. Meant for `trustProxy`,
        /// where the daemon's own per-address cap sees only the proxy.
        public var requestsPerClient: Int?
        /// A check every request's head passes before its route is looked up (a local dashboard's
        /// Host header and access token); what it throws is the answer, so even an unknown path
        /// from a foreign Host gets the refusal rather than a 404.
        public var admit: (@Sendable (HTTPRequestHead) throws -> Void)?
        /// Headers every answer carries, refusals included, unless the answer set the header itself
        /// (a Content-Security-Policy, `Cache-Control: no-store`).
        public var headers: [(String, String)]
        /// The most memory all request bodies in flight may take together (`BodyBudget`); past it
        /// a body is refused with 503 and Retry-After. Nil for no budget.
        public var bodyBudgetBytes: Int?
        /// A refusal shown otherwise to the request that got it (a dashboard shows a page path it
        /// cannot serve as its own page, with the refusal's status); nil, or a nil answer, keeps
        /// the refusal's own.
        public var present: (@Sendable (HTTPRequestHead, any HTTPResponseError) -> HTTPResponse?)?

        /// What a server's bodies in flight may take together unless it says otherwise.
        public static let defaultBodyBudgetBytes = 256 << 20

        public init(log: (@Sendable (String) -> Void)? = nil, trustProxy: Bool = false,
                    recover: (@Sendable (any Error) -> (any HTTPResponseError)?)? = nil, requestsPerClient: Int? = nil,
                    admit: (@Sendable (HTTPRequestHead) throws -> Void)? = nil, headers: [(String, String)] = [],
                    bodyBudgetBytes: Int? = defaultBodyBudgetBytes,
                    present: (@Sendable (HTTPRequestHead, any HTTPResponseError) -> HTTPResponse?)? = nil) {
            self.log = log
            self.trustProxy = trustProxy
            self.recover = recover
            self.requestsPerClient = requestsPerClient
            self.admit = admit
            self.headers = headers
            self.bodyBudgetBytes = bodyBudgetBytes
            self.present = present
        }
    }

    public typealias Handler = @Sendable (HTTPRequest, RouteParameters) throws -> HTTPResponse
    public typealias Parser = @Sendable (Substring) throws -> any Sendable

    let configuration: Configuration
    private let root = Node()
    private var parsers: [String: Parser] = [:]

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// The routes registered so far, frozen into what a daemon serves; later registrations do
    /// not reach it.
    public func responder() -> RoutedResponder {
        RoutedResponder(configuration: configuration, root: root.frozen(), parsers: parsers)
    }

    /// How `:name` is checked and turned into a value; what it throws is the answer.
    public func parameter(_ name: String, parse: @escaping Parser) {
        parsers[name] = parse
    }

    /// A route whose body (decoded, within `body`) is read whole before `handler` runs.
    public func on(_ method: String, _ pattern: String, body: BodyLimit = .standard, use handler: @escaping Handler) {
        add(method, pattern, Route(pattern: pattern, limit: body, kind: .buffered(handler)))
    }

    /// A route whose body goes to a sink as it arrives: `sink` is made once the head is in, before
    /// the route's ceiling and encoding are checked (what it throws refuses the request before a
    /// byte of the body is read), and `handler` answers once the body has ended.
    public func on<Sink: HTTPBodySink & SendableMetatype>(_ method: String, _ pattern: String, body: BodyLimit,
                                       sink: @escaping @Sendable (HTTPRequestHead, RouteParameters) throws -> Sink,
                                       use handler: @escaping @Sendable (HTTPRequest, RouteParameters, Sink) throws -> HTTPResponse) {
        let kind = Route.Kind.streamed(sink: { try sink($0, $1) }, handler: { request, parameters, made in
            // The sink handed back is the one `sink` made for this request.
            try handler(request, parameters, made as! Sink)
        })
        add(method, pattern, Route(pattern: pattern, limit: body, kind: kind))
    }

    public func get(_ pattern: String, use handler: @escaping Handler) { on("GET", pattern, use: handler) }
    public func put(_ pattern: String, body: BodyLimit = .standard, use handler: @escaping Handler) { on("PUT", pattern, body: body, use: handler) }
    public func post(_ pattern: String, body: BodyLimit = .standard, use handler: @escaping Handler) { on("POST", pattern, body: body, use: handler) }
    public func delete(_ pattern: String, use handler: @escaping Handler) { on("DELETE", pattern, use: handler) }

    // MARK: Registering

    /// One registered route: its pattern, its body ceiling and what answers it.
    struct Route: Sendable {
        enum Kind: Sendable {
            case buffered(Handler)
            case streamed(sink: @Sendable (HTTPRequestHead, RouteParameters) throws -> any HTTPBodySink,
                          handler: @Sendable (HTTPRequest, RouteParameters, any HTTPBodySink) throws -> HTTPResponse)
        }

        let pattern: String
        let limit: BodyLimit
        let kind: Kind
    }

    /// A trie of path segments as it is built: literals first, then at most one parameter per level.
    private final class Node {
        var literals: [Substring: Node] = [:]
        var parameter: (name: String, node: Node)?
        var routes: [String: Route] = [:]

        func frozen() -> RoutedResponder.Node {
            RoutedResponder.Node(literals: literals.mapValues { $0.frozen() },
                                 parameter: parameter.map { ($0.name, $0.node.frozen()) }, routes: routes)
        }
    }

    private func add(_ method: String, _ pattern: String, _ route: Route) {
        var node = root
        for segment in Self.segments(of: pattern[...]) {
            if segment.first == ":" {
                let name = String(segment.dropFirst())
                if node.parameter == nil { node.parameter = (name, Node()) }
                precondition(node.parameter?.name == name, "two parameter names at one level of the route table: \(pattern)")
                node = node.parameter!.node
            } else {
                let next = node.literals[segment] ?? Node()
                node.literals[segment] = next
                node = next
            }
        }
        precondition(node.routes[method] == nil, "\(method) \(pattern) is registered twice")
        node.routes[method] = route
    }

    /// `/b/x/days` → `b`, `x`, `days`; empty segments are kept (`/b//days` has an empty bucket).
    static func segments(of path: Substring) -> ArraySlice<Substring> {
        path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
    }
}

/// A router's table frozen for serving: immutable, so every worker thread matches against it at
/// once without a lock. Made by `Router.responder()`.
public final class RoutedResponder: HTTPResponder {
    /// A trie node: literals first, then at most one parameter per level.
    final class Node: Sendable {
        let literals: [Substring: Node]
        let parameter: (name: String, node: Node)?
        let routes: [String: Router.Route]

        init(literals: [Substring: Node], parameter: (name: String, node: Node)?, routes: [String: Router.Route]) {
            self.literals = literals
            self.parameter = parameter
            self.routes = routes
        }
    }

    let configuration: Router.Configuration
    private let root: Node
    private let parsers: [String: Router.Parser]
    let clients: ClientGate?
    /// The one budget for this table's bodies in flight.
    public let bodyBudget: BodyBudget?

    init(configuration: Router.Configuration, root: Node, parsers: [String: Router.Parser]) {
        self.configuration = configuration
        self.root = root
        self.parsers = parsers
        clients = configuration.requestsPerClient.map(ClientGate.init(limit:))
        bodyBudget = configuration.bodyBudgetBytes.map(BodyBudget.init(ceiling:))
    }

    public func exchange(for head: HTTPRequestHead) -> HTTPExchange {
        HTTPExchange(head: head, router: self)
    }

    /// The route for `method` and `path`, with its parameters parsed.
    func match(_ method: String, _ path: Substring) throws -> (Router.Route, RouteParameters) {
        var node = root
        var parameters = RouteParameters()
        for segment in Router.segments(of: path) {
            if let next = node.literals[segment] {
                node = next
            } else if let (name, next) = node.parameter {
                parameters.set(name, try parsers[name].map { try $0(segment) } ?? String(segment))
                node = next
            } else {
                throw HTTPError.unknownPath
            }
        }
        guard !node.routes.isEmpty else { throw HTTPError.unknownPath }
        guard let route = node.routes[method] ?? (method == "HEAD" ? node.routes["GET"] : nil) else {
            throw HTTPError.methodNotAllowed(method)
        }
        return (route, parameters)
    }

}
