import EfferentCore
import Synchronization

/// What every mirrored day holds, metric by metric, kept in memory beside the mirror: each
/// metric's events, units and buckets, its day total, and its readings summarised per local day.
/// A server that runs for days (the dashboard) answers the catalogue, a decade's chart and a
/// range's statistics from it instead of reading ten years of days again for each page.
///
/// It follows the mirror: `refresh()` compares the mirror's record of upload times with the
/// digest's and reads again only the days that changed, so a sync's new days appear on the next
/// refresh and nothing is ever a mix of two versions of a day. Safe to share between threads;
/// refreshes take turns, answers read the last snapshot.
public final class MirrorDigest: Sendable {
    /// One metric on one archive day.
    public struct MetricDay: Sendable, Equatable {
        public let kind: DayEvent.Kind
        public var units: [String: Int] = [:]
        public var hourBuckets = false
        public var dayBuckets = false
        public var events = 0
        /// The sum of the day-bucket totals filed under the day.
        public var dayTotal: Double?
        /// Readings (events with a value and no bucket) by the local day their start falls on.
        public var readings: [(day: CalendarDay, summary: ValueSummary)] = []

        public static func == (a: MetricDay, b: MetricDay) -> Bool {
            a.kind == b.kind && a.units == b.units && a.hourBuckets == b.hourBuckets && a.dayBuckets == b.dayBuckets
                && a.events == b.events && a.dayTotal == b.dayTotal
                && a.readings.elementsEqual(b.readings) { $0.day == $1.day && $0.summary == $1.summary }
        }
    }

    /// One archive day as digested, and the upload time it was read at.
    public struct Day: Sendable {
        public let stamp: String
        /// The zone the day was cut in (its body's `tz`); nil is UTC.
        public let zone: String?
        public let metrics: [String: MetricDay]
    }

    private let mirror: Mirror
    private let current = Mutex<DigestSnapshot>(DigestSnapshot(days: [:]))
    /// Held for a whole refresh, so two requests never read the same changed days twice.
    private let turn = Mutex<Void>(())

    public init(mirror: Mirror) { self.mirror = mirror }

    /// The digest as last refreshed.
    public var snapshot: DigestSnapshot { current.withLock { $0 } }

    /// Reads the days whose upload time changed since the last refresh and forgets days the
    /// mirror no longer holds; returns the snapshot that results (the same one when nothing changed).
    @discardableResult
    public func refresh() throws -> DigestSnapshot {
        try turn.withLock { _ in
            let stamps = mirror.uploaded
            let previous = snapshot
            if previous.days.count == stamps.count, stamps.allSatisfy({ previous.days[$0.key]?.stamp == $0.value }) { return previous }
            var days = previous.days.filter { stamps[$0.key] == $0.value.stamp }
            let clock = LocalClock()
            for (day, stamp) in stamps where days[day] == nil {
                // A day replaced after its stamp was read carries the new stamp, and the next refresh reads it again.
                guard let bytes = try mirror.body(day) else { continue }
                days[day] = try Self.digest(bytes, day: day, stamp: stamp, clock: clock)
            }
            let snapshot = DigestSnapshot(days: days)
            current.withLock { $0 = snapshot }
            return snapshot
        }
    }

    /// One day body's digest: every series of a layout-2 day read straight from its columns, a
    /// layout-1 day's lines as events.
    public static func digest(_ bytes: [UInt8], day: CalendarDay, stamp: String, clock: LocalClock = LocalClock()) throws -> Day {
        let decoded: DecodedDay
        do throws(DayBodyError) { decoded = try DayBody(bytes: bytes).decoded() } catch { throw MirrorError.unreadableDay(day, error.description) }
        var metrics = [String: MetricDay]()
        var zone: String?
        func tally(_ event: DayEvent, in zone: String?) throws {
            var entry = metrics[event.metric] ?? MetricDay(kind: event.kind)
            if let unit = event.unit { entry.units[unit, default: 0] += 1 }
            if event.bucket == .hour { entry.hourBuckets = true }
            if event.bucket == .day { entry.dayBuckets = true }
            entry.events += 1
            if let value = event.value {
                if event.bucket == .day {
                    entry.dayTotal = (entry.dayTotal ?? 0) + value
                } else if event.bucket == nil {
                    let local = try clock.day(of: event.start, in: zone)
                    if let index = entry.readings.firstIndex(where: { $0.day == local }) {
                        entry.readings[index].summary.add(value, at: event.start)
                    } else {
                        entry.readings.append((local, ValueSummary(value, at: event.start)))
                    }
                }
            }
            metrics[event.metric] = entry
        }
        switch decoded {
        case let .columnar(columns):
            zone = columns.timeZone
            for series in columns.series {
                for event in series.events { try tally(event, in: zone) }
            }
        case .lines:
            for item in try MirrorSource.events(of: bytes, day: day) { try tally(item.event, in: item.timeZone) }
        }
        return Day(stamp: stamp, zone: zone, metrics: metrics)
    }
}
