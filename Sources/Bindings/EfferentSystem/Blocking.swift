import Foundation
import Synchronization

/// Bridges between plain threads and the concurrency runtime without holding a thread of the
/// cooperative pool. The pool has one thread per core and is shared with everything else the
/// process runs as tasks (on Linux, with every `DispatchQueue.global()` job too): a pool thread
/// blocked waiting — for the sealer to stop, for SIGTERM — is one the rest cannot use, and async
/// work queued behind busy pool threads waits for them. So waits happen on threads of their own,
/// and the sealer's push runs on the sealer's thread (`WaitingThreadExecutor`).
public enum Blocking {
    /// Runs `work` on a thread of its own and returns what it returned, holding no pool thread
    /// meanwhile: the one way a task waits on something that blocks (a signal, the sealer's stop,
    /// libcurl's transfer). `stackSize` for work that recurses deeply (decoding a day's JSON).
    public static func onOwnThread<T: Sendable>(stackSize: Int? = nil, _ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (done: CheckedContinuation<T, Never>) in
            start(stackSize: stackSize) { done.resume(returning: work()) }
        }
    }

    /// Starts `work` on a thread of its own for a plain thread to wait on (`Pending.wait()`), so
    /// the caller goes on meanwhile: the SQL export makes its next window while it writes this one.
    public static func started<T: Sendable>(stackSize: Int? = nil, _ work: @escaping @Sendable () -> T) -> Pending<T> {
        let pending = Pending<T>()
        start(stackSize: stackSize) { pending.finish(work()) }
        return pending
    }

    /// What `started` is making: `wait()` blocks the calling thread (never a task's) until it is made.
    public final class Pending<T: Sendable>: Sendable {
        private let result = Mutex<T?>(nil)
        private let done = DispatchSemaphore(value: 0)

        fileprivate init() {}

        fileprivate func finish(_ value: T) {
            result.withLock { $0 = value }
            done.signal()
        }

        /// The result, once made; every later call returns it at once.
        public func wait() -> T {
            if let made = result.withLock({ $0 }) { return made }
            done.wait()
            done.signal()
            return result.withLock { $0 }!
        }
    }

    private static func start(stackSize: Int?, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        if let stackSize { thread.stackSize = stackSize }
        thread.start()
    }

    /// Runs async work from a plain thread and returns its result. The work's jobs — its own, its
    /// child tasks', the default actors it calls — run on the calling thread, so it needs no
    /// thread of the pool and cannot be starved by whatever else keeps the pool busy.
    public static func run<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) -> Result<T, any Error> {
        let executor = WaitingThreadExecutor()
        let box = ResultBox<T>()
        Task(executorPreference: executor) {
            do { box.result = .success(try await work()) } catch { box.result = .failure(error) }
            executor.finish()
        }
        executor.runUntilFinished()
        return box.result!
    }

    private final class ResultBox<T>: @unchecked Sendable {
        var result: Result<T, any Error>?
    }
}
