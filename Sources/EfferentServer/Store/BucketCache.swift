import EfferentCore
import Foundation

/// Bucket records (keys and tally) remembered between requests, so a signed read does not cost
/// a second database transaction just to learn the read key.
///
/// Only valid where this process is the only writer (the SQLite store). Every write that changes
/// a bucket drops its entry after committing; a generation number keeps a read that started
/// before such a write from putting its older record back.
final class BucketCache: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [BucketID: BucketRecord?] = [:]
    private var generation: UInt64 = 0
    private let capacity: Int

    init(capacity: Int = 10_000) { self.capacity = capacity }

    /// The remembered record (`.some(nil)` for a bucket known not to exist), and the generation
    /// to hand back to `fill`.
    func lookup(_ id: BucketID) -> (record: BucketRecord??, generation: UInt64) {
        lock.withLock { (entries[id], generation) }
    }

    /// Remembers `record` unless a write has dropped anything since `generation` was read.
    func fill(_ id: BucketID, _ record: BucketRecord?, generation read: UInt64) {
        lock.withLock {
            guard read == generation else { return }
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[id] = .some(record)
        }
    }

    func drop(_ id: BucketID) {
        lock.withLock {
            generation &+= 1
            entries[id] = nil
        }
    }
}
