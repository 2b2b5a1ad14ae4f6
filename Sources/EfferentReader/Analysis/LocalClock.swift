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
        let days = try days(from: event.event.start, to: event.event.end, in: event.timeZone)
        return days.first <= range.until && days.last >= range.since
    }

    /// The local days a span's start and its last instant fall on (an end at midnight belongs to
    /// the day before).
    public func days(from start: Int64, to end: Int64, in identifier: String?) throws(AnswerError) -> (first: CalendarDay, last: CalendarDay) {
        (try day(of: start, in: identifier), try day(of: end > start ? end - 1 : end, in: identifier))
    }

    /// `YYYY-MM-DDTHH:MM:SS+HH:MM`: the instant on the wall clock of its day's zone (decision A.4),
    /// with the offset, so it reads as local time and still names one instant; `Z` form for UTC
    /// and days with no zone.
    public func iso(_ seconds: Int64, in identifier: String?) throws(AnswerError) -> String {
        var text = [UInt8]()
        text.reserveCapacity(25)
        try appendISO(seconds, in: identifier, to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// `iso(seconds, in: identifier)`, or UTC's `Z` form when this machine does not know the zone:
    /// how an answer's rows show an instant.
    public func shown(_ seconds: Int64, in identifier: String?) -> String {
        var text = [UInt8]()
        text.reserveCapacity(25)
        appendShown(seconds, in: identifier, to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// `shown(seconds, in: identifier)` appended to `text`.
    public func appendShown(_ seconds: Int64, in identifier: String?, to text: inout [UInt8]) {
        do { try appendISO(seconds, in: identifier, to: &text) } catch { Self.appendISO(seconds, to: &text) }
    }

    /// `iso(seconds, in: identifier)` appended to `text`: a page of workouts written straight as
    /// JSON writes two of these a row into one buffer, no string made.
    public func appendISO(_ seconds: Int64, in identifier: String?, to text: inout [UInt8]) throws(AnswerError) {
        guard let identifier, identifier != "UTC", identifier != "Etc/UTC" else { return Self.appendISO(seconds, to: &text) }
        let shift = offset(seconds, try zone(identifier))
        Self.appendWall(seconds + shift, to: &text)
        let minutes = abs(shift) / 60
        text.append(shift < 0 ? 0x2D : 0x2B)
        Self.appendTwo(minutes / 60, to: &text)
        text.append(0x3A)
        Self.appendTwo(minutes % 60, to: &text)
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`, the instant form of §3.2.
    public static func iso(_ seconds: Int64) -> String {
        var text = [UInt8]()
        text.reserveCapacity(20)
        appendISO(seconds, to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// `iso(seconds)` appended to `text`.
    public static func appendISO(_ seconds: Int64, to text: inout [UInt8]) {
        appendWall(seconds, to: &text)
        text.append(0x5A)
    }

    /// `YYYY-MM-DDTHH:MM:SS` of `seconds` appended to `text`, written without string
    /// interpolation: a page of samples or a decade of workouts writes two of these a row.
    private static func appendWall(_ seconds: Int64, to text: inout [UInt8]) {
        let day = CalendarDay(unixSeconds: seconds)
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
    }

    /// `n` with at least two digits (`07`, `42`, `123`).
    private static func appendTwo(_ n: Int64, to text: inout [UInt8]) {
        guard n >= 0, n < 100 else { return text += "\(n)".utf8 }
        text.append(UInt8(truncatingIfNeeded: 0x30 + n / 10))
        text.append(UInt8(truncatingIfNeeded: 0x30 + n % 10))
    }
}
