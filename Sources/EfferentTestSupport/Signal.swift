import Dispatch
import Foundation

/// A one-shot event for tests that must put two threads at a chosen point of each other's work,
/// without sleeping: fired once, awaited from tasks or from plain threads.
public final class Signal: @unchecked Sendable {
    private let lock = NSLock()
    private var fired = false
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private let semaphore = DispatchSemaphore(value: 0)

    public init() {}

    public var hasFired: Bool { lock.withLock { fired } }

    public func fire() {
        let resumed: [CheckedContinuation<Void, Never>]? = lock.withLock {
            guard !fired else { return nil }
            fired = true
            defer { waiting = [] }
            return waiting
        }
        guard let resumed else { return }
        resumed.forEach { $0.resume() }
        semaphore.signal()
    }

    /// Waits from a task, without holding a thread.
    public func wait() async {
        await withCheckedContinuation { continuation in
            let now = lock.withLock { () -> Bool in
                if fired { return true }
                waiting.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Waits from a plain thread (never from a task: it blocks the thread).
    public func waitBlocking() {
        guard !hasFired else { return }
        semaphore.wait()
        semaphore.signal()
    }
}
