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
                configuration.log?(Self.line(["level": .text("warning"), "edits": .text("agent edits stay queued: \(error)")]))
            }
            return try await context.push(check: .daily, priority: configuration.priority)
        }
        let ms = (Date().timeIntervalSince(started) * 1000).rounded()
        switch outcome {
        case let .success(report):
            configuration.log?(Self.line(["sealed": .object([
                ("sent", .number(Double(report.sent))), ("requests", .number(Double(report.requests))), ("bytes", .number(Double(report.bytes))),
                ("unchanged", .number(Double(report.unchanged))), ("refused", .number(Double(report.refused))),
                ("parked", .number(Double(report.parked))), ("checked", .number(report.checkedMissing == nil ? 0 : 1)), ("ms", .number(ms)),
            ])]))
            return true
        case let .failure(error):
            configuration.log?(Self.line(["level": .text("warning"),
                                          "sealing": .text("the changed days stay marked and go with the next push: \(error)")]))
            return false
        }
    }

    /// A log line: the time, then the members in order.
    static func line(_ members: KeyValuePairs<String, LogValue>) -> String {
        LogValue.object([("t", .text(ISOTime.milliseconds(Int64(Date().timeIntervalSince1970 * 1000))))] + members.map { ($0.key, $0.value) }).json
    }
}

/// A JSON value for a log line, members in the order given (Foundation's encoder keeps none).
enum LogValue {
    case text(String)
    case number(Double)
    case object([(String, LogValue)])

    var json: String {
        switch self {
        case let .text(text): AccessLog.jsonString(text)
        case let .number(number): number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        case let .object(members): "{" + members.map { AccessLog.jsonString($0.0) + ":" + $0.1.json }.joined(separator: ",") + "}"
        }
    }
}
