import EfferentCore

/// The answers the mirror's index can give exactly (`MirrorIndex`): each builds the same fold the
/// events would give — the same sums in the same order, the same first unit, the same values —
/// and hands it to the answer's one constructor, so the JSON is the same to the byte. Where the
/// index cannot promise that (a local day fed by two archive days, whose sum would be added in
/// another order; a zone no reading's day can be told in) it answers nil and the days are read.
enum IndexedAnswers {
    /// The answer of `request` over `range` from `index`, or nil when the days must be read.
    static func answer(_ request: AnswerRequest, index: DigestSnapshot, held: [CalendarDay], range: DayRange?,
                       archive: ArchiveFacts?, source: MirrorSource) throws -> (any Answer)? {
        switch request.kind {
        case .overview:
            return overview(index: index, held: held, range: range, archive: archive)
        case .daily:
            guard let range else { return nil }
            let metrics = request.metrics.isEmpty ? ["steps", "activeEnergy"] : request.metrics
            guard !metrics.isEmpty, !metrics.contains(where: MetricCatalogue.withoutValues.contains) else { return nil }
            guard let folds = dailyFolds(index: index, metrics: metrics, range: range) else { return nil }
            return try DailyAnswer(metrics: metrics, range: range, folds: folds)
        case .statistics:
            guard let range, let metric = request.metric, !MetricCatalogue.withoutValues.contains(metric),
                  let grouping = Grouping(rawValue: request.groupBy ?? "month"),
                  let fold = statisticsFold(index: index, metric: metric, range: range, groupBy: grouping) else { return nil }
            return try StatisticsAnswer(metric: metric, range: range, groupBy: grouping, fold: fold)
        case .samples:
            guard let range, let metric = request.metric, !metric.isEmpty, !request.complete else { return nil }
            let limit = request.limit ?? DayRange.Limits.samplesDefaultLimit
            guard (1...DayRange.Limits.samplesMaximumLimit).contains(limit) else { return nil }
            return try samples(index: index, source: source, metric: metric, range: range, limit: limit, offset: max(0, request.offset))
        case .workouts:
            guard let range else { return nil }
            if let activity = request.activity, !WorkoutsAnswer.isActivityName(activity) { return nil }
            return try workouts(index: index, held: held, range: range, activity: request.activity, offset: request.complete ? 0 : request.offset)
        case .sleep:
            guard let range else { return nil }
            return try sleep(index: index, range: range)
        }
    }

    /// The nights of `range` as `SleepAnswer` stitches them from the days: the stretches of the
    /// held days from the day before `since` through the day after `until`, in day and body order.
    static func sleep(index: DigestSnapshot, range: DayRange) throws -> SleepAnswer {
        let clock = LocalClock()
        var byNight = [CalendarDay: [SleepNight.Stretch]]()
        if !range.isEmpty {
            let ordered = index.ordered
            for position in index.positions(from: range.since.previous, through: range.until.adding(days: 1)) {
                for stretch in ordered[position].sleep {
                    let night = try SleepNight.night(of: stretch.start, timeZone: stretch.timeZone, clock: clock)
                    guard range.contains(night) else { continue }
                    byNight[night, default: []].append(stretch)
                }
            }
        }
        return try SleepAnswer(range: range, byNight: byNight, clock: clock)
    }

    /// The overview of the held days of `range` (every held day when nil): the record's days are
    /// the readable ones, the index's tallies say what they hold (no digest is decoded).
    static func overview(index: DigestSnapshot, held: [CalendarDay], range: DayRange?, archive: ArchiveFacts?) -> OverviewAnswer {
        let days = held.filter { range?.contains($0) ?? true }
        let lines = range.map { index.tallies.lines(in: index.positions(from: $0.since, through: $0.until)) } ?? index.lines
        return OverviewAnswer(readableDays: days.count, firstDay: days.first, lastDay: days.last,
                              metrics: lines.keys.sorted().map { lines[$0]! }, archive: archive)
    }

    /// The days an answer over `range` reads (from the day before `since`), each with its entry
    /// for `metric`; nil when one of them has readings whose day could not be told. Only the
    /// metric's entries are taken: a copy of each day's whole digest was most of a page of daily steps.
    private static func read(_ index: DigestSnapshot, _ range: DayRange, _ metric: String)
        -> [(day: CalendarDay, zone: String?, entry: MirrorDigest.MetricDay?)]? {
        guard !range.isEmpty else { return [] }
        let positions = index.positions(from: range.since.previous, through: range.until)
        let ordered = index.ordered
        var out = [(day: CalendarDay, zone: String?, entry: MirrorDigest.MetricDay?)]()
        out.reserveCapacity(positions.count)
        for position in positions {
            guard ordered[position].unknownZone == nil else { return nil }
            out.append((index.sortedDays[position], ordered[position].zone, ordered[position].metrics[metric]))
        }
        return out
    }

    /// The readings of `entry` whose local day lies in `range`; nil when more than one does (the
    /// first unit among them would depend on the order of their events, which the index does not keep).
    private static func readingsIn(_ entry: MirrorDigest.MetricDay, _ range: DayRange) -> [Int]? {
        let inRange = entry.readings.indices.filter { range.contains(entry.readings[$0].day) }
        return inRange.count > 1 ? nil : inRange
    }

    static func dailyFolds(index: DigestSnapshot, metrics: [String], range: DayRange) -> [String: DailyAnswer.Fold]? {
        let rows = range.dayCount
        // The days from the one before `since`, walked by position (as `read` takes them, without
        // gathering them first: a page of daily steps is 400 days of one number each).
        let positions = range.isEmpty ? 0..<0 : index.positions(from: range.since.previous, through: range.until)
        let ordered = index.ordered
        for position in positions where ordered[position].unknownZone != nil { return nil }
        var folds = [String: DailyAnswer.Fold]()
        for metric in Set(metrics) {
            let catalogueTotal = MetricCatalogue.isTotal(metric)
            if catalogueTotal {
                // Totals only: from the metric's column of day totals, the same days in the same order.
                if let fold = totalsFold(index: index, metric: metric, positions: positions, range: range) { folds[metric] = fold }
                continue
            }
            var fold: DailyAnswer.Fold?
            for position in positions {
                guard let entry = ordered[position].metrics[metric] else { continue }
                let day = index.sortedDays[position]
                if fold == nil { fold = DailyAnswer.Fold(rows: rows) }
                if entry.hourBuckets || entry.dayBuckets { fold!.bucketed = true }
                if let total = entry.dayTotal, range.contains(day) {
                    fold!.sums[Int(day.daysSinceEpoch - range.since.daysSinceEpoch)] = total
                    if fold!.unitAsTotal == nil { fold!.unitAsTotal = entry.totalUnit }
                }
                guard !catalogueTotal else { continue }
                guard let readings = readingsIn(entry, range) else { return nil }
                for index in readings {
                    let (local, summary) = entry.readings[index]
                    let row = Int(local.daysSinceEpoch - range.since.daysSinceEpoch)
                    // A day fed by two archive days: the events add its readings in one run.
                    guard fold!.readings[row] == nil else { return nil }
                    fold!.readings[row] = DailyAnswer.Reading(min: summary.min, max: summary.max, sum: summary.sum, count: summary.count)
                    if fold!.unitAsReading == nil { fold!.unitAsReading = entry.readingDetails[index].unit }
                }
            }
            if let fold { folds[metric] = fold }
        }
        return folds
    }

    /// `dailyFolds` of a metric the catalogue calls a total (its readings are never read), from
    /// the index's column of its day totals: a fold when some day of `positions` holds it.
    private static func totalsFold(index: DigestSnapshot, metric: String, positions: Range<Int>, range: DayRange) -> DailyAnswer.Fold? {
        let column = index.totalsColumn(metric)
        guard let first = positions.first(where: { column.flags[$0] != 0 }) else { return nil }
        var fold = DailyAnswer.Fold(rows: range.dayCount)
        let since = range.since.daysSinceEpoch, until = range.until.daysSinceEpoch
        let ordered = index.ordered
        for position in first..<positions.upperBound where column.flags[position] != 0 {
            if column.flags[position] & 2 != 0 { fold.bucketed = true }
            guard let total = column.totals[position] else { continue }
            let row = index.sortedDays[position].daysSinceEpoch - since
            guard row >= 0, row <= until - since else { continue }
            fold.sums[Int(row)] = total
            if fold.unitAsTotal == nil { fold.unitAsTotal = ordered[position].metrics[metric]?.totalUnit }
        }
        return fold
    }

    static func statisticsFold(index: DigestSnapshot, metric: String, range: DayRange, groupBy: Grouping) -> StatisticsAnswer.Fold? {
        guard let days = read(index, range, metric) else { return nil }
        let catalogueTotal = MetricCatalogue.isTotal(metric)
        var fold = StatisticsAnswer.Fold()
        // Each group's value counts, ascending, merged day by day (each day's are ascending too):
        // no hash of a value, no list of readings.
        var counts = [String: [MirrorDigest.ValueCount]]()
        var lastGroup: (day: CalendarDay, name: String)?
        for (day, _, entry) in days {
            guard let entry else { continue }
            fold.seen = true
            if entry.hourBuckets || entry.dayBuckets { fold.bucketed = true }
            if let total = entry.dayTotal, range.contains(day) {
                fold.dailyTotals[day] = total
                if fold.unitAsTotal == nil { fold.unitAsTotal = entry.totalUnit }
            }
            guard !catalogueTotal else { continue }
            guard let readings = readingsIn(entry, range) else { return nil }
            for index in readings {
                let detail = entry.readingDetails[index]
                // Too many distinct values to count (GPS fixes): the days hold them.
                guard !detail.overflowed else { return nil }
                let local = entry.readings[index].day
                let group = lastGroup?.day == local ? lastGroup!.name : groupBy.group(of: local)
                lastGroup = (local, group)
                counts[group] = merged(counts.removeValue(forKey: group) ?? [], detail.counts)
                if fold.unitAsReading == nil { fold.unitAsReading = detail.unit }
            }
        }
        fold.readingCountsByGroup = counts
        return fold
    }

    /// Two ascending runs of value counts as one, a value in both counted once with their counts added
    /// (values equal as numbers are one value, as the days' counts take them: `-0.0` and `0.0`).
    static func merged(_ a: [MirrorDigest.ValueCount], _ b: [MirrorDigest.ValueCount]) -> [MirrorDigest.ValueCount] {
        if a.isEmpty { return b }
        var out = [MirrorDigest.ValueCount]()
        out.reserveCapacity(a.count + b.count)
        var i = 0, j = 0
        while i < a.count, j < b.count {
            if a[i].value < b[j].value {
                out.append(a[i])
                i += 1
            } else if b[j].value < a[i].value {
                out.append(b[j])
                j += 1
            } else {
                out.append(MirrorDigest.ValueCount(value: a[i].value, count: a[i].count + b[j].count))
                i += 1
                j += 1
            }
        }
        out += a[i...]
        out += b[j...]
        return out
    }

    /// The workouts of `range` as `WorkoutsAnswer` finds them in the days, window by window (the
    /// same windows of held days, each with the week after it), from the index's column of every
    /// day's workouts. Every workout is found (the count, the order, `byActivity` and the page need
    /// them all), but its statistics and route fixes are filled in only when asked for
    /// (`WorkoutsAnswer`'s `completed`): a page of JSON fills a page of them, from the windows its
    /// workouts came from.
    static func workouts(index: DigestSnapshot, held: [CalendarDay], range: DayRange, activity: String?, offset: Int) throws -> WorkoutsAnswer {
        let clock = LocalClock()
        let from = range.since.previous, through = range.until.adding(days: 1)
        let inRange = range.isEmpty ? [] : held.filter { $0 >= from && $0 <= through }
        let column = index.workoutsColumn()
        // The sessions of each window's own days (a run of the column, found by a binary search),
        // and the days each window reads statistics and fixes from (its own and the week after
        // it), as positions in the index's ordered days.
        var chosen = [(at: Int, window: Int)](), spans = [Range<Int>]()
        for (position, window) in DayRange.windows(of: inRange).enumerated() {
            spans.append(index.positions(from: window.first, through: min(through, window.last.adding(days: 7))))
            let days = index.positions(from: window.first, through: window.last)
            var at = WorkoutStatistics.lowerBound(column.positions.count) { column.positions[$0] < days.lowerBound }
            while at < column.positions.count, column.positions[at] < days.upperBound {
                chosen.append((at, position))
                at += 1
            }
        }
        // In the order the days give (the column ranks every session as their sort would).
        chosen.sort { column.ranks[$0.at] < column.ranks[$1.at] }
        var found = [WorkoutsAnswer.Workout](), windows = [Int]()
        let ordered = index.ordered
        found.reserveCapacity(chosen.count)
        windows.reserveCapacity(chosen.count)
        for (at, window) in chosen {
            let session = column.sessions[at], zone = ordered[column.positions[at]].zone
            // A zone this machine does not know is refused as the days' listing refuses it.
            let days = try column.localDays[at] ?? clock.days(from: session.start, to: session.end, in: zone)
            guard days.first <= range.until, days.last >= range.since else { continue }
            let name = column.names[at]
            if let activity, activity != name { continue }
            let seconds = session.duration ?? Double(session.end - session.start)
            var workout = WorkoutsAnswer.Workout(start: session.start, end: session.end, activity: name, day: days.first,
                                                 minutes: Distribution.round3(seconds / 60), source: session.source)
            workout.timeZone = zone
            found.append(workout)
            windows.append(window)
        }
        let days = ordered, windowDays = spans
        return WorkoutsAnswer(range: range, activity: activity, sorted: found, offset: offset) { [found, windows] positions in
            positions.map { position in
                var workout = found[position]
                IndexedAnswers.fill(&workout, from: column, days: windowDays[windows[position]], index: days)
                return workout
            }
        }
    }

    /// Fills in `workout`'s statistics and route fixes as `WorkoutStatistics` does over the days
    /// at `days` (its window's, with the week after): the statistics that start when it starts on
    /// those days, in day and body order, and the fixes of those days within its span.
    private static func fill(_ workout: inout WorkoutsAnswer.Workout, from column: DigestSnapshot.WorkoutsColumn, days: Range<Int>,
                             index ordered: [MirrorDigest.Day]) {
        let start = workout.start
        var sums = WorkoutStatistics.Sums()
        var at = WorkoutStatistics.lowerBound(column.parts.count) { column.parts[$0].start < start }
        while at < column.parts.count, column.parts[at].start == start {
            if column.partKinds[at] != .other, days.contains(column.partPositions[at]), column.parts[at].source == workout.source {
                sums.add(column.partKinds[at], column.parts[at].value) { column.parts[at].metric }
            }
            at += 1
        }
        sums.fill(&workout)
        var count = 0
        at = WorkoutStatistics.lowerBound(column.fixPositions.count) { column.fixPositions[$0] < days.lowerBound }
        while at < column.fixPositions.count, column.fixPositions[at] < days.upperBound {
            let span = column.fixSpans[at]
            if span.first <= workout.end && span.last >= workout.start {
                count += WorkoutStatistics.fixes(in: ordered[column.fixPositions[at]].workouts.fixStarts, of: workout)
            }
            at += 1
        }
        if count > 0 { workout.routeFixes = count }
    }

    /// A page of samples opening only the days it returns (and those at the range's edges, whose
    /// events may lie partly outside it): the other days are counted from the index. Days are
    /// opened in the order of their earliest start until no unopened day can start before the
    /// last row of the page.
    static func samples(index: DigestSnapshot, source: MirrorSource, metric: String, range: DayRange, limit: Int, offset: Int) throws -> SamplesAnswer? {
        guard let days = read(index, range, metric) else { return nil }
        let clock = LocalClock()
        let offset = min(max(0, offset), DayRange.Limits.maximumOffset)
        let wanted = offset + limit
        var matched = 0
        var candidates = [(position: Int, day: CalendarDay, entry: MirrorDigest.MetricDay, whole: Bool)]()
        for (position, (day, zone, entry)) in days.enumerated() {
            guard let entry, entry.events > 0 else { continue }
            // Every event overlaps the range when the latest start falls on or before `until`
            // and the earliest end on or after `since`, in the day's zone.
            let whole = try clock.day(of: entry.lastStart, in: zone) <= range.until
                && clock.day(of: entry.firstLastInstant, in: zone) >= range.since
            candidates.append((position, day, entry, whole))
        }
        candidates.sort { ($0.entry.firstStart, $0.position) < ($1.entry.firstStart, $1.position) }
        var kept = [(event: ArchiveEvent, order: Int)]()
        func ordered(_ a: (event: ArchiveEvent, order: Int), _ b: (event: ArchiveEvent, order: Int)) -> Bool {
            (a.event.event.start, a.event.event.end, a.order) < (b.event.event.start, b.event.event.end, b.order)
        }
        var pageFull = false
        for candidate in candidates {
            if pageFull, !candidate.whole || candidate.entry.firstStart <= kept[wanted - 1].event.event.start {
                // Still needed: to count its events, or because one may belong on the page.
            } else if pageFull {
                matched += candidate.entry.events
                continue
            }
            let events = try source.events(from: candidate.day, through: candidate.day, metric: metric)
            var overlapping = 0
            for (position, item) in events.enumerated() where try clock.overlaps(item, range) {
                kept.append((item, candidate.position << 32 | position))
                overlapping += 1
            }
            matched += overlapping
            if kept.count >= wanted {
                kept.sort(by: ordered)
                kept.removeSubrange(wanted...)
                pageFull = true
            }
        }
        kept.sort(by: ordered)
        let page = kept.dropFirst(offset).prefix(limit).map(\.event)
        return SamplesAnswer(metric: metric, range: range, matched: matched, offset: offset, events: Array(page))
    }
}
