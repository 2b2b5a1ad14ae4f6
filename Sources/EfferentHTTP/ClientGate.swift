import EfferentSystem

/// Requests in flight per client address, capped: what libmicrohttpd's per-address connection cap
/// does for direct clients, done per forwarded address behind a proxy the service trusts, where
/// every connection comes from the proxy's one address and a cap on it would be a cap for all.
final class ClientGate: Sendable {
    /// A place taken by one request, given back when the request is done with.
    final class Ticket: Sendable {
        private let gate: ClientGate
        private let client: String
        init(gate: ClientGate, client: String) {
            self.gate = gate
            self.client = client
        }
        deinit { gate.release(client) }
    }

    let limit: Int
    private let counts = Mutex([String: Int]())

    init(limit: Int) { self.limit = limit }

    /// A ticket for one more request from `client`, or nil when it already has `limit` in flight.
    func enter(_ client: String) -> Ticket? {
        let admitted = counts.withLock { counts -> Bool in
            let count = counts[client, default: 0]
            guard count < limit else { return false }
            counts[client] = count + 1
            return true
        }
        return admitted ? Ticket(gate: self, client: client) : nil
    }

    /// The requests `client` has in flight now.
    func inFlight(_ client: String) -> Int { counts.withLock { $0[client, default: 0] } }

    private func release(_ client: String) {
        counts.withLock { counts in
            let count = (counts[client] ?? 1) - 1
            counts[client] = count > 0 ? count : nil
        }
    }
}
