import EfferentCore
import EfferentSystem
import Foundation

/// Local days in one IANA time zone, Gregorian always (§9.3): which day an instant falls on, and
/// where a day begins and ends. Days that start or end at a DST change are 23 or 25 hours long.
///
/// Offsets are cached between the zone's transitions, so classifying millions of instants that
/// arrive in time order costs a comparison each, not a time-zone lookup.
public final class ZoneCalendar: Sendable {
    /// The offset last looked up and the span `[from, until)` it holds for.
    private struct Cached {
        var from: Double = 1
        var until: Double = 0
        var offset: Int64 = 0
    }

    public let identifier: String
    private let zone: TimeZone
    private let cached = Mutex(Cached())

    /// `nil` when the identifier names no zone this machine knows.
    public init?(identifier: String) {
        guard let zone = TimeZone(identifier: identifier) else { return nil }
        self.identifier = identifier
        self.zone = zone
    }

    public static let utc = ZoneCalendar(identifier: "UTC")!

    /// Seconds east of UTC at the instant.
    public func offset(at seconds: Double) -> Int64 {
        cached.withLock { cachedOffset(at: seconds, &$0) }
    }

    /// The offset at the instant and the span `[from, until)` between the zone's transitions that
    /// it holds for: a caller classifying millions of instants (the mirror's index at sync) asks
    /// again only outside it, rather than taking the lock for each.
    public func offsetSpan(at seconds: Double) -> (offset: Int64, from: Double, until: Double) {
        cached.withLock { cached in
            let offset = cachedOffset(at: seconds, &cached)
            return (offset, cached.from, cached.until)
        }
    }

    /// `offset(at:)` with the lock held.
    private func cachedOffset(at seconds: Double, _ cached: inout Cached) -> Int64 {
        if seconds >= cached.from && seconds < cached.until { return cached.offset }
        let date = Date(timeIntervalSince1970: seconds)
        // The offset holds from the last transition at or before the instant to the next one.
        var from = date.addingTimeInterval(-400 * 86_400)
        var last: Date?
        while let transition = zone.nextDaylightSavingTimeTransition(after: from), transition <= date {
            last = transition
            from = transition
        }
        cached.from = last?.timeIntervalSince1970 ?? seconds - 400 * 86_400
        cached.until = zone.nextDaylightSavingTimeTransition(after: date)?.timeIntervalSince1970 ?? .infinity
        cached.offset = Int64(zone.secondsFromGMT(for: date))
        return cached.offset
    }

    /// The local day holding the instant.
    public func day(of seconds: Double) -> CalendarDay {
        CalendarDay(unixSeconds: Int64(seconds.rounded(.down)) + offset(at: seconds))
    }

    /// Days since 1970-01-01 of the local day holding the instant, unclamped: a comparison of two of
    /// these never saturates at year 0001 or 9999 as `CalendarDay` does.
    private func localDayNumber(_ seconds: Int64) -> Int64 {
        let local = seconds + offset(at: Double(seconds))
        return local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
    }

    /// The first instant of a local day: its midnight, or — where midnight falls in a DST gap —
    /// the first moment that exists (§9.3).
    ///
    /// Local midnight is at most a day away from UTC midnight and the offset changes only at
    /// transitions, so the answer is found from a first guess by at most a few dozen steps: every
    /// loop below has a bound of its own and none relies on dates being clamped.
    public func start(of day: CalendarDay) -> Int64 {
        let target = day.daysSinceEpoch
        let midnight = target * 86_400
        var candidate = midnight - offset(at: Double(midnight))
        for _ in 0..<3 {
            let settled = midnight - offset(at: Double(candidate))
            if settled == candidate { break }
            candidate = settled
        }
        // The smallest instant on the target day lies in (candidate - 2 days, candidate + 2 days]:
        // narrow it by halving, which needs 18 comparisons for 4 days at one-second resolution.
        var low = candidate - 2 * 86_400      // before the day
        var high = candidate + 2 * 86_400     // on or after the day
        if localDayNumber(low) >= target { return low }
        if localDayNumber(high) < target { return high }
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if localDayNumber(middle) >= target { high = middle } else { low = middle }
        }
        return high
    }

    /// `[start, end)` of a local day in Unix seconds.
    public func bounds(of day: CalendarDay) -> (start: Int64, end: Int64) {
        (start(of: day), start(of: day.next))
    }
}
