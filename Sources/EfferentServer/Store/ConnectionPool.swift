import Foundation

/// Database connections handed out one caller at a time, opened on demand up to `capacity`: the
/// SQLite store's read-only connections, the PostgreSQL store's connections. The lock is held only
/// to take or return a connection, never while it is used, so many connection threads query side
/// by side.
///
/// The lock is a pthread mutex with a condition (`NSCondition`), not a spinning `Mutex`: with a
/// thread per HTTP connection there are many more threads than cores, and spinning on a lock
/// whose holder is descheduled cost a fifth of the service's time under 32 readers.
final class ConnectionPool<Connection>: @unchecked Sendable {
    private let condition = NSCondition()
    private var idle: [Connection] = []
    private var opened = 0
    private let capacity: Int
    private let open: @Sendable () throws -> Connection
    private let isReusable: @Sendable (Connection) -> Bool
    private let isAlive: @Sendable (Connection) -> Bool

    /// `isReusable` is asked after each use and `isAlive` before an idle connection is handed out;
    /// a connection either refuses (a broken one) is closed and a fresh one opened instead.
    init(capacity: Int, open: @escaping @Sendable () throws -> Connection,
         isReusable: @escaping @Sendable (Connection) -> Bool = { _ in true },
         isAlive: @escaping @Sendable (Connection) -> Bool = { _ in true }) {
        self.capacity = capacity
        self.open = open
        self.isReusable = isReusable
        self.isAlive = isAlive
    }

    func use<T>(_ body: (Connection) throws -> T) throws -> T {
        let connection = try take()
        defer { give(connection) }
        return try body(connection)
    }

    private func take() throws -> Connection {
        condition.lock()
        while idle.isEmpty && opened >= capacity { condition.wait() }
        while let connection = idle.popLast() {
            // Checked outside the lock; a dead one gives up its place and the search goes on.
            condition.unlock()
            if isAlive(connection) { return connection }
            condition.lock()
            opened -= 1
        }
        opened += 1
        condition.unlock()
        do {
            return try open()
        } catch {
            condition.lock()
            opened -= 1
            condition.signal()
            condition.unlock()
            throw error
        }
    }

    private func give(_ connection: Connection) {
        let keep = isReusable(connection)
        condition.lock()
        if keep { idle.append(connection) } else { opened -= 1 }
        condition.signal()
        condition.unlock()
    }
}
