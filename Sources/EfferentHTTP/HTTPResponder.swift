/// What answers HTTP requests: the router, or a server built on one. The daemon asks it for an
/// exchange per request; tests ask it for whole answers in process, without a socket.
public protocol HTTPResponder: Sendable {
    /// The exchange that reads this request's body and answers it (or has refused it already).
    func exchange(for head: HTTPRequestHead) -> HTTPExchange
}

extension HTTPResponder {
    /// The answer to a whole request, made in process: the same path a request from the daemon
    /// takes, with the body as one piece.
    public func respond(to request: HTTPRequest) -> HTTPResponse {
        let exchange = exchange(for: request.head)
        if let early = exchange.earlyResponse { return early }
        if !request.body.isEmpty { _ = exchange.receive(request.body) }
        return exchange.finish()
    }
}
