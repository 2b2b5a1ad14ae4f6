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
final class SealScheduler: @unchecked Sendable {
    private let context: WriterContext
    private let configuration: ReceiverConfiguration
    private let condition = NSCondition()
    private var lastChange: Date?
    private var firstChange: Date?
    private var nextRun: Date
    private var retryDelay: Double
    private var stopped = false
    private var thread: Thread?
    private let finished = DispatchSemaphore(value: 0)
    /// Pushes finished (tests and the bench wait on the store, not on this).
    private(set) var runs = 0

    init(context: WriterContext, configuration: ReceiverConfiguration) {
        self.context = context
        self.configuration = configuration
        // The first run comes at once: days a previous run left marked go now.
        nextRun = configuration.clock()
        retryDelay = max(configuration.debounceSeconds, 1)
    }

    /// A batch changed days: sealing waits for the debounce to pass without another.
    func changed() {
        condition.withLock {
            let now = configuration.clock()
            lastChange = now
            if firstChange == nil { firstChange = now }
            condition.signal()
        }
    }

    func start() {
        let thread = Thread { [self] in
            loop()
            finished.signal()
        }
        thread.name = "efferent.receive.seal"
        self.thread = thread
        thread.start()
    }

    /// Stops after any push under way; days still marked go with the next start's first push.
    func stop() {
        let running = condition.withLock {
            stopped = true
            condition.signal()
            return thread != nil
        }
        if running { finished.wait() }
    }

    private func loop() {
        condition.lock()
        while !stopped {
            let now = configuration.clock()
            var due = nextRun
            if let last = lastChange, let first = firstChange {
                due = min(due, last.addingTimeInterval(configuration.debounceSeconds), first.addingTimeInterval(configuration.longestWaitSeconds))
            }
            guard now >= due else {
                _ = condition.wait(until: due)
                continue
            }
            // Batches from here on mark their days again and bring another push.
            lastChange = nil
            firstChange = nil
            condition.unlock()
            let succeeded = push()
            condition.lock()
            runs += 1
            if succeeded {
                retryDelay = max(configuration.debounceSeconds, 1)
                nextRun = configuration.clock().addingTimeInterval(configuration.checkIntervalSeconds)
            } else {
                // The archive away: the days stay marked; try again sooner than the next check, backing off.
                nextRun = configuration.clock().addingTimeInterval(min(retryDelay, configuration.checkIntervalSeconds))
                retryDelay = min(retryDelay * 2, configuration.checkIntervalSeconds)
            }
        }
        condition.unlock()
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
