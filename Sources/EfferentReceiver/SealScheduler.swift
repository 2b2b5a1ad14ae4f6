import EfferentHTTP
import EfferentWriter
import EfferentSystem
import Foundation

/// Seals and uploads what phones sent, without anyone running `efferent push`: once no batch has
/// come for the debounce (tens of seconds: one push for a burst, not one per batch), or once a
/// changed day has waited the longest wait while a backfill keeps batches coming. Between bursts
/// it pushes every check interval, which keeps the daily archive check (§9.6) running and retries
/// days an unreachable archive left marked. Agent edits are applied first, as `push` does.
///
/// One thread of its own per writer; a push takes the writer's turn (`WriterContext.push`), so
/// it never overlaps an `efferent push` in this process, and the store's marks keep a batch
/// committed during a push for the next one.
final class SealScheduler: Sendable {
    private struct State {
        var lastChange: Date?
        var firstChange: Date?
        var nextRun: Date
        var retryDelay: Double
        var stopped = false
        var started = false
    }

    private let context: WriterContext
    private let configuration: ReceiverConfiguration
    private let state: Monitor<State>
    private let finished = DispatchSemaphore(value: 0)

    init(context: WriterContext, configuration: ReceiverConfiguration) {
        self.context = context
        self.configuration = configuration
        // The first run comes at once: days a previous run left marked go now.
        state = Monitor(State(nextRun: configuration.clock(), retryDelay: max(configuration.debounceSeconds, 1)))
    }

    /// A batch changed days: sealing waits for the debounce to pass without another.
    func changed() {
        let now = configuration.clock()
        state.withLock { state in
            state.lastChange = now
            if state.firstChange == nil { state.firstChange = now }
        }
        state.signal()
    }

    func start() {
        let thread = Thread { [self] in
            loop()
            finished.signal()
        }
        thread.name = "efferent.receive.seal"
        state.withLock { $0.started = true }
        thread.start()
    }

    /// Stops after any push under way; days still marked go with the next start's first push.
    func stop() {
        let running = state.withLock { state in
            state.stopped = true
            return state.started
        }
        state.signal()
        if running { finished.wait() }
    }

    private func loop() {
        while true {
            // Sleep until the next push is due (or a batch moves it, or stop); false means stopped.
            let due = state.wait { [configuration] state -> Monitor<State>.Step<Bool> in
                guard !state.stopped else { return .done(false) }
                var due = state.nextRun
                if let last = state.lastChange, let first = state.firstChange {
                    due = min(due, last.addingTimeInterval(configuration.debounceSeconds),
                              first.addingTimeInterval(configuration.longestWaitSeconds))
                }
                guard configuration.clock() >= due else { return .sleep(until: due) }
                // Batches from here on mark their days again and bring another push.
                state.lastChange = nil
                state.firstChange = nil
                return .done(true)
            }
            guard due else { return }
            let succeeded = push()
            state.withLock { [configuration] state in
                if succeeded {
                    state.retryDelay = max(configuration.debounceSeconds, 1)
                    state.nextRun = configuration.clock().addingTimeInterval(configuration.checkIntervalSeconds)
                } else {
                    // The archive away: the days stay marked; try again sooner than the next check, backing off.
                    state.nextRun = configuration.clock().addingTimeInterval(min(state.retryDelay, configuration.checkIntervalSeconds))
                    state.retryDelay = min(state.retryDelay * 2, configuration.checkIntervalSeconds)
                }
            }
        }
    }

    /// One push (edits first), logged as one line; false when it could not finish.
    private func push() -> Bool {
        let started = Date()
        // On this thread, not the pool's: a pool kept busy by other work (a loaded test process,
        // a server's requests) would otherwise leave the push waiting for its turn for minutes.
        let outcome = Blocking.run { [context, configuration] () async throws -> Pusher.Report in
            do { _ = try await context.applyEdits() } catch {
                configuration.log?(LogLine(.warning, ["edits": .text("agent edits stay queued: \(error)")]).json)
            }
            return try await context.push(check: .daily, priority: configuration.priority)
        }
        let ms = (Date().timeIntervalSince(started) * 1000).rounded()
        switch outcome {
        case let .success(report):
            configuration.log?(LogLine(.info, ["sealed": .object([
                ("sent", .count(report.sent)), ("requests", .count(report.requests)), ("bytes", .count(report.bytes)),
                ("unchanged", .count(report.unchanged)), ("refused", .count(report.refused)),
                ("parked", .count(report.parked)), ("checked", .integer(report.checkedMissing == nil ? 0 : 1)), ("ms", .number(ms)),
            ])]).json)
            return true
        case let .failure(error):
            configuration.log?(LogLine(.warning, ["sealing": .text("the changed days stay marked and go with the next push: \(error)")]).json)
            return false
        }
    }
}
