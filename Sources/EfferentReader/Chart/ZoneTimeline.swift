import EfferentClient
import EfferentCore

/// The zone each day of a span was cut in (decision A.4: the body's `tz`; the archive's zone for a
/// day that names none), so a time axis labels every instant in its own day's zone, as the
/// answers cut days — a trip abroad shows its local times, and the days around a clock change
/// their own offsets.
public struct ZoneTimeline: Sendable {
    private let byDay: [CalendarDay: String]
    private let fallback: String
    private let calendars: [String: ZoneCalendar]

    /// `zones` names the zone of each day that has one; any other day is in `fallback`. A zone this
    /// machine does not know is read as UTC (an answer over those days refuses it by name).
    public init(zones: [CalendarDay: String], fallback: String) {
        byDay = zones
        self.fallback = fallback
        var calendars = [String: ZoneCalendar]()
        for name in Set(zones.values).union([fallback]) { calendars[name] = ZoneCalendar(identifier: name) ?? .utc }
        self.calendars = calendars
    }

    /// One zone for every day.
    public static func uniform(_ zone: String) -> ZoneTimeline { ZoneTimeline(zones: [:], fallback: zone) }

    public func zone(of day: CalendarDay) -> String { byDay[day] ?? fallback }

    func calendar(of day: CalendarDay) -> ZoneCalendar { calendars[zone(of: day)] ?? .utc }

    /// The instant local midnight begins `day`, in that day's zone.
    public func start(of day: CalendarDay) -> Int64 { calendar(of: day).start(of: day) }

    /// The local day an instant falls on and its clock time there (seconds after midnight), each
    /// day judged in its own zone.
    public func local(_ seconds: Int64) -> (day: CalendarDay, second: Int64) {
        var day = calendars[fallback].map { $0.day(of: Double(seconds)) } ?? CalendarDay(unixSeconds: seconds)
        // The fallback's guess is off by at most a day where the day's own zone differs.
        for _ in 0..<3 {
            if seconds < self.start(of: day) { day = day.previous; continue }
            if seconds >= self.start(of: day.next) { day = day.next; continue }
            break
        }
        let local = seconds + calendar(of: day).offset(at: Double(seconds))
        return (day, ((local % 86_400) + 86_400) % 86_400)
    }

    /// `2025-06-03T07:02:11+02:00`: an instant with the offset of its day's zone.
    public func iso(_ seconds: Int64) -> String {
        let (day, _) = local(seconds)
        let offset = calendar(of: day).offset(at: Double(seconds))
        let shifted = seconds + offset
        let second = ((shifted % 86_400) + 86_400) % 86_400
        let sign = offset < 0 ? "-" : "+"
        return "\(CalendarDay(unixSeconds: shifted))T\(Self.two(second / 3600)):\(Self.two(second / 60 % 60)):\(Self.two(second % 60))"
            + "\(sign)\(Self.two(abs(offset) / 3600)):\(Self.two(abs(offset) / 60 % 60))"
    }

    /// `07:02`: the wall-clock time of an instant in its day's zone.
    public func clock(_ seconds: Int64) -> String {
        let offset = calendar(of: local(seconds).day).offset(at: Double(seconds))
        let second = (((seconds + offset) % 86_400) + 86_400) % 86_400
        return "\(Self.two(second / 3600)):\(Self.two(second / 60 % 60))"
    }

    static func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
}

/// Day names as a chart labels them, in English: `Tue 3 Jun 2025`, `3 Jun`, `Jun 2025`.
public enum DayText {
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    static let weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    /// 0 for Monday … 6 for Sunday (1970-01-01 was a Thursday).
    public static func weekday(_ day: CalendarDay) -> Int { Int(((day.daysSinceEpoch + 3) % 7 + 7) % 7) }

    public static func long(_ day: CalendarDay) -> String { "\(weekdays[weekday(day)]) \(day.day) \(months[day.month - 1]) \(day.year)" }
    public static func short(_ day: CalendarDay) -> String { "\(day.day) \(months[day.month - 1])" }
    public static func weekdayShort(_ day: CalendarDay) -> String { "\(weekdays[weekday(day)]) \(day.day)" }
    public static func month(_ day: CalendarDay, year: Bool) -> String { months[day.month - 1] + (year ? " \(day.year)" : "") }

    /// `3–9 Jun 2025`, `28 May – 3 Jun 2025`, `28 Dec 2024 – 3 Jan 2025`; one day alone as `long`.
    public static func span(_ first: CalendarDay, _ last: CalendarDay) -> String {
        if first == last { return long(first) }
        if first.year != last.year { return "\(short(first)) \(first.year) – \(short(last)) \(last.year)" }
        if first.month != last.month { return "\(short(first)) – \(short(last)) \(last.year)" }
        return "\(first.day)–\(last.day) \(months[last.month - 1]) \(last.year)"
    }
}
