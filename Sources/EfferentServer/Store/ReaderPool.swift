import EfferentBindings
import Foundation

/// Read-only SQLite connections handed out one caller at a time, opened on demand up to
/// `capacity`. The lock is held only to take or return a connection, never while it is used, so
/// many connection threads read side by side (WAL lets readers run beside the writer).
///
/// The lock is a pthread mutex with a condition (`NSCondition`), not a spinning `Mutex`: with a
/// thread per HTTP connection there are many more threads than cores, and spinning on a lock
/// whose holder is descheduled cost a fifth of the service's time under 32 readers.
final class ReaderPool: @unchecked Sendable {
    private let condition = NSCondition()
    private var idle: [SQLiteConnection] = []
    private var opened = 0
    private let capacity: Int
    private let open: @Sendable () throws -> SQLiteConnection

    init(capacity: Int, open: @escaping @Sendable () throws -> SQLiteConnection) {
        self.capacity = capacity
        self.open = open
    }

    func use<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        let connection = try take()
        defer { give(connection) }
        return try body(connection)
    }

    private func take() throws -> SQLiteConnection {
        condition.lock()
        while idle.isEmpty && opened >= capacity { condition.wait() }
        if let connection = idle.popLast() {
            condition.unlock()
            return connection
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

    private func give(_ connection: SQLiteConnection) {
        condition.lock()
        idle.append(connection)
        condition.signal()
        condition.unlock()
    }
}
