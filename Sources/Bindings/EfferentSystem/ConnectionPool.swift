/// Database connections handed out one caller at a time, opened on demand up to `capacity`: the
/// SQLite store's read-only connections, the PostgreSQL store's connections. The lock is held only
/// to take or return a connection, never while it is used, so many worker threads query side
/// by side.
///
/// The lock is a `Monitor` (a pthread mutex with a condition), not a spinning `Mutex`: a caller
/// finding every connection taken sleeps until one is given back, and with more worker threads
/// than cores, spinning on a lock whose holder is descheduled cost a fifth of the service's time
/// under 32 readers.
///
/// Here among the bindings because it is what makes a connection, which is not `Sendable` (one
/// thread at a time), usable from many threads: it hands each one to a single caller and takes it
/// back before anyone else gets it, which the compiler cannot check (`@unchecked Sendable`).
public final class ConnectionPool<Connection>: @unchecked Sendable {
    // Inlinable, as the rest of this pool: a generic class in another module is otherwise run
    // unspecialized (through witness tables) on every request the service answers.
    @usableFromInline struct State {
        @usableFromInline var idle: [Connection] = []
        @usableFromInline var opened = 0
        @usableFromInline init() {}
    }

    @usableFromInline let state = Monitor(State())
    @usableFromInline let capacity: Int
    @usableFromInline let open: @Sendable () throws -> Connection
    @usableFromInline let isReusable: @Sendable (Connection) -> Bool
    @usableFromInline let isAlive: @Sendable (Connection) -> Bool

    /// `isReusable` is asked after each use and `isAlive` before an idle connection is handed out;
    /// a connection either refuses (a broken one) is closed and a fresh one opened instead.
    public init(capacity: Int, open: @escaping @Sendable () throws -> Connection,
         isReusable: @escaping @Sendable (Connection) -> Bool = { _ in true },
         isAlive: @escaping @Sendable (Connection) -> Bool = { _ in true }) {
        self.capacity = capacity
        self.open = open
        self.isReusable = isReusable
        self.isAlive = isAlive
    }

    @inlinable
    public func use<T>(_ body: (Connection) throws -> T) throws -> T {
        let connection = try take()
        defer { give(connection) }
        return try body(connection)
    }

    @inlinable
    func take() throws -> Connection {
        while true {
            // An idle connection, or a place to open one; with neither, sleep until one is given back.
            let idle: Connection? = state.wait { state -> Monitor<State>.Step<Connection?> in
                if let connection = state.idle.popLast() { return .done(connection) }
                guard state.opened < capacity else { return .sleep(until: nil) }
                state.opened += 1
                return .done(nil)
            }
            guard let idle else { break }
            // Checked outside the lock; a dead one gives up its place and the search goes on.
            if isAlive(idle) { return idle }
            state.withLock { $0.opened -= 1 }
        }
        do {
            return try open()
        } catch {
            state.withLock { $0.opened -= 1 }
            state.signal()
            throw error
        }
    }

    @inlinable
    func give(_ connection: Connection) {
        let keep = isReusable(connection)
        state.withLock { state in
            if keep { state.idle.append(connection) } else { state.opened -= 1 }
        }
        state.signal()
    }
}
