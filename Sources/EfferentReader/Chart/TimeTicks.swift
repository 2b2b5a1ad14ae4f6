import EfferentCore

/// Ticks on a time axis at round moments — whole hours, local midnights, Mondays, the first of a
/// month, New Year — labelled in each day's own zone, as few as fit the width.
enum TimeTicks {
    struct Tick: Equatable {
        /// Position on the chart's domain (day index or seconds).
        let x: Double
        let label: String
    }

    static func ticks(for domain: Chart.Domain, maxCount: Int) -> [Tick] {
        let limit = max(2, maxCount)
        switch domain {
        case let .days(since, count): return dayTicks(since: since, count: count, limit: limit)
        case let .instants(start, end, zones): return instantTicks(start: start, end: end, zones: zones, limit: limit)
        }
    }

    /// Candidate spacings from fine to coarse; the first that fits is taken.
    static func dayTicks(since: CalendarDay, count: Int, limit: Int) -> [Tick] {
        let days = (0..<max(count, 0)).map { since.adding(days: $0) }
        func every(_ keep: (Int, CalendarDay) -> Bool, _ label: (CalendarDay, Bool) -> String) -> [Tick] {
            var out = [Tick]()
            for (index, day) in days.enumerated() where keep(index, day) { out.append(Tick(x: Double(index), label: label(day, out.isEmpty))) }
            return out
        }
        let dayLabel: (CalendarDay, Bool) -> String = { day, _ in DayText.short(day) }
        let monthLabel: (CalendarDay, Bool) -> String = { day, first in DayText.month(day, year: first || day.month == 1) }
        let candidates: [() -> [Tick]] = [
            { every({ _, _ in true }, count <= 7 ? { day, _ in DayText.weekdayShort(day) } : dayLabel) },
            { every({ index, _ in index % 2 == 0 }, dayLabel) },
            { every({ _, day in DayText.weekday(day) == 0 }, dayLabel) },
            { every({ _, day in DayText.weekday(day) == 0 && (day.daysSinceEpoch / 7) % 2 == 0 }, dayLabel) },
            { every({ _, day in day.day == 1 }, monthLabel) },
            { every({ _, day in day.day == 1 && (day.month - 1) % 2 == 0 }, monthLabel) },
            { every({ _, day in day.day == 1 && (day.month - 1) % 3 == 0 }, monthLabel) },
            { every({ _, day in day.day == 1 && (day.month - 1) % 6 == 0 }, monthLabel) },
            { every({ _, day in day.day == 1 && day.month == 1 }, { day, _ in "\(day.year)" }) },
            { every({ _, day in day.day == 1 && day.month == 1 && day.year % 2 == 0 }, { day, _ in "\(day.year)" }) },
            { every({ _, day in day.day == 1 && day.month == 1 && day.year % 5 == 0 }, { day, _ in "\(day.year)" }) },
            { every({ _, day in day.day == 1 && day.month == 1 && day.year % 10 == 0 }, { day, _ in "\(day.year)" }) },
        ]
        for candidate in candidates {
            let ticks = candidate()
            if ticks.count <= limit { return ticks }
        }
        return []
    }

    /// Round local minutes (every 1, 2, 5, 10, 15 or 30) over a workout's minutes, whole hours
    /// (every 1, 2, 3, 6 or 12) over a night, local midnights over longer spans: a 40-minute run
    /// held no whole hour, and its chart had no time axis.
    static func instantTicks(start: Int64, end: Int64, zones: ZoneTimeline, limit: Int) -> [Tick] {
        guard end > start else { return [] }
        let first = zones.local(start).day, last = zones.local(end - 1).day
        var days = [CalendarDay]()
        var day = first
        while day <= last { days.append(day); day = day.next }
        for minutes in [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720] where (end - start) / Int64(minutes * 60) <= Int64(limit) {
            var out = [Tick]()
            for day in days {
                let midnight = zones.start(of: day)
                var minute = 0
                while minute < 24 * 60 {
                    let moment = midnight + Int64(minute) * 60
                    if moment >= start && moment < end {
                        let label = minute == 0 ? DayText.weekdayShort(day) : zones.clock(moment)
                        out.append(Tick(x: Double(moment), label: label))
                    }
                    minute += minutes
                }
            }
            if out.count <= limit { return out }
        }
        for step in [1, 2, 7] {
            let out = days.filter { step == 7 ? DayText.weekday($0) == 0 : (Int($0.daysSinceEpoch) % step == 0) }
                .map { (day: $0, moment: zones.start(of: $0)) }
                .filter { $0.moment >= start && $0.moment < end }
                .map { Tick(x: Double($0.moment), label: step == 7 ? DayText.short($0.day) : DayText.weekdayShort($0.day)) }
            if out.count <= limit { return out }
        }
        return []
    }
}
