import EfferentCore
import Foundation

/// Local days in one IANA time zone, Gregorian always (§9.3): which day an instant falls on, and
/// where a day begins and ends. Days that start or end at a DST change are 23 or 25 hours long.
///
/// Offsets are cached between the zone's transitions, so classifying millions of instants that
/// arrive in time order costs a comparison each, not a time-zone lookup.
public final class ZoneCalendar: @unchecked Sendable {
    public let identifier: String
    private let zone: TimeZone
    private let lock = NSLock()
    private var cachedFrom: Double = 1
    private var cachedUntil: Double = 0
    private var cachedOffset: Int64 = 0

    /// `nil` when the identifier names no zone this machine knows.
    public init?(identifier: String) {
        guard let zone = TimeZone(identifier: identifier) else { return nil }
        self.identifier = identifier
        self.zone = zone
    }

    public static let utc = ZoneCalendar(identifier: "UTC")!

    /// Seconds east of UTC at the instant.
    public func offset(at seconds: Double) -> Int64 {
        lock.lock()
        defer { lock.unlock() }
        if seconds >= cachedFrom && seconds < cachedUntil { return cachedOffset }
        let date = Date(timeIntervalSince1970: seconds)
        // The offset holds from the last transition at or before the instant to the next one.
        var from = date.addingTimeInterval(-400 * 86_400)
        var last: Date?
        while let transition = zone.nextDaylightSavingTimeTransition(after: from), transition <= date {
            last = transition
            from = transition
        }
        cachedFrom = last?.timeIntervalSince1970 ?? seconds - 400 * 86_400
        cachedUntil = zone.nextDaylightSavingTimeTransition(after: date)?.timeIntervalSince1970 ?? .infinity
        cachedOffset = Int64(zone.secondsFromGMT(for: date))
        return cachedOffset
    }

    /// The local day holding the instant.
    public func day(of seconds: Double) -> CalendarDay {
        CalendarDay(unixSeconds: Int64(seconds.rounded(.down)) + offset(at: seconds))
    }

    /// The first instant of a local day: its midnight, or — where midnight falls in a DST gap —
    /// the first moment that exists (§9.3).
    public func start(of day: CalendarDay) -> Int64 {
        let midnight = day.startUnixSeconds
        var candidate = midnight - offset(at: Double(midnight))
        for _ in 0..<3 {
            let settled = midnight - offset(at: Double(candidate))
            if settled == candidate { break }
            candidate = settled
        }
        while self.day(of: Double(candidate)) < day { candidate += 60 }
        while self.day(of: Double(candidate - 60)) == day { candidate -= 60 }
        while self.day(of: Double(candidate - 1)) == day { candidate -= 1 }
        return candidate
    }

    /// `[start, end)` of a local day in Unix seconds.
    public func bounds(of day: CalendarDay) -> (start: Int64, end: Int64) {
        (start(of: day), start(of: day.next))
    }
}
