import EfferentCore
import EfferentSystem

/// The mirror's digest at one moment: what the catalogue, the charts and the range statistics
/// read. Values equal what the answers compute from the same days (`daily`'s per-day totals and
/// readings, the overview's lines), and tests hold them to it.
public struct DigestSnapshot: Sendable {
    /// Every digested day, ascending.
    public let sortedDays: [CalendarDay]
    /// The overview's lines of any run of `sortedDays` (the index's tally lines, by position).
    let tallies: OverviewTallies
    /// Metrics whose events carry buckets somewhere: totals, whatever the catalogue says.
    let bucketed: Set<String>
    /// The days' digests, decoded the first time an answer asks (an overview never does).
    private let content: Content
    /// The columns answers read by position (`TotalsColumn` per metric asked for, `WorkoutsColumn`),
    /// each built the first time an answer asks and kept while this snapshot is.
    private let columns = BuiltColumns()

    /// Every digested day's digest.
    public var days: [CalendarDay: MirrorDigest.Day] { content.held.days }
    /// The digest of each of `sortedDays`, at the same position: an answer over a range walks
    /// them by position instead of hashing each day (that, and copying each day's whole digest
    /// out of the dictionary, was most of a page of daily steps). Take it once per answer: each
    /// read asks the lock that guards its decoding.
    var ordered: [MirrorDigest.Day] { content.held.ordered }
    /// The overview's line of each metric over every day, by name.
    public var lines: [String: OverviewAnswer.MetricLine] { tallies.all }

    /// The digests of a snapshot, decoded once: given, or by `load` on the first read.
    private final class Content: Sendable {
        private let sortedDays: [CalendarDay]
        private let load: (@Sendable () -> [CalendarDay: MirrorDigest.Day])?
        private let value: Mutex<(days: [CalendarDay: MirrorDigest.Day], ordered: [MirrorDigest.Day])?>

        init(sortedDays: [CalendarDay], days: [CalendarDay: MirrorDigest.Day]?, load: (@Sendable () -> [CalendarDay: MirrorDigest.Day])?) {
            self.sortedDays = sortedDays
            self.load = load
            value = Mutex(days.map { (days: $0, ordered: Self.order(sortedDays, $0)) })
        }

        /// Each of `sortedDays`' digests in order (an empty one for a day `days` lacks, which the
        /// load that could not read it said).
        private static func order(_ sortedDays: [CalendarDay], _ days: [CalendarDay: MirrorDigest.Day]) -> [MirrorDigest.Day] {
            sortedDays.map { days[$0] ?? MirrorDigest.Day(stamp: "", zone: nil, metrics: [:]) }
        }

        var held: (days: [CalendarDay: MirrorDigest.Day], ordered: [MirrorDigest.Day]) {
            value.withLock { value in
                if let value { return value }
                let days = load?() ?? [:]
                let loaded = (days: days, ordered: Self.order(sortedDays, days))
                value = loaded
                return loaded
            }
        }
    }

    /// One metric's day totals laid out by position in `sortedDays`, side by side in memory: a
    /// page of daily steps reads 400 of them, and reaching each day's entry through its own
    /// dictionary of metrics cost a cache miss or two a day (most of the fold, in perf).
    struct TotalsColumn: Sendable {
        /// Per position: whether the day holds the metric (bit 0) and whether its events there
        /// carry buckets (bit 1).
        let flags: [UInt8]
        /// Per position: the day's total, when it has one.
        let totals: [Double?]
    }

    /// Every held day's workouts, in day and body order, each with its day's position: the
    /// listing of a decade's workouts walks this one array instead of each day's own. A class:
    /// each workout of a page filled from it captured a copy of its dozen arrays (a retain and a
    /// release of each, a fifth of a page's time in perf).
    final class WorkoutsColumn: Sendable {
        let positions: [Int]
        let sessions: [WorkoutDay.Session]
        /// Per session: its activity's reader-side name (`MetricCatalogue.activityName`).
        let names: [String]
        /// Per session: the local days its start and its last instant fall on in its day's zone
        /// (`nil` for a zone this machine does not know, which the listing then refuses as it would).
        let localDays: [(first: CalendarDay, last: CalendarDay)?]
        /// Per session: its place among all of them in the order workouts are listed in
        /// (`WorkoutsAnswer.listedBefore`), ties in day and body order: a listing of any days sorts
        /// its sessions by these numbers, as a stable sort of them by start, end and name would.
        let ranks: [Int]
        /// Every held day's workout statistics by start, those of one start in day and body
        /// order, each with its day's position: a workout's are found by a binary search.
        let parts: [WorkoutDay.Part]
        let partPositions: [Int]
        /// Per statistic: what it adds to.
        let partKinds: [WorkoutStatistics.PartKind]
        /// The days with route fixes, in day order: each one's position and first and last fix start.
        let fixPositions: [Int]
        let fixSpans: [(first: Int64, last: Int64)]

        init(positions: [Int], sessions: [WorkoutDay.Session], names: [String], localDays: [(first: CalendarDay, last: CalendarDay)?], ranks: [Int],
             parts: [WorkoutDay.Part], partPositions: [Int], partKinds: [WorkoutStatistics.PartKind], fixPositions: [Int],
             fixSpans: [(first: Int64, last: Int64)]) {
            self.positions = positions
            self.sessions = sessions
            self.names = names
            self.localDays = localDays
            self.ranks = ranks
            self.parts = parts
            self.partPositions = partPositions
            self.partKinds = partKinds
            self.fixPositions = fixPositions
            self.fixSpans = fixSpans
        }
    }

    private final class BuiltColumns: Sendable {
        let totals = Mutex<[String: TotalsColumn]>([:])
        let workouts = Mutex<WorkoutsColumn?>(nil)
    }

    /// A snapshot of digests already decoded.
    init(sortedDays: [CalendarDay], tallies: OverviewTallies, decoded: [CalendarDay: MirrorDigest.Day]) {
        self.sortedDays = sortedDays
        self.tallies = tallies
        bucketed = tallies.bucketed
        content = Content(sortedDays: sortedDays, days: decoded, load: nil)
    }

    /// A snapshot whose digests `load` decodes on the first read.
    init(sortedDays: [CalendarDay], tallies: OverviewTallies, load: @escaping @Sendable () -> [CalendarDay: MirrorDigest.Day]) {
        self.sortedDays = sortedDays
        self.tallies = tallies
        bucketed = tallies.bucketed
        content = Content(sortedDays: sortedDays, days: nil, load: load)
    }

    /// A snapshot of `days` (tests, and a digest not yet refreshed), tallied from their digests.
    init(days: [CalendarDay: MirrorDigest.Day]) {
        let sorted = days.keys.sorted()
        var strings = IndexStrings()
        let lines = sorted.map { DigestCoding.tally(of: days[$0]!, strings: &strings)[...] }
        self.init(sortedDays: sorted, tallies: OverviewTallies(days: sorted, lines: lines, table: strings.list)!, decoded: days)
    }

    /// `metric`'s day totals by position, built from `ordered` the first time it is asked for.
    func totalsColumn(_ metric: String) -> TotalsColumn {
        if let known = columns.totals.withLock({ $0[metric] }) { return known }
        let ordered = self.ordered
        var flags = [UInt8](repeating: 0, count: ordered.count), totals = [Double?](repeating: nil, count: ordered.count)
        for position in ordered.indices {
            guard let entry = ordered[position].metrics[metric] else { continue }
            flags[position] = 1 | (entry.hourBuckets || entry.dayBuckets ? 2 : 0)
            totals[position] = entry.dayTotal
        }
        let column = TotalsColumn(flags: flags, totals: totals)
        columns.totals.withLock { $0[metric] = column }
        return column
    }

    /// The workouts of every held day by position, gathered the first time they are asked for.
    func workoutsColumn() -> WorkoutsColumn {
        if let known = columns.workouts.withLock({ $0 }) { return known }
        let ordered = self.ordered
        var positions = [Int](), sessions = [WorkoutDay.Session]()
        var parts = [(part: WorkoutDay.Part, position: Int)](), fixPositions = [Int](), fixSpans = [(first: Int64, last: Int64)]()
        for position in ordered.indices {
            let workouts = ordered[position].workouts
            for session in workouts.sessions {
                positions.append(position)
                sessions.append(session)
            }
            for part in workouts.parts { parts.append((part, position)) }
            if let first = workouts.fixStarts.first, let last = workouts.fixStarts.last {
                fixPositions.append(position)
                fixSpans.append((first, last))
            }
        }
        // By start, ties kept in day and body order (the order a workout's statistics are summed in).
        let order = parts.indices.sorted { (parts[$0].part.start, $0) < (parts[$1].part.start, $1) }
        let names = sessions.map { MetricCatalogue.activityName($0.activity) }
        let clock = LocalClock()
        let localDays = sessions.indices.map { at in try? clock.days(from: sessions[at].start, to: sessions[at].end, in: ordered[positions[at]].zone) }
        var ranks = [Int](repeating: 0, count: sessions.count)
        let listed = sessions.indices.sorted {
            (sessions[$0].start, sessions[$0].end, names[$0], $0) < (sessions[$1].start, sessions[$1].end, names[$1], $1)
        }
        for (rank, at) in listed.enumerated() { ranks[at] = rank }
        let column = WorkoutsColumn(positions: positions, sessions: sessions, names: names, localDays: localDays, ranks: ranks,
                                    parts: order.map { parts[$0].part }, partPositions: order.map { parts[$0].position },
                                    partKinds: order.map { WorkoutStatistics.PartKind(parts[$0].part.metric) },
                                    fixPositions: fixPositions, fixSpans: fixSpans)
        columns.workouts.withLock { $0 = column }
        return column
    }

    /// The digested days from `from` through `through`, ascending.
    func held(from: CalendarDay, through: CalendarDay) -> ArraySlice<CalendarDay> {
        sortedDays[positions(from: from, through: through)]
    }

    /// The positions in `sortedDays` (and `ordered`) of the digested days from `from` through `through`.
    func positions(from: CalendarDay, through: CalendarDay) -> Range<Int> {
        func firstIndex(notBefore day: CalendarDay) -> Int {
            var low = 0, high = sortedDays.count
            while low < high {
                let middle = (low + high) / 2
                if sortedDays[middle] < day { low = middle + 1 } else { high = middle }
            }
            return low
        }
        let start = firstIndex(notBefore: from), end = firstIndex(notBefore: through.next)
        return start < end ? start..<end : 0..<0
    }

    /// The overview of every mirrored day, as `efferent overview` answers it.
    public func overview(archive: ArchiveFacts? = nil) -> OverviewAnswer {
        OverviewAnswer(readableDays: sortedDays.count, firstDay: sortedDays.first, lastDay: sortedDays.last,
                       metrics: lines.keys.sorted().map { lines[$0]! }, archive: archive)
    }

    /// Whether `metric` is summed into totals: by the catalogue, or because its events carry buckets.
    public func isTotal(_ metric: String) -> Bool { MetricCatalogue.isTotal(metric) || bucketed.contains(metric) }

    /// The zone `day` was cut in, when it names one.
    public func zone(of day: CalendarDay) -> String? { days[day]?.zone }

    /// The zones of the days of `range` (and the day either side), the others in `fallback`.
    public func zones(around range: DayRange, fallback: String) -> ZoneTimeline {
        var zones = [CalendarDay: String]()
        let days = self.days
        var day = range.since.previous
        while day <= range.until.next {
            if let zone = days[day]?.zone { zones[day] = zone }
            day = day.next
        }
        return ZoneTimeline(zones: zones, fallback: fallback)
    }

    /// `metric` per local day over `range`, as `daily` computes it: totals from the day buckets
    /// filed under each day, readings from the day before `since` on, by the local day of their start.
    public func values(of metric: String, range: DayRange) -> DayValues {
        var values = DayValues(metric: metric, isTotal: isTotal(metric))
        let days = self.days
        var day = range.since.previous
        while day <= range.until {
            defer { day = day.next }
            guard let entry = days[day]?.metrics[metric] else { continue }
            if values.isTotal {
                if let total = entry.dayTotal, range.contains(day) { values.totals[day, default: 0] += total }
            } else {
                for (local, summary) in entry.readings where range.contains(local) {
                    if values.readings[local] == nil { values.readings[local] = summary } else { values.readings[local]!.merge(summary) }
                }
            }
        }
        return values
    }

    /// The last local day with a value of `metric` on or before `day`, and that value: a total's
    /// day total, or a reading's summary for the day (its `lastValue` the latest reading).
    public func latest(_ metric: String, onOrBefore day: CalendarDay) -> (day: CalendarDay, total: Double?, readings: ValueSummary?)? {
        guard let line = lines[metric] else { return nil }
        var current = min(day.next, line.lastDay)
        let total = isTotal(metric), days = self.days
        while current >= line.firstDay {
            defer { current = current.previous }
            guard let entry = days[current]?.metrics[metric] else { continue }
            if total, let value = entry.dayTotal, current <= day { return (current, value, nil) }
            if !total, let last = entry.readings.filter({ $0.day <= day }).max(by: { $0.summary.lastStart < $1.summary.lastStart }) {
                return (last.day, nil, values(of: metric, range: try! DayRange(since: last.day, until: last.day)).readings[last.day])
            }
        }
        return nil
    }
}
