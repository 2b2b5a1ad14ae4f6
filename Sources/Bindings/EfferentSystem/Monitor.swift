import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// State behind a lock that threads can also wait on: a pthread mutex and condition variable.
/// For the few places where a plain thread must sleep until another changes the state (a pool
/// with no idle connection, a flush someone else is doing, the sealer's next due time), which
/// `Mutex` does not offer. Only threads of their own wait here, never the cooperative pool.
///
/// A waiter's state is never held across the wait: `wait(_:)` runs its step under the lock, and
/// between steps the lock is released while the thread sleeps.
public final class Monitor<State> {
    /// What a step of `wait(_:)` decided: done with a result, or sleep until signalled (or until
    /// the deadline, when there is one) and run the step again.
    public enum Step<Result> {
        case done(Result)
        case sleep(until: Date?)
    }

    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline let condition: UnsafeMutablePointer<pthread_cond_t>
    @usableFromInline var state: State

    public init(_ state: State) {
        self.state = state
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the state, under the lock.
    @inlinable
    public func withLock<Result, E: Error>(_ body: (inout State) throws(E) -> Result) throws(E) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }

    /// Runs `step` under the lock until it is done, sleeping between runs until another thread
    /// signals (or its deadline passes). Blocks the calling thread: never call it from a task.
    @inlinable
    public func wait<Result, E: Error>(_ step: (inout State) throws(E) -> Step<Result>) throws(E) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while true {
            switch try step(&state) {
            case let .done(result):
                return result
            case let .sleep(until: deadline):
                if let deadline {
                    let seconds = max(deadline.timeIntervalSince1970, 0)
                    var time = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
                    _ = pthread_cond_timedwait(condition, mutex, &time)
                } else {
                    pthread_cond_wait(condition, mutex)
                }
            }
        }
    }

    /// Wakes one waiter (call after changing the state a waiter waits on).
    @inlinable
    public func signal() { pthread_cond_signal(condition) }

    /// Wakes every waiter.
    @inlinable
    public func broadcast() { pthread_cond_broadcast(condition) }
}

/// Shared between threads when what it guards may be: the lock makes each access exclusive.
extension Monitor: @unchecked Sendable where State: Sendable {}
