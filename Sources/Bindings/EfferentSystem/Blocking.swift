import Foundation

/// Bridges between plain threads and the concurrency runtime without holding a thread of the
/// cooperative pool. The pool has one thread per core and is shared with everything else the
/// process runs as tasks (on Linux, with every `DispatchQueue.global()` job too): a pool thread
/// blocked waiting — for the sealer to stop, for SIGTERM — is one the rest cannot use, and async
/// work queued behind busy pool threads waits for them. So waits happen on threads of their own,
/// and the sealer's push runs on the sealer's thread (`WaitingThreadExecutor`).
public enum Blocking {
    /// Runs `wait` on a thread of its own and returns when it has returned, holding no pool thread.
    public static func onOwnThread(_ wait: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread {
                wait()
                done.resume()
            }.start()
        }
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
