import Foundation

/// A task executor whose jobs run on the one thread that waits in `runUntilFinished()`: a task
/// that prefers it (and its child tasks, and the default actors they call) never waits for a
/// thread of the cooperative pool.
final class WaitingThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var finished = false

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.withLock {
            jobs.append(job)
            condition.signal()
        }
    }

    /// The work is done: `runUntilFinished()` returns once no job is left.
    func finish() {
        condition.withLock {
            finished = true
            condition.signal()
        }
    }

    /// Runs the jobs as they come, on this thread, until `finish()`.
    func runUntilFinished() {
        while true {
            condition.lock()
            while jobs.isEmpty && !finished { condition.wait() }
            guard !jobs.isEmpty else {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
