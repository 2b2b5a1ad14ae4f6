import EfferentClient
import EfferentCore

/// Local days and clock times of event instants, each in the zone its archive day was cut in
/// (decision A.4: the body's `tz`, UTC when absent). Zones are looked up once per identifier.
public final class LocalClock {
    private var zones: [String: ZoneCalendar] = [:]
    /// The zone asked for last: an answer asks for one zone thousands of times in a row, and
    /// comparing with it is cheaper than hashing its name.
    private var last: ZoneCalendar?
    /// The offset last looked up, the zone it is of and the span `[from, until)` between that
    /// zone's transitions it holds for: instants in a row mostly fall in one span, and reading it
    /// here skips the zone's lock (two of these per row of a page of workouts or samples).
    private var span: (zone: ZoneCalendar, from: Double, until: Double, offset: Int64)?

    public init() {}

    /// Seconds east of UTC at the instant in `zone`.
    private func offset(_ seconds: Int64, _ zone: ZoneCalendar) -> Int64 {
        let at = Double(seconds)
        if let span, span.zone === zone, at >= span.from, at < span.until { return span.offset }
        let found = zone.offsetSpan(at: at)
        span = (zone, found.from, found.until, found.offset)
        return found.offset
    }

    /// The calendar of a day's zone; `nil` (no `tz`) is UTC.
    public func zone(_ identifier: String?) throws(AnswerError) -> ZoneCalendar {
        guard let identifier else { return .utc }
        if let last, last.identifier == identifier { return last }
        if let known = zones[identifier] {
            last = known
            return known
        }
        guard let zone = ZoneCalendar(identifier: identifier) else { throw .unknownTimeZone(identifier) }
        zones[identifier] = zone
        last = zone
        return zone
    }

    /// The local day an instant falls on.
    public func day(of seconds: Int64, in identifier: String?) throws(AnswerError) -> CalendarDay {
        CalendarDay(unixSeconds: seconds + offset(seconds, try zone(identifier)))
    }

    /// Seconds since local midnight (0…86 399) of an instant, as the wall clock shows it.
    public func secondOfDay(_ seconds: Int64, in identifier: String?) throws(AnswerError) -> Int64 {
        let local = seconds + offset(seconds, try zone(identifier))
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
        let shift = offset(seconds, try zone(identifier))
        var text = Self.wallBytes(seconds + shift)
        let minutes = abs(shift) / 60
        text.append(shift < 0 ? 0x2D : 0x2B)
        Self.appendTwo(minutes / 60, to: &text)
        text.append(0x3A)
        Self.appendTwo(minutes % 60, to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`, the instant form of §3.2.
    public static func iso(_ seconds: Int64) -> String {
        var text = wallBytes(seconds)
        text.append(0x5A)
        return String(decoding: text, as: UTF8.self)
    }

    /// `YYYY-MM-DDTHH:MM:SS` of `seconds` as bytes, written without string interpolation: a page
    /// of samples or a decade of workouts writes two of these a row.
    private static func wallBytes(_ seconds: Int64) -> [UInt8] {
        // One array of the whole text's size, the day's digits written into it (not a copy of
        // `CalendarDay.ascii` grown: a page writes two of these a row).
        let day = CalendarDay(unixSeconds: seconds)
        var text = [UInt8]()
        text.reserveCapacity(25)
        text.append(UInt8(truncatingIfNeeded: 0x30 + day.year / 1000 % 10))
        text.append(UInt8(truncatingIfNeeded: 0x30 + day.year / 100 % 10))
        appendTwo(Int64(day.year % 100), to: &text)
        text.append(0x2D)
        appendTwo(Int64(day.month), to: &text)
        text.append(0x2D)
        appendTwo(Int64(day.day), to: &text)
        let second = ((seconds % 86_400) + 86_400) % 86_400
        text.append(0x54)
        appendTwo(second / 3600, to: &text)
        text.append(0x3A)
        appendTwo(second / 60 % 60, to: &text)
        text.append(0x3A)
        appendTwo(second % 60, to: &text)
        return text
    }

    /// `n` with at least two digits (`07`, `42`, `123`).
    private static func appendTwo(_ n: Int64, to text: inout [UInt8]) {
        guard n >= 0, n < 100 else { return text += "\(n)".utf8 }
        text.append(UInt8(truncatingIfNeeded: 0x30 + n / 10))
        text.append(UInt8(truncatingIfNeeded: 0x30 + n % 10))
    }
}
