import EfferentClient
import EfferentCore
@testable import EfferentReader
@testable import EfferentServer
import EfferentSystem
import Foundation
import Testing

@Suite struct SyncTests {
    static let days = (0..<200).map { CalendarDay("2023-01-01")!.adding(days: $0) }

    @Test func aFirstSyncMirrorsEveryDayAndASecondTakesOnlyWhatChanged() async throws {
        let harness = try await ReaderHarness()
        try await harness.upload(Self.days.map { ($0, ReaderHarness.handBody($0, steps: 1000 + $0.day)) })
        let mirror = try harness.mirror()
        let first = try await harness.syncer(mirror).run()
        #expect(first.listed == 200 && first.fetched == 200)
        #expect(first.requests == 3, "200 consecutive days are ranges of 92 + 92 + 16")
        let events = try MirrorSource(mirror: try harness.mirror()).events(from: Self.days[0], through: Self.days[0])
        #expect(events.map(\.id) == ["agg:steps:2023-01-01T00:00:00Z:d", "hk:heartRate:2023-01-01T07:00:00Z", "hk:heartRate:2023-01-01T07:05:00Z",
                                     "hk:heartRate:2023-01-01T07:10:00Z"])
        #expect(events.first?.event.value == 1001 && events.first?.timeZone == "Europe/Berlin")

        let second = try await harness.syncer(try harness.mirror()).run()
        #expect(second.fetched == 0 && second.requests == 0, "a no-change sync is one listing walk")

        // The writer rewrites two days: exactly those come again.
        try await harness.upload([(Self.days[10], ReaderHarness.handBody(Self.days[10], steps: 5)),
                                  (Self.days[150], ReaderHarness.handBody(Self.days[150], steps: 6))])
        let third = try await harness.syncer(try harness.mirror()).run()
        #expect(third.fetched == 2 && third.requests == 2)
        let changed = try MirrorSource(mirror: try harness.mirror()).events(from: Self.days[10], through: Self.days[10])
        #expect(changed.first?.event.value == 5)
    }

    /// Fails every request after the first `allowed`, like a service that stops mid-sync.
    final class StopsAfter: HTTPTransport {
        let inner: CurlTransport
        let allowed: Mutex<Int>
        init(endpoint: String, allowed: Int) {
            inner = CurlTransport(endpoint: endpoint)
            self.allowed = Mutex(allowed)
        }
        func send(_ request: ClientRequest) async throws(ArchiveError) -> ClientResponse {
            let permitted = allowed.withLock { allowed -> Bool in
                allowed -= 1
                return allowed >= 0
            }
            guard permitted else { throw .unreachable(endpoint: "test", reason: "the service stopped") }
            return try await inner.send(request)
        }
    }

    @Test(arguments: [1, 2, 3])
    func anInterruptedSyncKeepsWhatItWroteAndConverges(allowed: Int) async throws {
        let harness = try await ReaderHarness()
        try await harness.upload(Self.days.map { ($0, ReaderHarness.handBody($0, steps: $0.day)) })
        let mirror = try harness.mirror()
        await #expect(throws: ArchiveError.self) {
            try await harness.syncer(mirror, transport: StopsAfter(endpoint: harness.endpoint, allowed: allowed)).run()
        }
        let kept = try harness.mirror()
        for day in kept.days { #expect(try kept.body(day) != nil, "nothing recorded as mirrored that was not written") }
        let before = kept.days.count
        let rerun = try await harness.syncer(kept).run()
        #expect(rerun.fetched + before == 200)
        #expect(try harness.mirror().days == Self.days)
    }

    /// Takes one day out of every range answer, like a service that lists a day it then fails to return.
    final class DropsADay: HTTPTransport {
        let inner: CurlTransport
        let dropped: CalendarDay
        init(endpoint: String, dropping day: CalendarDay) {
            inner = CurlTransport(endpoint: endpoint)
            dropped = day
        }
        func send(_ request: ClientRequest) async throws(ArchiveError) -> ClientResponse {
            var response = try await inner.send(request)
            guard request.target.contains("/d?"), response.status == 200,
                  let days = try? Frame.unpack(response.body, allowingEmpty: true), days.contains(where: { $0.day == dropped }) else {
                return response
            }
            response.body = (try? Frame.pack(days.filter { $0.day != dropped })) ?? []
            return response
        }
    }

    @Test func aListedDayTheRangeLeavesOutIsNamedAndTheRestIsKept() async throws {
        let harness = try await ReaderHarness()
        let ten = Array(Self.days.prefix(10))
        try await harness.upload(ten.map { ($0, ReaderHarness.handBody($0, steps: 1)) })
        let mirror = try harness.mirror()
        await #expect(throws: MirrorError.notReturned(ten[3])) {
            try await harness.syncer(mirror, transport: DropsADay(endpoint: harness.endpoint, dropping: ten[3])).run()
        }
        let kept = try harness.mirror()
        #expect(kept.days == ten.filter { $0 != ten[3] }, "the days that came are kept")
        let rerun = try await harness.syncer(kept).run()
        #expect(rerun.fetched == 1 && rerun.requests == 1, "the next sync asks only for the day that was missing")
        #expect(try harness.mirror().days == ten)
    }

    @Test func aDayThatDoesNotOpenIsNamedAndNotMirrored() async throws {
        let harness = try await ReaderHarness()
        try await harness.upload(Self.days.prefix(5).map { ($0, ReaderHarness.handBody($0, steps: 1)) })
        // Tamper with one stored day on the service.
        try harness.serviceStore.write { db in
            try db.statement("UPDATE day SET sealed = ? WHERE day = ?").run([.blob([2] + [UInt8](repeating: 9, count: 80)),
                                                                               .text(Self.days[2].description)])
        }
        let mirror = try harness.mirror()
        await #expect(throws: MirrorError.dayDoesNotOpen(Self.days[2], "")) {
            do { _ = try await harness.syncer(mirror).run() } catch let error as MirrorError {
                if case let .dayDoesNotOpen(day, _) = error { throw MirrorError.dayDoesNotOpen(day, "") }
                throw error
            }
        }
        #expect(try harness.mirror().uploaded[Self.days[2]] == nil)
    }

    /// Answers every listing page with no days, like a service that lost its archive or lies.
    final class EmptyListing: HTTPTransport {
        let inner: CurlTransport
        init(endpoint: String) { inner = CurlTransport(endpoint: endpoint) }
        func send(_ request: ClientRequest) async throws(ArchiveError) -> ClientResponse {
            var response = try await inner.send(request)
            if request.target.contains("/days"), response.status == 200 { response.body = Array(#"{"days":[],"next":null}"#.utf8) }
            return response
        }
    }

    /// One listing that leaves out every day once emptied the mirror's index, and answers went
    /// empty; now the days stay until the reader accepts their removal.
    @Test func aListingThatDropsDaysDoesNotEmptyTheMirror() async throws {
        let harness = try await ReaderHarness()
        try await harness.upload(Self.days.map { ($0, ReaderHarness.handBody($0, steps: 1)) })
        _ = try await harness.syncer(try harness.mirror()).run()
        let emptied = try await harness.syncer(try harness.mirror(), transport: EmptyListing(endpoint: harness.endpoint)).run()
        #expect(emptied.unlisted == Self.days && emptied.dropped == 0 && emptied.fetched == 0)
        #expect(try harness.mirror().days == Self.days, "the mirror keeps every day")
        let events = try MirrorSource(mirror: try harness.mirror()).events(from: Self.days[0], through: Self.days[199])
        #expect(events.count == 200 * 4, "offline answers still see every day")
        let accepted = try await harness.syncer(try harness.mirror(), transport: EmptyListing(endpoint: harness.endpoint))
            .run(acceptRemovals: true)
        #expect(accepted.dropped == 200 && accepted.unlisted.isEmpty)
        #expect(try harness.mirror().days.isEmpty)
        // Forgetting forgets: no opened day is left in the mirror's folder.
        let folder = harness.profile.path(Mirror.directoryName)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    /// Files a forgetting once left behind (before it deleted them), and any other file of a day
    /// the mirror does not record, go at the next sync that accepts removals; recorded days stay.
    @Test func acceptingRemovalsSweepsFilesOfDaysNoLongerRecorded() async throws {
        let harness = try await ReaderHarness()
        try await harness.upload(Self.days.prefix(3).map { ($0, ReaderHarness.handBody($0, steps: 1)) })
        _ = try await harness.syncer(try harness.mirror()).run()
        let folder = harness.profile.path(Mirror.directoryName)
        let stray = folder + "/2001-01-01.json"
        #expect(FileManager.default.createFile(atPath: stray, contents: Data("{}".utf8)))
        let kept = try await harness.syncer(try harness.mirror()).run()
        #expect(kept.sweptFiles == 0 && FileManager.default.fileExists(atPath: stray), "only a sync that accepts removals deletes")
        let swept = try await harness.syncer(try harness.mirror()).run(acceptRemovals: true)
        #expect(swept.sweptFiles == 1 && swept.dropped == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == Self.days.prefix(3).map { "\($0).json" })
    }

    /// Fails one range request of many while the others are in flight, each after a pause.
    final class FailsOneRange: HTTPTransport {
        let inner: CurlTransport
        let failing: String
        init(endpoint: String, failing: CalendarDay) {
            inner = CurlTransport(endpoint: endpoint)
            self.failing = "from=\(failing)"
        }
        func send(_ request: ClientRequest) async throws(ArchiveError) -> ClientResponse {
            if request.target.contains(failing) { throw .unexpectedAnswer("a range answer that is not a frame") }
            if request.target.contains("/d?") {
                do { try await Task.sleep(nanoseconds: 2_000_000) } catch { throw .cancelled }
            }
            return try await inner.send(request)
        }
    }

    /// The cancellation path of the concurrent fetch: one range fails while up to three others are
    /// in flight. It once deadlocked (18 of 60 runs) or trapped; every run must end with the error.
    @Test func aRangeThatFailsEndsEverySyncCleanly() async throws {
        let harness = try await ReaderHarness()
        // Days ten apart: each its own range, so a sync makes 30 range requests, four at a time.
        let spread = (0..<30).map { CalendarDay("2023-01-01")!.adding(days: $0 * 10) }
        try await harness.upload(spread.map { ($0, ReaderHarness.handBody($0, steps: 1)) })
        for run in 0..<100 {
            // A mirror of its own each run, so every run asks for the failing range.
            let fresh = try Mirror(profile: Profile(directory: harness.directory + "/run-\(run)"), endpoint: harness.endpoint)
            let failing = spread[5 + run % 20]
            await #expect(throws: ArchiveError.unexpectedAnswer("a range answer that is not a frame"), "run \(run)") {
                try await harness.syncer(fresh, transport: FailsOneRange(endpoint: harness.endpoint, failing: failing)).run()
            }
            #expect(!fresh.days.contains(failing), "run \(run)")
        }
        let rerun = try await harness.syncer(try harness.mirror()).run()
        let mirrored = try harness.mirror().days
        #expect(rerun.fetched == 30 && mirrored == spread, "a clean sync afterwards completes the mirror")
    }

    @Test func spansFollowTheReferenceRule() {
        let start = CalendarDay("2024-01-01")!
        let wanted = [0, 1, 2, 9, 17, 30, 91, 92, 200].map { start.adding(days: $0) }
        let spans = Syncer.spans(wanted)
        #expect(spans.map { $0.from.daysSinceEpoch - start.daysSinceEpoch } == [0, 17, 30, 91, 200])
        #expect(spans.map { $0.to.daysSinceEpoch - start.daysSinceEpoch } == [9, 17, 30, 92, 200])
    }
}
