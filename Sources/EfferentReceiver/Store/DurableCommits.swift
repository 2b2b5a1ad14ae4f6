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
final class DurableCommits: Sendable {
    private struct State {
        /// Commits announced, and the highest of them a finished flush covers.
        var announced: UInt64 = 0
        var flushed: UInt64 = 0
        var flushing = false
    }

    private let log: String?
    private let state = Monitor(State())

    /// `log` is the store's write-ahead log as SQLite names it (`SQLiteConnection.writeAheadLogPath`);
    /// nil for a database with none on disk, where there is nothing to flush.
    init(log: String?) { self.log = log }

    /// Returns once everything committed before the call is on the disk.
    func flush() throws {
        let mine = state.withLock { state in
            state.announced += 1
            return state.announced
        }
        while true {
            // Done when a finished flush covers this commit; else flush, unless one is under way
            // (sleep until it ends and look again: it may have begun before this commit).
            let covering: UInt64? = state.wait { state in
                if state.flushed >= mine { return .done(nil) }
                if state.flushing { return .sleep(until: nil) }
                state.flushing = true
                return .done(state.announced)
            }
            guard let covering else { return }
            var failure: (any Error)?
            do { if let log { try FileDurability.synchronize(log) } } catch { failure = error }
            state.withLock { state in
                state.flushing = false
                if failure == nil { state.flushed = max(state.flushed, covering) }
            }
            state.broadcast()
            if let failure { throw failure }
        }
    }
}
