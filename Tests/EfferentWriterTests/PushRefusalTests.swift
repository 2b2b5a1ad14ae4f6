import EfferentClient
import EfferentCore
import EfferentTestSupport
@testable import EfferentServer
@testable import EfferentWriter
import EfferentSystem
import Foundation
import Testing

/// One bad day never holds the others back, and a day rewritten behind the writer's back comes
/// back: a day too big for the service is parked with its reason before it is sent; a frame the
/// service refuses for what it holds goes again a day at a time, so only the refused day counts an
/// attempt; a captured upload replayed inside the signature window (reverting a day to an older
/// version of the same size) is found by the daily check and the day sent again.
@Suite struct PushRefusalTests {
    static let march = (1...3).map { CalendarDay(year: 2024, month: 3, day: $0)! }

    static func walk(_ day: Int, _ value: Double) -> SourceRecord {
        steps("2024-03-0\(day) 09:00:00", "2024-03-0\(day) 09:10:00", value, source: "Alexandre's iPhone", device: "iPhone")
    }

    @Test func aDayTooBigForTheServiceIsParkedWithItsReasonAndTheOthersGo() async throws {
        let harness = try await WriterHarness(now: Date(timeIntervalSince1970: 1_709_500_000))
        // 300,000 heart-rate readings of random value on March 2 seal to more than 1 MiB.
        var random = SplitMix64(seed: 3)
        let start = instant("2024-03-02 00:00:00")
        let crowded = (0..<300_000).map { index in
            SourceRecord(kind: .quantity, type: "HKQuantityTypeIdentifierHeartRate", source: "Apple Watch", deviceModel: "Watch",
                         start: start + Double(index % 86_000), end: start + Double(index % 86_000),
                         value: 40 + Double(random.next() % 16_000_000) / 100_000, unit: "count/min")
        }
        try harness.importRecords([Self.walk(1, 1000), Self.walk(3, 3000)] + crowded)
        let report = try await harness.pusher().run(check: .never)
        let reason = try #require(report.parkedNow[Self.march[1]])
        #expect(reason.hasPrefix("2024-03-02 seals to ") && reason.hasSuffix("bytes, over the service's 1048576 for one day"))
        #expect(report.sent >= 2 && report.refused == 0)
        let sentFirst = try await harness.archivedEvents(Self.march[0]), sentLast = try await harness.archivedEvents(Self.march[2])
        let parkedDay = try await harness.archivedEvents(Self.march[1])
        #expect(sentFirst != nil && sentLast != nil)
        #expect(parkedDay == nil, "the day the service would refuse was never sent")
        let parked = try harness.store.parkedDaysWithReasons()
        #expect(parked.map(\.day) == [Self.march[1]] && parked.first?.refusal == reason)
    }

    /// Refuses any upload frame that holds `day` with 400 and a sentence; passes the rest on.
    final class RefusesOneDay: HTTPTransport {
        let inner: CurlTransport
        let day: CalendarDay
        init(endpoint: String, day: CalendarDay) {
            inner = CurlTransport(endpoint: endpoint)
            self.day = day
        }
        func send(_ request: ClientRequest) async throws(ArchiveError) -> ClientResponse {
            if request.method == "PUT", request.target.hasSuffix("/days"),
               let days = try? Frame.unpack(request.body, allowingEmpty: false), days.contains(where: { $0.day == day }) {
                return ClientResponse(status: 400, headers: [:], body: Array(#"{"error":"this service will not take \#(day)"}"#.utf8))
            }
            return try await inner.send(request)
        }
    }

    @Test func aFrameRefusedForOneDayGoesAgainADayAtATime() async throws {
        let harness = try await WriterHarness(now: Date(timeIntervalSince1970: 1_709_500_000))
        try harness.importRecords((1...3).map { Self.walk($0, Double($0) * 1000) })
        let client = ArchiveClient(endpoint: harness.service.endpoint, bucket: harness.reading.bucket, retry: .immediate,
                                   transport: RefusesOneDay(endpoint: harness.service.endpoint, day: Self.march[1]))
        let fixed = harness.now
        let pusher = Pusher(store: harness.store, builder: DayBuilder(store: harness.store, hourlyFrom: nil), client: client,
                            reading: harness.reading, writer: harness.writer, now: { fixed })
        let report = try await pusher.run(check: .never)
        #expect(report.refused == 1, "only the refused day counts an attempt")
        let sentFirst = try await harness.archivedEvents(Self.march[0]), sentLast = try await harness.archivedEvents(Self.march[2])
        #expect(sentFirst != nil && sentLast != nil)
        let refused = try #require(try harness.store.ledger(Self.march[1]))
        #expect(refused.attempts == 1 && refused.refusal == "this service will not take 2024-03-02" && refused.dirty)
        #expect(try harness.store.ledger(Self.march[0])?.attempts == 0)
    }

    /// Keeps every upload request that went through, to replay one later.
    final class Recorder: HTTPTransport {
        let inner: CurlTransport
        private let kept = Mutex<[ClientRequest]>([])
        var uploads: [ClientRequest] { kept.withLock { $0 } }
        init(endpoint: String) { inner = CurlTransport(endpoint: endpoint) }
        func send(_ request: ClientRequest) async throws(ArchiveError) -> ClientResponse {
            if request.method == "PUT", request.target.hasSuffix("/days") { kept.withLock { $0.append(request) } }
            return try await inner.send(request)
        }
    }

    @Test func aReplayedUploadIsFoundByTheDailyCheckAndTheDaySentAgain() async throws {
        let harness = try await WriterHarness(now: Date(timeIntervalSince1970: 1_709_500_000))
        let endpoint = harness.service.endpoint
        let recorder = Recorder(endpoint: endpoint)
        let client = ArchiveClient(endpoint: endpoint, bucket: harness.reading.bucket, retry: .immediate, transport: recorder)
        let fixed = harness.now
        func pusher() -> Pusher {
            Pusher(store: harness.store, builder: DayBuilder(store: harness.store, hourlyFrom: nil), client: client,
                   reading: harness.reading, writer: harness.writer, now: { fixed })
        }
        try harness.importRecords([Self.walk(1, 1000)])
        _ = try await pusher().run(check: .never)
        let first = try #require(recorder.uploads.first)
        let before = try #require(try harness.store.ledger(Self.march[0]))
        // The day changes to a version of the same size and goes again.
        try harness.importRecords([Self.walk(1, 2000)])
        _ = try await pusher().run(check: .never)
        let after = try #require(try harness.store.ledger(Self.march[0]))
        #expect(after.bytes == before.bytes, "the two versions seal to the same size, so only the time can tell")
        #expect(after.listed != nil, "the writer kept the listing's time for its own upload")
        // Someone who captured the first upload replays it inside the signature window.
        let replay = try await CurlTransport(endpoint: endpoint).send(first)
        #expect(replay.status == 200)
        let reverted = try await harness.archivedEvents(Self.march[0])?.first { $0.metric == "steps" }?.value
        #expect(reverted == 1000, "the day was reverted")
        let checked = try await pusher().run(check: .always)
        // The replayed frame held the three days the first push sent (March 1 and the empty days
        // through "today"): all three were rewritten behind the writer's back and go again.
        #expect(checked.rewrittenElsewhere == 3 && checked.checkedMissing == 3 && checked.sent == 3, "\(checked)")
        let restored = try await harness.archivedEvents(Self.march[0])?.first { $0.metric == "steps" }?.value
        #expect(restored == 2000, "the day is the writer's again")
    }
}
