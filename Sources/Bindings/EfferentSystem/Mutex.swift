#if canImport(Glibc)
import Glibc
#endif
// Every module takes `Mutex` (and `Atomic`) from here rather than importing Synchronization
// itself, so that the thread sanitizer's builds can swap the lock underneath.
@_exported import Synchronization

#if EFFERENT_TSAN
/// In thread-sanitizer builds only (`scripts/sanitize` passes `-DEFFERENT_TSAN`): Synchronization's
/// `Mutex` API on a pthread mutex. The toolchain's Synchronization module is compiled without the
/// sanitizer, so a contended `Mutex` hands its lock over inside the kernel where the sanitizer
/// cannot see it, and state behind it is reported as raced (two threads counting behind one Mutex
/// are reported, and count right). The sanitizer intercepts pthread mutexes. Every other build
/// uses Synchronization's `Mutex` itself.
public struct Mutex<Value: ~Copyable>: ~Copyable, @unchecked Sendable {
    @usableFromInline
    final class Storage {
        @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
        @usableFromInline var value: Value

        init(_ value: consuming Value) {
            self.value = value
            mutex = .allocate(capacity: 1)
            mutex.initialize(to: pthread_mutex_t())
            pthread_mutex_init(mutex, nil)
        }

        deinit {
            pthread_mutex_destroy(mutex)
            mutex.deallocate()
        }
    }

    @usableFromInline let storage: Storage

    public init(_ initialValue: consuming sending Value) { storage = Storage(initialValue) }

    @inlinable
    public borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        pthread_mutex_lock(storage.mutex)
        defer { pthread_mutex_unlock(storage.mutex) }
        return try body(&storage.value)
    }

    @inlinable
    public borrowing func withLockIfAvailable<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result? {
        guard pthread_mutex_trylock(storage.mutex) == 0 else { return nil }
        defer { pthread_mutex_unlock(storage.mutex) }
        return try body(&storage.value)
    }
}
#endif
