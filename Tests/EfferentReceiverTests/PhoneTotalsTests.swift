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
}
