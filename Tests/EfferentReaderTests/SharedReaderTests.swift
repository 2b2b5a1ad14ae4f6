import EfferentClient
import EfferentCore
import EfferentTestSupport
import Foundation
@testable import EfferentReader
import Testing

/// The reader's library from two threads at once: answers read the mirror while a sync writes
/// it, as a dashboard will answer while its background sync runs.
@Suite struct SharedReaderTests {
    /// Answers `wanted` only once `go` has fired, holding the range request that asks for it.
    final class HeldRange: HTTPTransport {
        let inner: CurlTransport
        let wanted: String
        let reached = Signal()
        let go = Signal()

        init(endpoint: String, wanted: String) {
            inner = CurlTransport(endpoint: endpoint)
            self.wanted = wanted
        }

        func send(_ request: ClientRequest) async throws(ArchiveError) -> ClientResponse {
            if request.target.contains("/d?from=\(wanted)") {
                reached.fire()
                await go.wait()
            }
            return try await inner.send(request)
        }
    }

    /// Twelve days, a week and more apart so each is its own range. The sync that brings their
    /// new versions is held at the fifth range (asked for only once an earlier one was stored,
    /// while the other ranges go on); an answer on another thread then sees every day either as
    /// it was or as it is now, and the sync finishes as if it had been alone.
    @Test func aSyncAndAnAnswerShareTheReader() async throws {
        let harness = try await ReaderHarness()
        let days = (0..<12).map { day("2025-01-01").adding(days: $0 * 10) }
        try await harness.upload(days.map { ($0, ReaderHarness.handBody($0, steps: 1000)) })
        try harness.profile.prepare()
        try harness.profile.write(KeyFile.readingName, KeyFile.encode(harness.reading))
        try harness.profile.save(ProfileSettings(endpoint: harness.endpoint, bucket: harness.reading.bucket, timeZone: "UTC",
                                                 hourlyFrom: nil, role: "reader"))
        let transport = HeldRange(endpoint: harness.endpoint, wanted: days[4].description)
        let context = try ReaderContext(profile: harness.profile, retry: .immediate, transport: transport)
        transport.go.fire()
        #expect(try await context.sync().fetched == 12)
        #expect(try Self.steps(context).values.allSatisfy { $0 == 1000 })

        // New versions of every day; the next sync is held when it asks for the fifth.
        try await harness.upload(days.map { ($0, ReaderHarness.handBody($0, steps: 2000)) })
        let held = HeldRange(endpoint: harness.endpoint, wanted: days[4].description)
        let shared = try ReaderContext(profile: harness.profile, retry: .immediate, transport: held)
        let sync = Task { try await shared.sync() }
        await held.reached.wait()
        let during = try await Task.detached { try Self.steps(shared) }.value
        held.go.fire()
        let report = try await sync.value

        #expect(during.count == 12, "every day answers while the sync runs")
        #expect(during.values.allSatisfy { $0 == 1000 || $0 == 2000 }, "each day as it was or as it is, never half")
        #expect(during[days[4]] == 1000, "the held day is as it was")
        #expect(during.values.contains(2000), "and a day fetched before it is as it is now")
        #expect(report.fetched == 12 && report.dropped == 0)
        #expect(try Self.steps(shared).values.allSatisfy { $0 == 2000 })
        #expect(try Self.steps(ReaderContext(profile: harness.profile)).values.allSatisfy { $0 == 2000 }, "and the record on disk says so")
    }

    func day(_ text: String) -> CalendarDay { CalendarDay(text)! }

    /// Each mirrored day's step total, as an answer reads it.
    static func steps(_ context: ReaderContext) throws -> [CalendarDay: Double] {
        var totals = [CalendarDay: Double]()
        for event in try context.source.events(from: CalendarDay("2000-01-01")!, through: CalendarDay("2030-01-01")!, metric: "steps") {
            totals[event.day, default: 0] += event.event.value ?? 0
        }
        return totals
    }
}
