import EfferentClient
import EfferentCore

/// Local days and clock times of event instants, each in the zone its archive day was cut in
/// (decision A.4: the body's `tz`, UTC when absent). Zones are looked up once per identifier.
public final class LocalClock {
    private var zones: [String: ZoneCalendar] = [:]

    public init() {}

    /// The calendar of a day's zone; `nil` (no `tz`) is UTC.
    public func zone(_ identifier: String?) throws(AnswerError) -> ZoneCalendar {
        guard let identifier else { return .utc }
        if let known = zones[identifier] { return known }
        guard let zone = ZoneCalendar(identifier: identifier) else { throw .unknownTimeZone(identifier) }
        zones[identifier] = zone
        return zone
    }

    /// The local day an instant falls on.
    public func day(of seconds: Int64, in identifier: String?) throws(AnswerError) -> CalendarDay {
        try zone(identifier).day(of: Double(seconds))
    }

    /// Seconds since local midnight (0…86 399) of an instant, as the wall clock shows it.
    public func secondOfDay(_ seconds: Int64, in identifier: String?) throws(AnswerError) -> Int64 {
        let local = seconds + (try zone(identifier).offset(at: Double(seconds)))
        return ((local % 86_400) + 86_400) % 86_400
    }

    /// Whether an archive event overlaps the local days of `range`: it starts on or before
    /// `until` and ends on or after `since` (an end at midnight belongs to the day before, so a
    /// day total does not leak into the next day).
    public func overlaps(_ event: ArchiveEvent, _ range: DayRange) throws(AnswerError) -> Bool {
        let first = try day(of: event.event.start, in: event.timeZone)
        let lastInstant = event.event.end > event.event.start ? event.event.end - 1 : event.event.end
        let last = try day(of: lastInstant, in: event.timeZone)
        return first <= range.until && last >= range.since
    }

    /// `YYYY-MM-DDTHH:MM:SS+HH:MM`: the instant on the wall clock of its day's zone (decision A.4),
    /// with the offset, so it reads as local time and still names one instant; `Z` form for UTC
    /// and days with no zone.
    public func iso(_ seconds: Int64, in identifier: String?) throws(AnswerError) -> String {
        guard let identifier, identifier != "UTC", identifier != "Etc/UTC" else { return Self.iso(seconds) }
        let offset = try zone(identifier).offset(at: Double(seconds))
        let wall = Self.iso(seconds + offset).dropLast()
        let minutes = abs(offset) / 60
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return wall + (offset < 0 ? "-" : "+") + two(minutes / 60) + ":" + two(minutes % 60)
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`, the instant form of §3.2.
    public static func iso(_ seconds: Int64) -> String {
        let day = CalendarDay(unixSeconds: seconds)
        let second = ((seconds % 86_400) + 86_400) % 86_400
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(day)T\(two(second / 3600)):\(two(second / 60 % 60)):\(two(second % 60))Z"
    }
}
