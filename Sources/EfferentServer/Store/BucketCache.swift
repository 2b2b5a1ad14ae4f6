import EfferentCore
import EfferentSystem

/// Bucket records (keys and tally) remembered between requests, so a signed read does not cost
/// a second database transaction just to learn the read key.
///
/// Only valid where this process is the only writer (the SQLite store). Every write that changes
/// a bucket drops its entry after committing; a generation number keeps a read that started
/// before such a write from putting its older record back.
final class BucketCache: Sendable {
    private struct State {
        var entries: [BucketID: BucketRecord?] = [:]
        var generation: UInt64 = 0
    }

    private let state = Mutex(State())
    private let capacity: Int

    init(capacity: Int = 10_000) { self.capacity = capacity }

    /// The remembered record (`.some(nil)` for a bucket known not to exist), and the generation
    /// to hand back to `fill`.
    func lookup(_ id: BucketID) -> (record: BucketRecord??, generation: UInt64) {
        state.withLock { ($0.entries[id], $0.generation) }
    }

    /// Remembers `record` unless a write has dropped anything since `generation` was read.
    func fill(_ id: BucketID, _ record: BucketRecord?, generation read: UInt64) {
        state.withLock { state in
            guard read == state.generation else { return }
            if state.entries.count >= capacity { state.entries.removeAll(keepingCapacity: true) }
            state.entries[id] = .some(record)
        }
    }

    func drop(_ id: BucketID) {
        state.withLock { state in
            state.generation &+= 1
            state.entries[id] = nil
        }
    }
}
