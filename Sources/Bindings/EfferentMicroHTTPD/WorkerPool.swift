import Foundation
import EfferentSystem

/// The threads a daemon's blocking work runs on: answering a request (SQLite, fsync, sealing,
/// reading a mirror), taking a body piece a route's sink parses or inflates, producing the next
/// piece of a streamed answer. libmicrohttpd's few poll threads serve every connection, so
/// nothing that may block runs there; a poll thread suspends the connection, a worker does the
/// work and resumes it.
///
/// At most `maximum` OS threads, started as work first needs them and kept until `stop()`:
/// neither Swift's cooperative pool (one thread per core, which a blocked handler would starve)
/// nor Dispatch's global queues (which grow a thread for every blocked item). Work beyond the
/// threads waits in order.
final class WorkerPool: Sendable {
    typealias Job = @Sendable () -> Void

    private struct State {
        /// Taken jobs are set to nil at once: a job holds its request's exchange (and what the
        /// exchange holds, such as a client's place among its requests in flight).
        var jobs: [Job?] = []
        var next = 0
        var threads = 0
        var busy = 0
        var stopping = false

        var pending: Int { jobs.count - next }

        mutating func take() -> Job? {
            guard next < jobs.count else { return nil }
            let job = jobs[next]
            jobs[next] = nil
            next += 1
            // The taken prefix is dropped once it is most of the array, so the queue's memory
            // follows what waits rather than everything ever queued.
            if next > 64 && next * 2 > jobs.count {
                jobs.removeFirst(next)
                next = 0
            }
            return job
        }
    }

    let maximum: Int
    private let state = Mutex(State())
    /// One signal per job queued, and one per thread when stopping.
    private let available = DispatchSemaphore(value: 0)
    private let exited = DispatchSemaphore(value: 0)

    init(maximum: Int) {
        self.maximum = max(1, maximum)
    }

    /// Runs `job` on a worker thread, in order with the others queued.
    func submit(_ job: @escaping Job) {
        let spawn = state.withLock { state -> Bool in
            state.jobs.append(job)
            // A thread more only when the jobs waiting outnumber the threads free to take them.
            guard state.pending > state.threads - state.busy, state.threads < maximum else { return false }
            state.threads += 1
            return true
        }
        if spawn {
            let thread = Thread { [self] in work() }
            thread.name = "efferent-http-worker"
            thread.start()
        }
        available.signal()
    }

    /// Jobs queued or running.
    var outstanding: Int { state.withLock { $0.pending + $0.busy } }

    private func work() {
        while true {
            available.wait()
            let job = state.withLock { state -> Job?? in
                if let job = state.take() {
                    state.busy += 1
                    return .some(job)
                }
                return state.stopping ? .none : .some(nil)
            }
            guard let job else { break }
            guard let job else { continue }
            job()
            state.withLock { $0.busy -= 1 }
        }
        exited.signal()
    }

    /// Lets the queued jobs run, then ends every thread and waits for them.
    func stop() {
        let threads = state.withLock { state -> Int in
            guard !state.stopping else { return 0 }
            state.stopping = true
            return state.threads
        }
        for _ in 0..<threads { available.signal() }
        for _ in 0..<threads { exited.wait() }
    }
}
