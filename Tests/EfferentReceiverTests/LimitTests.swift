import EfferentCore
import EfferentHTTP
@testable import EfferentReceiver
import EfferentSQLite
import EfferentTestSupport
@testable import EfferentWriter
import Foundation
import Testing

/// The limits of §2.5 answered 413 (the app does not retry it), the inflated ceiling enforced while
/// inflating, and a store that cannot take a batch just now answered 503 with Retry-After — never
/// a 4xx, which would stall the app on a batch that is fine (§7.2).
@Suite struct LimitTests {
    /// Small limits, so each is passed with a small batch.
    static var small: PulsLimits {
        var limits = PulsLimits()
        limits.inflatedBytes = 64 << 10
        limits.lineBytes = 8 << 10
        limits.linesPerKind = 20
        limits.linesPerBatch = 30
        limits.pointsPerLine = 5
        limits.pointsPerBatch = 8
        return limits
    }

    static func route(points: Int, workout: String = Lines.workoutUUID) -> String {
        let list = (0..<points).map { "{\"t\":\(1_718_000_001_000 + $0 * 1000),\"lat\":37.3,\"lon\":-122.0}" }.joined(separator: ",")
        return "{\"route\":{\"workoutUUID\":\"\(workout)\",\"points\":[\(list)]}}"
    }

    @Test func overTheLimitsIs413() async throws {
        let harness = try await ReceiverHarness(limits: Self.small)
        func refused(_ ndjson: String, plain: Bool = false) throws -> String {
            let answer = try harness.post(ndjson, gzip: !plain)
            #expect(answer.status == 413, "\(answer.body)")
            return answer.error ?? ""
        }
        // A bomb: a few KiB on the wire, far more inflated; stopped while inflating.
        let padding = String(repeating: " ", count: 1 << 20)
        let bomb = try gzipped(Array((PulsBatchText.batch(samples: [Lines.quantity]) + padding).utf8))
        #expect(bomb.count < 8 << 10)
        let inflated = ReceiverHarness.Answer(harness.receiver.respond(to: HTTPRequest(method: "POST", target: "/v1/batches",
            headers: ["Authorization": "Bearer \(harness.token)", "Content-Encoding": "gzip"], body: bomb)))
        // Inflated output reaches the batch reader 64 KiB at a time, so whichever ceiling a piece
        // passes first refuses it: here the 8 KiB line, within the first piece.
        #expect(inflated.status == 413 && (inflated.error?.contains("once inflated") == true || inflated.error?.contains("longer than") == true),
                "\(inflated.body)")
        #expect(try refused(PulsBatchText.batch(samples: [Lines.quantity]) + padding, plain: true).contains("once inflated"),
                "the ceiling holds for a plain body too")
        let long = Lines.edited(Lines.quantity) { $0["sourceName"] = .string(String(repeating: "x", count: 9000)) }
        #expect(try refused(PulsBatchText.batch(samples: [long])).contains("longer than"))
        let many = Lines.editedHeader(PulsBatchText.batch()) { $0["sampleCount"] = .number(21) }
        #expect(try refused(many).contains("\"sampleCount\" is over"))
        let all = Lines.editedHeader(PulsBatchText.batch()) {
            $0["sampleCount"] = .number(20)
            $0["deletionCount"] = .number(11)
        }
        #expect(try refused(all).contains("add up to more than"))
        #expect(try refused(PulsBatchText.batch(routes: [Self.route(points: 6)])).contains("more than 5 points in one line"))
        #expect(try refused(PulsBatchText.batch(routes: [Self.route(points: 5), Self.route(points: 5)])).contains("more than 8 route points"))
        #expect(try harness.store.recordCount() == 0)
        #expect(try harness.post(PulsBatchText.batch(routes: [Self.route(points: 5)])).status == 200, "at the limits is fine")
    }

    /// The protocol's own limits: 4,000 points a line, 100,000 a batch, 100,000 lines of a kind.
    @Test func theDefaultLimitsAreTheSpecs() {
        let limits = PulsLimits()
        #expect(limits.inflatedBytes == 128 << 20 && limits.lineBytes == 4 << 20 && limits.linesPerKind == 100_000)
        #expect(limits.linesPerBatch == 200_000 && limits.pointsPerLine == 4_000 && limits.pointsPerBatch == 100_000)
        #expect(ReceiverHandlers.bodyBytes == 256 << 20)
    }

    /// Another process holds the writer's store (an `efferent import` in its transaction): the batch
    /// is a 503 with Retry-After, nothing of it is stored, and the same batch sent again once the
    /// store is free lands once.
    @Test func aBusyStoreIs503AndTheRetryLandsOnce() async throws {
        let harness = try await ReceiverHarness()
        harness.store.serialized { harness.store.db.setBusyTimeout(milliseconds: 50) }
        let other = try SQLiteConnection(path: harness.store.path)
        let batch = PulsBatchText.batch(samples: [Lines.quantity, Lines.category])
        let answer = try other.write { try harness.post(batch) }
        #expect(answer.status == 503 && answer.header("Retry-After") == "5", "\(answer.body)")
        #expect(answer.error?.contains("try again") == true)
        // The store could not note it either (it was held): the log has it.
        #expect(harness.log.all.contains { $0.contains("\"batch\":{\"status\":503") })
        let retried = try harness.post(batch)
        #expect(retried.status == 200 && retried.count("accepted") == 2)
        #expect(try harness.post(batch).count("duplicates") == 2)
        #expect(try harness.phones.phoneStats().reduce(0) { $0 + $1.rows } == 2)
    }

    /// A full disk (here: the store allowed no page beyond those it has) is no fault of the
    /// batch: 503 with Retry-After, nothing stored, and once there is room the retry lands whole.
    @Test func aFullDiskIs503AndTheRetryLandsWhole() async throws {
        let harness = try await ReceiverHarness()
        #expect(try harness.post(PulsBatchText.batch(type: "probe", reason: "manual")).status == 200)
        let pages = try harness.store.serialized {
            try harness.store.db.statement("PRAGMA page_count").first { $0.int64(0) } ?? 0
        }
        try harness.store.serialized { try harness.store.db.execute("PRAGMA max_page_count = \(pages)") }
        let samples = (0..<400).map { index in
            PulsBatchText.quantity(type: "HKQuantityTypeIdentifierStepCount", start: 1_718_000_000_000 + Double(index) * 60_000,
                                   end: 1_718_000_030_000 + Double(index) * 60_000, value: 10, unit: "count")
        }
        let batch = PulsBatchText.batch(samples: samples)
        let full = try harness.post(batch)
        #expect(full.status == 503 && full.header("Retry-After") == "5", "\(full.body)")
        #expect(try harness.store.recordCount() == 0 && harness.phones.phoneStats().isEmpty)
        try harness.store.serialized { try harness.store.db.execute("PRAGMA max_page_count = 1073741823") }
        let retried = try harness.post(batch)
        #expect(retried.status == 200 && retried.count("accepted") == 400, "\(retried.body)")
        #expect(try harness.store.recordCount() == 400)
    }

    /// A receiver started on a full disk (here: a store allowed no page beyond those it has, and
    /// those full) starts, and answers 503 with Retry-After until there is room: under systemd a
    /// receiver that failed to start would restart in a loop, and the phone would learn nothing.
    @Test func aReceiverStartsOnAFullDiskAndAnswers503UntilThereIsRoom() async throws {
        let harness = try await ReceiverHarness(beforeReceiving: { store in
            try store.serialized {
                let pages = try store.db.statement("PRAGMA page_count").first { $0.int64(0) } ?? 0
                try store.db.execute("PRAGMA max_page_count = \(pages)")
                // Rows of the table a receiver writes first, until the store has no room for another.
                let filler = try store.db.statement("INSERT INTO import_run (source, format, full, started) VALUES ('filler', 'filler', 0, 0)")
                var full = false
                for _ in 0..<1_000_000 where !full {
                    do { try filler.run([]) } catch let error as SQLiteError where error.code == 13 { full = true }
                }
                #expect(full, "the store never filled")
            }
        })
        let batch = PulsBatchText.batch(samples: [PulsBatchText.quantity(type: "HKQuantityTypeIdentifierStepCount", start: 1_718_000_000_000,
                                                                          end: 1_718_000_030_000, value: 10, unit: "count")])
        let full = try harness.post(batch)
        #expect(full.status == 503 && full.header("Retry-After") == "5", "\(full.body)")
        try harness.store.serialized { try harness.store.db.execute("PRAGMA max_page_count = 1073741823") }
        let retried = try harness.post(batch)
        #expect(retried.status == 200 && retried.count("accepted") == 1, "\(retried.body)")
        #expect(try harness.store.recordCount() == 1)
    }
}
