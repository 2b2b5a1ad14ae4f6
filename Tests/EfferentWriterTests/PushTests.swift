import EfferentClient
import EfferentCore
@testable import EfferentServer
@testable import EfferentWriter
import Foundation
import EfferentSystem
import Testing

/// The writer end to end against the real service: days built, sealed, sent, read back through
/// the core and compared with what went in.
@Suite struct PushTests {
    static let june1 = CalendarDay("2024-06-01")!
    static let june2 = CalendarDay("2024-06-02")!

    static var records: [SourceRecord] {
        [
            // The Watch and the iPhone saw the same walk; the iPhone also counted alone later.
            steps("2024-06-01 09:00:00", "2024-06-01 09:10:00", 1000, source: "Alexandre's Apple Watch", device: "Watch"),
            steps("2024-06-01 09:00:00", "2024-06-01 09:20:00", 1500, source: "Alexandre's iPhone", device: "iPhone"),
            steps("2024-06-01 18:00:00", "2024-06-01 18:30:00", 300, source: "Alexandre's iPhone", device: "iPhone"),
            heartRate("2024-06-01 09:05:00", 92),
            heartRate("2024-06-01 09:05:00", 93),
            // A night from the evening of June 1 into June 2 belongs to June 1.
            sleep("2024-06-01 23:30:00", "2024-06-02 01:00:00", "AsleepCore"),
            sleep("2024-06-01 23:00:00", "2024-06-02 07:00:00", "InBed", source: "Alexandre's iPhone"),
            steps("2024-06-02 08:00:00", "2024-06-02 08:05:00", 420, source: "Alexandre's Apple Watch", device: "Watch"),
        ]
    }

    @Test func aFirstPushPutsEveryDayInTheArchiveAndASecondSendsNothing() async throws {
        let harness = try await WriterHarness()
        try harness.importRecords(Self.records)
        let first = try await harness.pusher().run(check: .never)
        #expect(first.sent == first.built && first.sent > 0 && first.refused == 0)

        let day1 = try #require(try await harness.archivedEvents(Self.june1))
        let stepsTotal = day1.first { $0.metric == "steps" && $0.bucket == .day }
        // Watch 1000 for 9:00–9:10; iPhone 1500 over 20 min, half covered → 750; plus 300 alone.
        #expect(stepsTotal?.value == 2050)
        #expect(day1.filter { $0.metric == "heartRate" }.map(\.value) == [92, 93], "records are kept as they are")
        #expect(day1.filter { $0.metric == "sleep" }.compactMap(\.stage).sorted() == ["asleepCore", "inBed"])
        #expect(day1.allSatisfy { $0.bucket != .hour }, "no hour buckets before the writer's first day")
        #expect(try await harness.archivedTimeZone(Self.june1) == "Europe/Berlin")
        let day2 = try #require(try await harness.archivedEvents(Self.june2))
        #expect(day2.first { $0.metric == "steps" && $0.bucket == .day }?.value == 420)
        #expect(day2.allSatisfy { $0.metric != "sleep" }, "the night stays on the evening's day")

        // Every day from the earliest to "today" (2024-06-03 in the harness) is in the archive,
        // the empty third one included.
        let listed = try await harness.client.listing(readKey: harness.reading.readKey)
        #expect(listed.map(\.day) == [Self.june1, Self.june2, Self.june2.next])
        #expect(try await harness.archivedEvents(Self.june2.next) == [])

        let second = try await harness.pusher().run(check: .never)
        #expect(second.sent == 0 && second.requests == 0)
        try harness.importRecords(Self.records)
        let third = try await harness.pusher().run(check: .never)
        #expect(third.sent == 0, "re-importing the same export adds nothing")
        #expect(try harness.store.recordCount() == Self.records.count)
    }

    @Test func aNewerFullExportWithoutARecordDeletesItAndResendsItsDay() async throws {
        let harness = try await WriterHarness()
        try harness.importRecords(Self.records)
        _ = try await harness.pusher().run(check: .never)
        var newer = Self.records
        newer.remove(at: 2)                      // the evening's 300 iPhone steps are gone
        let session = try harness.importRecords(newer)
        #expect(session.removed == 1 && session.added == 0)
        let report = try await harness.pusher().run(check: .never)
        #expect(report.sent >= 1)
        let day1 = try #require(try await harness.archivedEvents(Self.june1))
        #expect(day1.first { $0.metric == "steps" && $0.bucket == .day }?.value == 1750)
        // A partial source (NDJSON events) never deletes.
        let partial = try harness.importRecords([Self.records[0]], full: false)
        #expect(partial.removed == 0)
    }

    @Test func theDailyCheckResendsWhatTheArchiveLost() async throws {
        let harness = try await WriterHarness()
        try harness.importRecords(Self.records)
        _ = try await harness.pusher().run(check: .never)
        // The operator's store loses a day behind the writer's back.
        try harness.serviceStore.write { db in
            try db.statement("DELETE FROM day WHERE day = ?").run([.text(Self.june2.description)])
        }
        let quiet = try await harness.pusher().run(check: .never)
        #expect(quiet.sent == 0, "without the check the ledger believes the archive")
        let checked = try await harness.pusher().run(check: .always)
        #expect(checked.checkedMissing == 1 && checked.sent == 1)
        #expect(try await harness.archivedEvents(Self.june2) != nil)
        #expect(try harness.store.meta("reconcile.lastAt") != nil)
        let daily = try await harness.pusher().run(check: .daily)
        #expect(daily.checkedMissing == nil, "checked at most once a day")
    }

    @Test func refusalsCountAttemptsAndParkAfterFive() async throws {
        let harness = try await WriterHarness()
        try harness.importRecords(Self.records)
        // The operator removed the archive: every upload is refused (403, not claimed).
        _ = try harness.serviceStore.removeBucket(harness.reading.bucket)
        for run in 1...5 {
            await #expect(throws: ArchiveError.self) { try await harness.pusher().run(check: .never) }
            let attempts = try harness.store.ledger(Self.june1)?.attempts
            #expect(attempts == run)
        }
        #expect(try harness.store.parkedDays() == [Self.june1, Self.june2, Self.june2.next])
        #expect(try harness.store.pendingDays().isEmpty)
        // The archive comes back; the daily check un-parks what it lacks.
        try await harness.client.claim(writer: harness.writer, invite: nil)
        let report = try await harness.pusher().run(check: .always)
        #expect(report.sent == 3 && report.parked == 0)
    }

    @Test func aSkewedClockIsLearntFromTheRefusal() async throws {
        let harness = try await WriterHarness(clockSkew: -1000)
        #expect(harness.client.clock.currentOffset > 900, "learnt while claiming")
        try harness.importRecords(Self.records)
        let report = try await harness.pusher().run(check: .never)
        #expect(report.sent == 3)
        #expect(try harness.store.meta("clock.offset").flatMap { Int64($0) } ?? 0 > 900)
    }

    @Test func hourBucketsFromTheWritersFirstDay() async throws {
        let harness = try await WriterHarness()
        try harness.importRecords(Self.records)
        _ = try await harness.pusher(hourlyFrom: Self.june1).run(check: .never)
        let day1 = try #require(try await harness.archivedEvents(Self.june1))
        let hours = day1.filter { $0.metric == "steps" && $0.bucket == .hour }
        #expect(hours.map(\.value) == [1750, 300], "09:00–10:00 holds 1000 + 750; 18:00 holds 300")
        #expect(hours.allSatisfy { $0.end - $0.start == 3600 })
    }

    /// How far a push's building ran ahead of its first upload.
    final class BuildProbe: Sendable {
        let built = Mutex(0)
        let builtAtFirstUpload = Mutex<Int?>(nil)
    }

    /// Notes, at the first upload, how many days the push had built.
    final class FirstUploadProbe: HTTPTransport {
        let inner: CurlTransport
        let probe: BuildProbe
        init(endpoint: String, probe: BuildProbe) {
            inner = CurlTransport(endpoint: endpoint)
            self.probe = probe
        }
        func send(_ request: ClientRequest) async throws(ArchiveError) -> ClientResponse {
            if request.method == "PUT" && request.target.hasSuffix("/days") {
                let built = probe.built.withLock { $0 }
                probe.builtAtFirstUpload.withLock { $0 = $0 ?? built }
            }
            return try await inner.send(request)
        }
    }

    /// Issue 33 item 7: a push that must build many days sends each frame as soon as it is full
    /// (four in flight) rather than building every day first, so a push killed while building has
    /// already recorded what it sent and the next run goes on from there. Before, the first upload
    /// left only after all 401 days were built: a kill in that time kept nothing, however often
    /// the push was run again.
    @Test func aPushSendsItsFirstFramesBeforeItHasBuiltEveryDay() async throws {
        let harness = try await WriterHarness()
        // A reading a day for the 400 days before the harness's "today" (2024-06-03).
        let records = (1...400).map { back in
            SourceRecord(kind: .quantity, type: "HKQuantityTypeIdentifierHeartRate", source: "Apple Watch", deviceModel: "Watch",
                         start: harness.now.timeIntervalSince1970 - Double(back) * 86_400, end: harness.now.timeIntervalSince1970 - Double(back) * 86_400,
                         value: 60, unit: "count/min")
        }
        try harness.importRecords(records)
        let probe = BuildProbe()
        let client = ArchiveClient(endpoint: harness.service.endpoint, bucket: harness.reading.bucket, retry: .immediate,
                                   transport: FirstUploadProbe(endpoint: harness.service.endpoint, probe: probe))
        let fixed = harness.now
        let pusher = Pusher(store: harness.store, builder: DayBuilder(store: harness.store, hourlyFrom: nil), client: client,
                            reading: harness.reading, writer: harness.writer, now: { fixed })
        pusher.onBuilt = { _ in probe.built.withLock { $0 += 1 } }
        let report = try await pusher.run(check: .never)
        #expect(report.built > 400 && report.sent == report.built && report.refused == 0)
        let atFirst = try #require(probe.builtAtFirstUpload.withLock { $0 })
        // The frames in flight, and the day that closed the last of them.
        #expect(atFirst <= Pusher.inFlight * ProtocolLimits.maxDaysPerRequest + 1,
                "\(atFirst) of \(report.built) days were built before the first upload")
        #expect(try harness.store.pendingDays().isEmpty)
    }

    /// Issue 33 item 4, decision A.12: one reading dated 1900 among 20 days of readings costs the
    /// archive its own day, not 45,000 empty ones; the days of the history's own run, empty ones
    /// included, are all there, through today. Before, the push was every day from 1900-01-01.
    @Test func aStrayReadingDatedLongAgoCostsItsOwnDay() async throws {
        let harness = try await WriterHarness()
        var records = [heartRate("1900-01-01 12:00:00", 61)]
        // Every other day from 2024-04-25 to 2024-06-02 (20 days), "today" being 2024-06-03.
        let days = (0..<20).map { CalendarDay("2024-04-25")!.adding(days: 2 * $0) }
        for day in days { records.append(heartRate("\(day) 09:00:00", 70)) }
        try harness.importRecords(records)
        try harness.store.backfill(through: CalendarDay("2024-06-03")!)
        let pending = try harness.store.pendingDays()
        // 1900-01-01, and 2024-04-25 through 2024-06-03 (40 days: 20 with readings, the days between, today).
        try #require(pending.count == 41, "\(pending.count) days pending")
        #expect(pending.contains(CalendarDay("1900-01-01")!) && !pending.contains(CalendarDay("1900-01-02")!))

        let report = try await harness.pusher().run(check: .never)
        #expect(report.sent == 41 && report.refused == 0)
        let listed = try await harness.client.listing(readKey: harness.reading.readKey)
        #expect(listed.count == 41 && listed.first?.day == CalendarDay("1900-01-01"))
        #expect(try await harness.archivedEvents(CalendarDay("2024-05-02")!) == [], "an empty day inside the history's run is there, empty")
        #expect(try await harness.archivedEvents(CalendarDay("1950-06-01")!) == nil, "a day of the long gap is not")
    }
}
