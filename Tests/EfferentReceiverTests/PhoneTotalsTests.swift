import EfferentCore
@testable import EfferentReceiver
import EfferentTestSupport
@testable import EfferentWriter
import Foundation
import Testing

/// HealthKit's own sums (aggregate lines: `sum`, `deviceFilter` `all`, one hour or one day) are the
/// archive's totals where they fit the writer's days and hours; elsewhere raw samples decide.
@Suite struct PhoneTotalsTests {
    static let steps = "HKQuantityTypeIdentifierStepCount"
    /// 2024-06-10T00:00:00Z.
    static let day = 1_717_977_600_000.0
    static let hour = 3_600_000.0

    func totals(_ harness: ReceiverHarness, _ day: String) throws -> (day: Double?, hours: [Int: Double]) {
        let events = try DayBuilder(store: harness.store, hourlyFrom: CalendarDay("2024-01-01")).events(for: CalendarDay(day)!)
        let start = CalendarDay(day)!.startUnixSeconds
        var hours = [Int: Double]()
        for event in events where event.metric == "steps" && event.bucket == .hour { hours[Int((event.start - start) / 3600)] = event.value }
        return (events.first { $0.metric == "steps" && $0.bucket == .day }?.value, hours)
    }

    func raw(_ start: Double, _ value: Double) -> String {
        PulsBatchText.quantity(type: Self.steps, start: start, end: start + 600_000, value: value, unit: "count", source: "Anna's iPhone", device: "iPhone")
    }

    func bucket(_ unit: String, _ start: Double, _ value: Double?, filter: String = "all", function: String = "sum") -> String {
        PulsBatchText.aggregate(type: Self.steps, function: function, unit: unit, filter: filter, start: start,
                                end: start + (unit == "day" ? 86_400_000 : Self.hour), value: value, valueUnit: "count")
    }

    @Test func aggregatesStandForTotalsWhereTheyFit() async throws {
        let harness = try await ReceiverHarness(zone: "UTC")
        let d0 = Self.day, d1 = Self.day + 86_400_000, d2 = Self.day + 2 * 86_400_000, d3 = Self.day + 3 * 86_400_000
        let samples = [raw(d0 + 10 * Self.hour, 1000), raw(d2 + 12 * Self.hour, 300), raw(d3 + 5 * Self.hour, 40)]
        var buckets = [bucket("day", d0, 5000)]
        // Day 1: every hour sent, one of them empty: the day is their sum.
        buckets += (0..<24).map { bucket("hour", d1 + Double($0) * Self.hour, $0 == 3 ? nil : 100) }
        // Day 2: one hour only: that hour is HealthKit's, the rest and the day come from raw samples.
        buckets.append(bucket("hour", d2 + 10 * Self.hour, 700))
        // Day 3: nothing that fits — another device filter, another statistic, a day starting an hour late, an empty day.
        buckets += [bucket("day", d3, 9999, filter: "watch"), bucket("day", d3, 9999, function: "average"), bucket("day", d3 + Self.hour, 9999)]
        let answer = try harness.post(PulsBatchText.batch(samples: samples, aggregates: buckets))
        #expect(answer.status == 200 && answer.count("aggregateSamples") == buckets.count)

        let first = try totals(harness, "2024-06-10")
        #expect(first.day == 5000 && first.hours == [10: 1000], "a day bucket is the day; hours without buckets are raw")
        let second = try totals(harness, "2024-06-11")
        #expect(second.day == 2300 && second.hours.count == 23 && second.hours[3] == nil)
        let third = try totals(harness, "2024-06-12")
        #expect(third.day == 300 && third.hours == [10: 700, 12: 300])
        let fourth = try totals(harness, "2024-06-13")
        #expect(fourth.day == 40 && fourth.hours == [5: 40])

        // An empty day bucket (a recompute found nothing): no total, whatever raw samples say (§4.5).
        #expect(try harness.post(PulsBatchText.batch(aggregates: [bucket("day", d3, nil)])).status == 200)
        #expect(try totals(harness, "2024-06-13").day == nil)
        // A later line for the same bucket replaces it (§6.4).
        #expect(try harness.post(PulsBatchText.batch(aggregates: [bucket("day", d0, 5100)])).status == 200)
        #expect(try totals(harness, "2024-06-10").day == 5100)
        #expect(try harness.store.pendingDays().map(\.description).contains("2024-06-13"), "a bucket that is a total marks its day")
    }

    // MARK: Stale buckets (issue 28 item 2)

    func raw(_ start: Double, _ value: Double, uuid: String) -> String {
        PulsBatchText.quantity(uuid: uuid, type: Self.steps, start: start, end: start + 600_000, value: value, unit: "count",
                               source: "Anna's iPhone", device: "iPhone")
    }

    /// The spec's own deletion fixture (05-deletions, verbatim) removes the sample with UUID
    /// 5D2A9C1E-…; here that UUID is a step sample a day bucket and an hour bucket counted. The
    /// buckets whose span held it stop standing for totals — the day falls back to its raw samples,
    /// the hour to none — while an hour bucket the deletion did not touch still stands; a fresh
    /// bucket from the phone stands again. Before, the day kept HealthKit's old figure.
    @Test func theSpecsDeletionMakesTheBucketsCoveringItStale() async throws {
        let harness = try await ReceiverHarness(zone: "UTC")
        let d0 = Self.day
        let deleted = "5D2A9C1E-7B3F-4E8A-9C6D-1F0E2B3A4C5D"
        let first = try harness.post(PulsBatchText.batch(
            samples: [raw(d0 + 10 * Self.hour, 324, uuid: deleted), raw(d0 + 11 * Self.hour, 1000)],
            aggregates: [bucket("day", d0, 1324), bucket("hour", d0 + 10 * Self.hour, 324), bucket("hour", d0 + 11 * Self.hour, 1000)]))
        #expect(first.status == 200)
        #expect(try totals(harness, "2024-06-10").day == 1324)

        let fixture = try #require(PulsCorpus.fixtures.first { $0.name == "05-deletions" })
        let answer = try harness.post(fixture.ndjson)
        #expect(answer.status == 200 && answer.count("deleted") == 1)
        let after = try totals(harness, "2024-06-10")
        #expect(after.day == 1000, "the day bucket covered the deleted sample: the raw samples decide")
        #expect(after.hours == [11: 1000], "hour 10's bucket is stale and no sample is left in it; hour 11's still stands")
        #expect(try harness.store.pendingDays().map(\.description).contains("2024-06-10"))

        // The phone's next recompute sends the day afresh: HealthKit's figure stands again.
        #expect(try harness.post(PulsBatchText.batch(aggregates: [bucket("day", d0, 1001)])).status == 200)
        #expect(try totals(harness, "2024-06-10").day == 1001)
    }

    /// A sample arriving after the bucket that covers its time makes that bucket stale; one sent in
    /// the same batch as the bucket is in it (the phone computed the bucket with it).
    @Test func anInsertionAfterTheBucketMakesItStale() async throws {
        let harness = try await ReceiverHarness(zone: "UTC")
        let d0 = Self.day, d1 = Self.day + 86_400_000
        #expect(try harness.post(PulsBatchText.batch(samples: [raw(d0 + 8 * Self.hour, 500), raw(d1 + 8 * Self.hour, 500)],
                                                     aggregates: [bucket("day", d0, 520), bucket("day", d1, 520)])).status == 200)
        #expect(try totals(harness, "2024-06-10").day == 520 && totals(harness, "2024-06-11").day == 520)
        #expect(try harness.post(PulsBatchText.batch(samples: [raw(d0 + 20 * Self.hour, 70)])).status == 200)
        #expect(try totals(harness, "2024-06-10").day == 570, "raw samples decide the day the insertion fell in")
        #expect(try totals(harness, "2024-06-11").day == 520, "the next day's bucket still stands")
    }

    /// A backfill of old days, each with HealthKit's day bucket, then a later batch deleting
    /// samples inside four of the five days (the simulated app's `"deleted": 24` case of issue
    /// 28): those four days' totals are the raw samples left, the fifth keeps its bucket.
    @Test func aBackfillThatDeletesInsideOldDaysFallsBackToRawSamples() async throws {
        let harness = try await ReceiverHarness(zone: "UTC")
        // 2016-04-10T00:00:00Z
        let first = 1_460_246_400_000.0
        var samples = [String](), buckets = [String](), doomed = [String]()
        for index in 0..<5 {
            let day = first + Double(index) * 86_400_000
            for hour in [7, 9, 13, 18, 21] {
                let uuid = UUID().uuidString
                samples.append(raw(day + Double(hour) * Self.hour, 1000 + Double(hour), uuid: uuid))
                if index < 4, hour == 13 || hour == 21 { doomed.append(uuid) }
            }
            // HealthKit's figure a little off the raw sum, as it is when it de-duplicates sources.
            buckets.append(bucket("day", day, 5068 + 0.5))
        }
        #expect(try harness.post(PulsBatchText.batch(samples: samples, aggregates: buckets)).status == 200)
        for index in 0..<5 {
            #expect(try totals(harness, "2016-04-1\(index)").day == 5068.5)
        }
        let deletion = try harness.post(PulsBatchText.batch(deletions: doomed.map { PulsBatchText.deletion(uuid: $0, type: Self.steps) }))
        #expect(deletion.status == 200 && deletion.count("deleted") == 8)
        for index in 0..<4 {
            #expect(try totals(harness, "2016-04-1\(index)").day == 1007 + 1009 + 1018, "2016-04-1\(index)")
        }
        #expect(try totals(harness, "2016-04-14").day == 5068.5, "nothing inside the fifth day changed")
        #expect(try Set(harness.store.pendingDays().map(\.description)).isSuperset(of: (0..<4).map { "2016-04-1\($0)" }))
    }

    /// The rule holds whichever door changes a total: an export's record added inside a bucket,
    /// and a newer full export's removal of a record inside another, make those buckets stale.
    @Test func anImportThatChangesATotalInsideABucketMakesItStale() async throws {
        let harness = try await ReceiverHarness(zone: "UTC")
        let d0 = Self.day / 1000, d1 = d0 + 86_400
        func record(_ start: Double, _ value: Double) -> SourceRecord {
            SourceRecord(kind: .quantity, type: Self.steps, source: "Anna's iPhone", deviceModel: "iPhone", start: start, end: start + 600,
                         value: value, unit: "count")
        }
        func importing(_ records: [SourceRecord], full: Bool) throws {
            let session = try harness.store.beginImport(source: "export.xml", format: "apple-xml", full: full)
            for entry in records { try session.record(entry) }
            try session.finish()
        }
        let exported = [record(d0 + 9 * 3600, 100), record(d1 + 9 * 3600, 200), record(d1 + 15 * 3600, 50), record(d1 + 20 * 3600, 30)]
        try importing(exported, full: true)
        #expect(try harness.post(PulsBatchText.batch(aggregates: [bucket("day", d0 * 1000, 101), bucket("day", d1 * 1000, 281)])).status == 200)
        #expect(try totals(harness, "2024-06-10").day == 101 && totals(harness, "2024-06-11").day == 281)

        try importing([record(d0 + 20 * 3600, 7)], full: false)
        #expect(try totals(harness, "2024-06-10").day == 107, "an added record: the raw samples decide")
        #expect(try totals(harness, "2024-06-11").day == 281)
        try importing([exported[0], exported[1], exported[3]], full: true)
        #expect(try totals(harness, "2024-06-11").day == 230, "a record the newer export no longer holds: the raw samples decide")
    }
}
