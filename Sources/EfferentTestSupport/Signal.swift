import Dispatch
import EfferentSystem
import Foundation

/// A one-shot event for tests that must put two threads at a chosen point of each other's work,
/// without sleeping: fired once, awaited from tasks or from plain threads.
public final class Signal: Sendable {
    private struct State {
        var fired = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    private let semaphore = DispatchSemaphore(value: 0)

    public init() {}

    public var hasFired: Bool { state.withLock { $0.fired } }

    public func fire() {
        let resumed: [CheckedContinuation<Void, Never>]? = state.withLock { state in
            guard !state.fired else { return nil }
            state.fired = true
            defer { state.waiting = [] }
            return state.waiting
        }
        guard let resumed else { return }
        resumed.forEach { $0.resume() }
        semaphore.signal()
    }

    /// Waits from a task, without holding a thread.
    public func wait() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.fired { return true }
                state.waiting.append(continuation)
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
