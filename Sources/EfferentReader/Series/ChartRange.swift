import EfferentCore

/// The spans a trend chart offers, each ending on a chosen day (today by default).
public enum ChartRange: String, Sendable, CaseIterable {
    case day = "D", week = "7D", month = "30D", quarter = "90D", halfYear = "6M", year = "Y", twoYears = "2Y", all = "ALL"

    /// The days the span covers ending on `until`; `ALL` starts at `first` (the metric's first day).
    public func days(until: CalendarDay, first: CalendarDay?) -> DayRange {
        let since: CalendarDay
        switch self {
        case .day: since = until
        case .week: since = until.adding(days: -6)
        case .month: since = until.adding(days: -29)
        case .quarter: since = until.adding(days: -89)
        case .halfYear: since = Self.monthsBefore(until, 6).next
        case .year: since = Self.monthsBefore(until, 12).next
        case .twoYears: since = Self.monthsBefore(until, 24).next
        case .all: since = min(first ?? until, until)
        }
        // Both ends are real days and `since` is never after `until`, so this cannot throw.
        return (try? DayRange(since: since, until: until)) ?? (try! DayRange(since: until, until: until))
    }

    /// The day the span ends on when none is asked: the last day the metric has, never after
    /// today, so a page opens on the latest data rather than the calendar — an archive whose data
    /// stopped in 2017 opens on its last month, not on thirty empty days (and `ALL` fills the chart
    /// rather than its first fifth). Today when the metric has no day at all.
    public func defaultUntil(today: CalendarDay, last: CalendarDay?) -> CalendarDay {
        guard let last else { return today }
        return min(last, today)
    }

    /// The same day `months` calendar months earlier, kept inside its month (31 March → 28/29 February).
    static func monthsBefore(_ day: CalendarDay, _ months: Int) -> CalendarDay {
        let index = day.year * 12 + (day.month - 1) - months
        let year = index / 12, month = index % 12 + 1
        return CalendarDay(year: year, month: month, day: min(day.day, CalendarDay.daysIn(month: month, year: year))) ?? day
    }
}
