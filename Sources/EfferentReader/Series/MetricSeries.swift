import EfferentCore

/// A metric's trend chart for a range of days, brought down to the chart's pixel width on the
/// reader's side: days grouped into bins of whole days (each keeping its minimum and maximum)
/// when a range is long, readings cut into bins of a few minutes over a day or a week, a total's
/// hour buckets over a single day. Totals become bars, readings a min–max band with the mean.
public enum MetricSeries {
    /// Bins a chart `width` pixels wide may hold: one per pixel column of its plot area.
    public static func maximumBins(width: Int) -> Int { max(8, width - 60) }

    /// Bins of whole days from per-day values: one day a bin while they fit, otherwise the fewest
    /// days a bin that do. A bin of several days shows a total's mean day (its whisker the lowest
    /// and highest day) and a reading's band over all its readings.
    public static func days(_ values: DayValues, range: DayRange, width: Int, title: String, unit: String?) -> Chart {
        let perBin = (range.dayCount + maximumBins(width: width) - 1) / maximumBins(width: width)
        var bins = [ChartBin]()
        var index = 0
        while index < range.dayCount {
            let last = min(index + perBin, range.dayCount) - 1
            let first = range.since.adding(days: index), final = range.since.adding(days: last)
            var bin = ChartBin(start: Double(index), end: Double(last + 1), label: DayText.span(first, final))
            if values.isTotal {
                let totals = (index...last).compactMap { values.totals[range.since.adding(days: $0)] }
                if !totals.isEmpty {
                    bin.count = totals.count
                    bin.value = perBin == 1 ? totals[0] : totals.reduce(0, +) / Double(totals.count)
                    bin.min = totals.min()
                    bin.max = totals.max()
                    bin.mean = bin.value
                }
            } else {
                var merged: ValueSummary?
                for offset in index...last {
                    guard let summary = values.readings[range.since.adding(days: offset)] else { continue }
                    if merged == nil { merged = summary } else { merged!.merge(summary) }
                }
                if let merged {
                    bin.count = merged.count
                    bin.min = merged.min
                    bin.max = merged.max
                    bin.mean = merged.mean
                }
            }
            bins.append(bin)
            index = last + 1
        }
        return Chart(title: title, unit: DisplayUnit.of(values.metric, unit: unit), style: values.isTotal ? .bars : .band,
                     domain: .days(since: range.since, count: range.dayCount), bins: bins)
    }

    /// Durations a bin of readings may last, from a minute to a day.
    static let binSeconds: [Int64] = [60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400]

    /// Bins of time from the events themselves, for a day or a week: readings by when they were
    /// taken, a total's hour buckets as bars. Nil for a total with no hour buckets in the range
    /// (hour totals begin with the writer's first day), which is then drawn by day.
    public static func moments(_ events: [ArchiveEvent], metric: String, isTotal: Bool, range: DayRange, zones: ZoneTimeline,
                               width: Int, title: String, unit: String?) throws -> Chart? {
        let start = zones.start(of: range.since), end = zones.start(of: range.until.next)
        guard end > start else { return nil }
        let clock = LocalClock()
        var seconds: Int64
        if isTotal {
            seconds = 3600
            guard events.contains(where: { $0.event.metric == metric && $0.event.bucket == .hour && range.contains($0.day) }) else { return nil }
        } else {
            let wanted = (end - start) / Int64(maximumBins(width: width))
            seconds = binSeconds.first { $0 >= wanted } ?? 86_400
        }
        let count = Int((end - start + seconds - 1) / seconds)
        var summaries = [ValueSummary?](repeating: nil, count: count)
        var sums = [Double?](repeating: nil, count: count)
        for item in events where item.event.metric == metric {
            guard let value = item.event.value else { continue }
            let event = item.event
            if isTotal {
                guard event.bucket == .hour, range.contains(item.day), event.start >= start, event.start < end else { continue }
                let index = Int((event.start - start) / seconds)
                sums[index] = (sums[index] ?? 0) + value
            } else {
                guard event.bucket == nil, range.contains(try clock.day(of: event.start, in: item.timeZone)),
                      event.start >= start, event.start < end else { continue }
                let index = Int((event.start - start) / seconds)
                if summaries[index] == nil { summaries[index] = ValueSummary(value, at: event.start) } else { summaries[index]!.add(value, at: event.start) }
            }
        }
        var bins = [ChartBin]()
        for index in 0..<count {
            let from = start + Int64(index) * seconds, to = min(from + seconds, end)
            let day = zones.local(from).day
            var bin = ChartBin(start: Double(from), end: Double(to), label: "\(DayText.long(day)), \(zones.clock(from))–\(zones.clock(to))")
            if let total = sums[index] {
                bin.count = 1
                bin.value = total
            } else if let summary = summaries[index] {
                bin.count = summary.count
                bin.min = summary.min
                bin.max = summary.max
                bin.mean = summary.mean
            }
            bins.append(bin)
        }
        return Chart(title: title, unit: DisplayUnit.of(metric, unit: unit), style: isTotal ? .bars : .band,
                     domain: .instants(start: start, end: end, zones: zones), bins: bins)
    }

    /// Sleep as stacked stage hours, one bar per night (the nights `sleep` answers, stages as the
    /// unions it computes), in bins of whole nights when the range is long.
    public static func nights(_ nights: [SleepNight], range: DayRange, width: Int, title: String) -> Chart {
        let perBin = (range.dayCount + maximumBins(width: width) - 1) / maximumBins(width: width)
        let byNight = Dictionary(nights.map { ($0.night, $0) }, uniquingKeysWith: { first, _ in first })
        var bins = [ChartBin]()
        var index = 0
        var seen = Set<String>()
        while index < range.dayCount {
            let last = min(index + perBin, range.dayCount) - 1
            let members = (index...last).compactMap { byNight[range.since.adding(days: $0)] }
            var bin = ChartBin(start: Double(index), end: Double(last + 1),
                               label: DayText.span(range.since.adding(days: index), range.since.adding(days: last)))
            // Nights with only time in bed have no asleep figure (SleepNight): they are counted
            // in the bin but left out of its means, as `sleep` leaves them out of its own.
            let asleep = members.filter { !$0.isInBedOnly }
            if !members.isEmpty {
                bin.count = members.count
                var parts = [String: Double]()
                for night in asleep {
                    for (stage, hours) in night.stages where stage != "inBed" { parts[stage, default: 0] += hours / Double(asleep.count) }
                }
                bin.parts = parts
                seen.formUnion(parts.keys)
                if !asleep.isEmpty { bin.value = asleep.reduce(0) { $0 + ($1.asleepHours ?? 0) } / Double(asleep.count) }
            }
            bins.append(bin)
            index = last + 1
        }
        let parts = ChartStyle.stages.filter { seen.contains($0.key) }.map { Chart.Part(key: $0.key, name: $0.name) }
        return Chart(title: title, unit: DisplayUnit(symbol: "h"), style: .stacked, domain: .days(since: range.since, count: range.dayCount),
                     bins: bins, parts: parts, emptyNote: "No sleep recorded in this range")
    }
}

extension MetricSeries {
    /// The chart of `metric` over `range` at the resolution that reads best: readings over up to a
    /// week, and a total's single day, by moment from the events; anything longer by day.
    public static func chart(metric: String, range: DayRange, width: Int, unit: String?, values: DayValues, zones: ZoneTimeline,
                             events: () throws -> [ArchiveEvent]) throws -> Chart {
        let title = MetricTitle.of(metric)
        let byMoment = values.isTotal ? range.dayCount == 1 : range.dayCount <= 7
        if byMoment, let chart = try moments(try events(), metric: metric, isTotal: values.isTotal, range: range, zones: zones,
                                             width: width, title: title, unit: unit) {
            return chart
        }
        return days(values, range: range, width: width, title: title, unit: unit)
    }
}

extension MetricSeries {
    /// Readings of `metric` between two instants (a workout's heart rate), in bins of a few
    /// seconds to a few minutes so there is at most one a pixel column.
    public static func window(_ events: [ArchiveEvent], metric: String, start: Int64, end: Int64, zones: ZoneTimeline, width: Int,
                              title: String, unit: String?) -> Chart {
        let span = max(end - start, 1)
        let wanted = span / Int64(maximumBins(width: width))
        let seconds = ([5, 10, 15, 30] + binSeconds).first { $0 >= wanted } ?? 86_400
        let count = Int((span + seconds - 1) / seconds)
        var summaries = [ValueSummary?](repeating: nil, count: count)
        for item in events where item.event.metric == metric && item.event.bucket == nil {
            guard let value = item.event.value, item.event.start >= start, item.event.start < end else { continue }
            let index = Int((item.event.start - start) / seconds)
            if summaries[index] == nil { summaries[index] = ValueSummary(value, at: item.event.start) } else { summaries[index]!.add(value, at: item.event.start) }
        }
        let bins = (0..<count).map { index in
            let from = start + Int64(index) * seconds, to = min(from + seconds, end)
            var bin = ChartBin(start: Double(from), end: Double(to), label: "\(zones.clock(from))–\(zones.clock(to))")
            if let summary = summaries[index] {
                bin.count = summary.count
                bin.min = summary.min
                bin.max = summary.max
                bin.mean = summary.mean
            }
            return bin
        }
        return Chart(title: title, unit: DisplayUnit.of(metric, unit: unit), style: .band,
                     domain: .instants(start: start, end: start + span, zones: zones), bins: bins)
    }
}
