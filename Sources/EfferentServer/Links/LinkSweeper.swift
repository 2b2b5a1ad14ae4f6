import EfferentCore
import EfferentHTTP
import EfferentSystem
import Foundation

/// Deletes each shared link's files when it expires, on a thread of its own (decision A.15: the
/// service enforces `exp`, so a client that ignores it gets nothing, and a link's ciphertext
/// does not outlive it). It wakes at the next expiry the store names, at least once a minute
/// (another process may have made a link sooner to expire), and when a link is made here. The
/// manifest and file routes refuse an expired link whether or not the sweeper has come by.
public final class LinkSweeper: Sendable {
    private struct State {
        var running = false
        var stopping = false
        var nudged = false
    }

    private let store: any LinkStore
    private let clock: @Sendable () -> Date
    private let log: (@Sendable (String) -> Void)?
    private let state = Monitor(State())
    private let finished = Monitor(true)
    /// The longest it sleeps between sweeps.
    static let interval: TimeInterval = 60

    init(store: any LinkStore, clock: @escaping @Sendable () -> Date, log: (@Sendable (String) -> Void)?) {
        self.store = store
        self.clock = clock
        self.log = log
    }

    /// One sweep now: what it deleted, or nil when the store could not be reached (logged).
    @discardableResult
    public func sweep() -> LinkSweep? {
        do {
            let result = try store.sweepLinks(now: clock())
            if result.expired > 0 {
                log?(LogLine(.info, [("linksExpired", .integer(Int64(result.expired))), ("filesDeleted", .integer(Int64(result.files)))]).json)
            }
            return result
        } catch {
            log?(LogLine(.warning, [("linkSweep", .text("failed")), ("error", .text(String(describing: type(of: error))))]).json)
            return nil
        }
    }

    /// Starts the thread (once).
    public func start() {
        let begin = state.withLock { state -> Bool in
            guard !state.running else { return false }
            state.running = true
            state.stopping = false
            return true
        }
        guard begin else { return }
        finished.withLock { $0 = false }
        Thread.detachNewThread { [self] in
            while true {
                let next = sweep()?.nextExpiry
                let wake = min(clock().addingTimeInterval(Self.interval),
                               next.map { Date(timeIntervalSince1970: Double($0) / 1000 + 0.001) } ?? .distantFuture)
                let stop = state.wait { state -> Monitor<State>.Step<Bool> in
                    if state.stopping { return .done(true) }
                    if state.nudged { state.nudged = false; return .done(false) }
                    return clock() >= wake ? .done(false) : .sleep(until: wake)
                }
                if stop { break }
            }
            finished.withLock { $0 = true }
            finished.broadcast()
        }
    }

    /// A link was made: the next expiry may be sooner than the one the thread sleeps toward.
    func nudge() {
        state.withLock { $0.nudged = true }
        state.signal()
    }

    /// Stops the thread and returns once it has ended.
    public func stop() {
        let wasRunning = state.withLock { state -> Bool in
            defer { state.stopping = true; state.running = false }
            return state.running
        }
        state.signal()
        guard wasRunning else { return }
        finished.wait { done -> Monitor<Bool>.Step<Void> in done ? .done(()) : .sleep(until: nil) }
    }
}
