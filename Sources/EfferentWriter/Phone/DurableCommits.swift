import EfferentSystem
import Foundation

/// Makes committed transactions survive a power loss, sharing one `fsync` of the write-ahead log
/// among every batch committed meanwhile (group commit).
///
/// The store runs WAL with `synchronous=NORMAL`: a commit survives the process being killed but
/// reaches the disk only at the next checkpoint. A phone forgets a batch once it is acknowledged
/// (Puls Sync Protocol §6), so the receiver flushes the log before it answers. One flush covers
/// every commit written before it began, so four phones' batches committed together wait for one
/// flush, not four in a row.
public final class DurableCommits: @unchecked Sendable {
    private let log: String
    private let condition = NSCondition()
    /// Commits announced, and the highest of them a finished flush covers.
    private var announced: UInt64 = 0
    private var flushed: UInt64 = 0
    private var flushing = false

    /// `database` is the SQLite file; its log is `database-wal`.
    public init(database: String) { log = database + "-wal" }

    /// Returns once everything committed before the call is on the disk.
    public func flush() throws {
        condition.lock()
        announced += 1
        let mine = announced
        while flushed < mine {
            if flushing {
                condition.wait()
                continue
            }
            flushing = true
            let covering = announced
            condition.unlock()
            var failure: (any Error)?
            do { try FileDurability.synchronize(log) } catch { failure = error }
            condition.lock()
            flushing = false
            if failure == nil { flushed = max(flushed, covering) }
            condition.broadcast()
            if let failure {
                condition.unlock()
                throw failure
            }
        }
        condition.unlock()
    }
}
