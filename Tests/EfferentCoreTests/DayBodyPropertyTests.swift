import Testing
@testable import EfferentCore

/// Properties over seeded random days: the round trip, order independence, and no trap on
/// damaged bytes (protocol §3, decision A.5).
@Suite struct DayBodyPropertyTests {
    @Test func decodeInvertsEncodeAndOrderDoesNotMatter() throws {
        var days = RandomDays(seed: 0x5EED_DA75)
        for index in 0..<2000 {
            let events = days.day()
            let zone: String? = index % 3 == 0 ? "Europe/Berlin" : nil
            let body = DayBody(events: events, timeZone: zone)
            guard case let .columnar(day) = try body.decoded() else { Issue.record("day \(index) is not layout 2"); return }
            #expect(day.timeZone == zone)
            #expect(tally(day.events) == tally(events), "day \(index)")
            #expect(DayBody(events: day.events, timeZone: zone) == body, "day \(index)")
            let shuffled = events.shuffled(using: &days.rng)
            #expect(DayBody(events: shuffled, timeZone: zone) == body, "day \(index)")
            let expanded = day.expandedEvents()
            #expect(Set(expanded.map(\.id)).count == expanded.count, "ids are unique within day \(index)")
        }
    }

    /// Reading only some metrics steps over the others' columns and gives exactly the series a
    /// whole decode has of those metrics, ids numbered the same (decision A.9's readers ask this).
    @Test func aMetricFilterReadsExactlyThoseSeries() throws {
        var days = RandomDays(seed: 0xF17E_12)
        for index in 0..<500 {
            let body = DayBody(events: days.day(), timeZone: "UTC")
            guard case let .columnar(whole) = try body.decoded() else { Issue.record("day \(index) is not layout 2"); return }
            let metrics = Set(whole.series.map(\.key.metric))
            guard let wanted = metrics.sorted().first else { continue }
            guard case let .columnar(some) = try body.decoded(keeping: { $0 == wanted }) else { Issue.record("day \(index)"); return }
            #expect(some.series == whole.series.filter { $0.key.metric == wanted }, "day \(index)")
            #expect(some.expandedEvents().map(\.id) == whole.expandedEvents(metric: wanted).map(\.id), "day \(index)")
            guard case let .columnar(none) = try body.decoded(keeping: { _ in false }) else { Issue.record("day \(index)"); return }
            #expect(none.series.isEmpty && none.timeZone == "UTC")
        }
    }

    @Test func damagedBodiesThrowOrDecodeButNeverTrap() throws {
        var days = RandomDays(seed: 0xBAD_B0D1)
        var outcomes = (decoded: 0, refused: 0)
        let replacements: [UInt8] = [0x00, 0x22, 0x2C, 0x30, 0x39, 0x5B, 0x5D, 0x7B, 0x7D, 0x6E, 0x2D, 0x2E, 0xFF]
        for _ in 0..<12 {
            let bytes = DayBody(events: days.day(maxEvents: 5), timeZone: "UTC").bytes
            var damaged = (0..<bytes.count).map { Array(bytes[..<$0]) }
            for position in bytes.indices {
                var copy = bytes
                copy[position] = replacements[Int.random(in: 0..<replacements.count, using: &days.rng)]
                damaged.append(copy)
                copy.remove(at: position)
                damaged.append(copy)
            }
            for body in damaged {
                do {
                    let decoded = try DayBody(bytes: body).decoded()
                    _ = try? decoded.ndjson(day: CalendarDay("2026-08-07"))
                    outcomes.decoded += 1
                } catch {
                    #expect(!error.description.isEmpty)
                    outcomes.refused += 1
                }
            }
        }
        #expect(outcomes.refused > 0)
        #expect(outcomes.decoded > 0)
    }
}
