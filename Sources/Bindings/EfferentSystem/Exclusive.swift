#if canImport(Glibc)
import Glibc
#endif

/// A resource one thread at a time may use — a SQLite connection and what is kept beside it —
/// which the holding thread may take again while it holds it (store methods compose inside each
/// other's transactions): a recursive pthread mutex that knows its holder.
///
/// `withLock` is the way in. `held`, for code already inside it, checks at run time that the
/// calling thread is the holder and stops the process if not: a use outside the lock is a trap,
/// never a race. That check is what the compiler cannot make for a resource that is neither
/// `Sendable` nor movable (`sending`) in and out of each call, hence `@unchecked Sendable` here,
/// in the bindings, and nowhere above.
public final class Exclusive<Resource>: @unchecked Sendable {
    // Inlinable: the store takes its connection through `held` beside every SQLite call, and a
    // generic class in another module would otherwise run unspecialized there.
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline let resource: Resource
    /// The holding thread and how many times it has taken the lock; changed only by the holder.
    @usableFromInline var holder: UInt?
    @usableFromInline var depth = 0

    public init(_ resource: sending Resource) {
        self.resource = resource
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the resource, the calling thread its one user until `body` returns.
    @inlinable
    public func withLock<T>(_ body: (Resource) throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        // Not `pthread_self()` straight: see `efferent_current_thread` (a release build kept one
        // call's value across an `await` and recorded the thread the task had left).
        holder = currentThread()
        depth += 1
        defer {
            depth -= 1
            if depth == 0 { holder = nil }
            pthread_mutex_unlock(mutex)
        }
        return try body(resource)
    }

    /// The resource, for code running inside `withLock` on this thread; anywhere else it stops
    /// the process (a use outside the lock is a bug, and a trap is better than a race).
    @inlinable
    public var held: Resource {
        // Read by the holder only: any other thread sees a holder that is not itself, or none.
        precondition(isHeldByCurrentThread, "a lock-guarded resource used outside its lock")
        return resource
    }

    /// Whether the calling thread holds the lock now.
    @inlinable
    public var isHeldByCurrentThread: Bool {
        // Try-lock succeeds for the holder (recursive) and for a thread when nobody holds it;
        // the holder check tells the two apart.
        guard pthread_mutex_trylock(mutex) == 0 else { return false }
        defer { pthread_mutex_unlock(mutex) }
        guard let holder else { return false }
        return holder == currentThread()
    }
}

