import EfferentTestSupport
import Foundation
import Testing
@testable import EfferentCore

/// The visitor form of expansion gives exactly the events of the array form, and an id built
/// straight into its string has the bytes the writer's path gives (protocol §3.2 rules 2–4).
@Suite struct ExpansionVisitorTests {
    /// The id as the writer's path spells it (what `id` built before it wrote into the string).
    func writtenID(_ event: ExpandedEvent) -> String {
        var writer = JSONWriter()
        event.writeID(into: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    func visited(_ day: ColumnarDay, matching: ((String) -> Bool)? = nil) -> [ExpandedEvent] {
        var out = [ExpandedEvent]()
        day.forEachExpanded(matching: matching) { out.append($0) }
        return out
    }

    @Test func visitorGivesTheArrayFormsEventsAndIds() throws {
        var days = RandomDays(seed: 0x7157_70E5)
        for index in 0..<500 {
            guard case let .columnar(day) = try DayBody(events: days.day(), timeZone: nil).decoded() else { Issue.record("day \(index)"); return }
            let array = day.expandedEvents(), seen = visited(day)
            #expect(seen.map(\.id) == array.map(\.id), "day \(index)")
            #expect(seen.map(\.event) == array.map(\.event), "day \(index)")
            #expect(array.map(\.id) == array.map(writtenID), "day \(index)")
            let wanted = day.series.first?.key.metric
            #expect(visited(day, matching: { $0 == wanted }).map(\.id) == day.expandedEvents(metric: wanted).map(\.id), "day \(index)")
        }
    }

    /// Duplicates past nine (two-digit `#n`), in both kinds and both buckets, numbered alike by
    /// both forms and spelled as the writer spells them.
    @Test func duplicatesAreNumberedAlike() throws {
        let records = try (0..<12).map { try event(.record, "heartRate", source: "W", start: 7200, end: 7200, value: Double($0)) }
        let totals = try [DayEvent.Bucket.hour, .day].flatMap { bucket in
            try (0..<3).map { try event(.total, "steps", bucket: bucket, source: "S\($0 % 2)", start: 3600, end: 7200, value: 1) }
        }
        guard case let .columnar(day) = try DayBody(events: records + totals).decoded() else { Issue.record("not layout 2"); return }
        let ids = visited(day).map(\.id)
        #expect(ids == day.expandedEvents().map(\.id))
        #expect(ids == day.expandedEvents().map(writtenID))
        #expect(ids.contains("hk:heartRate:1970-01-01T02:00:00Z#12"))
        #expect(ids.filter { $0.hasPrefix("agg:steps:1970-01-01T01:00:00Z:h#") }.count == 3)
        #expect(ids.filter { $0.hasPrefix("agg:steps:1970-01-01T01:00:00Z:d#") }.count == 3)
    }

    /// A metric with non-ASCII text and a character JSON escapes stays raw in the id.
    @Test func idsKeepTheMetricsBytes() throws {
        let events = try [event(.record, "ü/\"m\\", start: 0, end: 0, value: 1), event(.record, "ü/\"m\\", start: 0, end: 0, value: 2)]
        guard case let .columnar(day) = try DayBody(events: events).decoded() else { Issue.record("not layout 2"); return }
        #expect(visited(day).map(\.id) == ["hk:ü/\"m\\:1970-01-01T00:00:00Z#1", "hk:ü/\"m\\:1970-01-01T00:00:00Z#2"])
    }

    /// Instants written a buffer at a time read as Foundation's ISO 8601 text (after 1582:
    /// Foundation turns Julian before the Gregorian reform, the protocol never does).
    @Test func instantsMatchFoundation() {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        var rng = SplitMix64(seed: 0x150_8601)
        let edges: [Int64] = [0, -1, 86_399, 951_782_400, 4_102_444_800, DayEvent.latestSecond]
        for seconds in edges + (0..<2000).map({ _ in Int64.random(in: -2_000_000_000...5_000_000_000, using: &rng) }) {
            #expect(ISOInstant.text(seconds) == formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds))), "\(seconds)")
        }
    }
}
