import EfferentSystem

/// One ceiling on the memory all request bodies in flight on a server may take together: a body
/// kept whole counts its declared length from its head, one handed to a sink (and any inflated
/// from gzip) counts what has reached the route so far. A body that would pass the ceiling is
/// refused with 503 and `Retry-After` — the server is busy, the request is fine — and what it
/// held is given back at once. Without it, sixteen gzip bombs in flight each took what the
/// route's own ceiling allowed (issue 33).
public final class BodyBudget: Sendable {
    /// A place in the budget, given back (all of it) when its body is done with.
    final class Share {
        private let budget: BodyBudget
        private(set) var bytes = 0

        init(budget: BodyBudget) { self.budget = budget }

        /// Takes `count` more bytes, or throws the budget's refusal (taking nothing).
        func take(_ count: Int) throws(HTTPError) {
            guard count > 0 else { return }
            guard budget.take(count) else { throw budget.refusal }
            bytes += count
        }

        /// Gives back everything taken.
        func giveBack() {
            budget.giveBack(bytes)
            bytes = 0
        }

        deinit { budget.giveBack(bytes) }
    }

    public let ceiling: Int
    private let used = Mutex(0)

    public init(ceiling: Int) { self.ceiling = ceiling }

    /// Bytes taken by bodies in flight now.
    public var inUse: Int { used.withLock { $0 } }

    /// The refusal past the ceiling: a sentence a person can act on, and when to try again.
    public var refusal: HTTPError {
        HTTPError(503, "the server is taking in as much request body as it holds at once (\(ceiling >> 20) MiB); send this request again in a few seconds",
                  headers: [("Retry-After", "2")])
    }

    func share() -> Share { Share(budget: self) }

    private func take(_ count: Int) -> Bool {
        used.withLock { used in
            guard used + count <= ceiling else { return false }
            used += count
            return true
        }
    }

    private func giveBack(_ count: Int) {
        guard count > 0 else { return }
        used.withLock { $0 -= count }
    }
}
