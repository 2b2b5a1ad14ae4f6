import EfferentCore
import EfferentSystem

/// What every mirrored day holds, metric by metric, kept in memory beside the mirror: each
/// metric's events, units and buckets, its day total, and its readings summarised per local day.
/// A server that runs for days (the dashboard) answers the catalogue, a decade's chart and a
/// range's statistics from it instead of reading ten years of days again for each page.
///
/// It follows the mirror: `refresh()` compares the mirror's record of upload times with the
/// digest's and reads again only the days that changed, so a sync's new days appear on the next
/// refresh and nothing is ever a mix of two versions of a day. Safe to share between threads;
/// refreshes take turns, answers read the last snapshot.
public final class MirrorDigest: Sendable {
    /// One metric on one archive day.
    public struct MetricDay: Sendable, Equatable {
        public let kind: DayEvent.Kind
        public var units: [String: Int] = [:]
        public var hourBuckets = false
        public var dayBuckets = false
        public var events = 0
        /// The sum of the day-bucket totals filed under the day.
        public var dayTotal: Double?
        /// The first unit a day-bucket total with a value carries, in body order.
        public var totalUnit: String?
        /// Readings (events with a value and no bucket) by the local day their start falls on.
        public var readings: [(day: CalendarDay, summary: ValueSummary)] = []
        /// Beside each of `readings`: its first unit and every value with how often it occurs,
        /// which is all a distribution of them needs (`statistics` sorts its values).
        public var readingDetails: [ReadingDetail] = []
        /// The earliest and latest start and the earliest last instant (the end, less a second
        /// when it is after the start) of the metric's events: which days a page of samples
        /// must open, and which it can count without opening.
        public var firstStart = Int64.max, lastStart = Int64.min, firstLastInstant = Int64.max
        /// Words held as they came, with how many events carry each (`MetricCatalogue.wordNotYetKnown`).
        public var words: [String: Int] = [:]

        public init(kind: DayEvent.Kind) { self.kind = kind }

        public static func == (a: MetricDay, b: MetricDay) -> Bool {
            a.kind == b.kind && a.units == b.units && a.words == b.words && a.hourBuckets == b.hourBuckets && a.dayBuckets == b.dayBuckets
                && a.events == b.events && a.dayTotal?.bitPattern == b.dayTotal?.bitPattern && a.totalUnit == b.totalUnit
                && a.readings.elementsEqual(b.readings) { $0.day == $1.day && $0.summary == $1.summary }
                && a.readingDetails == b.readingDetails
                && a.firstStart == b.firstStart && a.lastStart == b.lastStart && a.firstLastInstant == b.firstLastInstant
        }
    }

    /// The first unit and the value counts of one local day's readings.
    public struct ReadingDetail: Sendable, Equatable {
        public var unit: String?
        /// Each value with how often it occurs, ascending (an array, not a dictionary: a decade
        /// holds hundreds of thousands of them).
        public var counts: [ValueCount] = []
        /// More than `maximumValues` distinct values (GPS fixes, ECG voltages): the counts are
        /// dropped, and a distribution over this day's readings reads the day.
        public var overflowed = false

        /// Distinct values a local day's readings are counted up to: heart rate has about a
        /// hundred; a metric of measurements that rarely repeat would make the index a copy of the days.
        public static let maximumValues = 256

        public init(unit: String?, counts: [ValueCount] = [], overflowed: Bool = false) {
            self.unit = unit
            self.counts = counts
            self.overflowed = overflowed
        }

        /// Counts one more reading of `value`.
        mutating func add(_ value: Double) {
            guard !overflowed else { return }
            var low = 0, high = counts.count
            while low < high {
                let middle = (low + high) / 2
                if counts[middle].value < value { low = middle + 1 } else { high = middle }
            }
            if low < counts.count, counts[low].value == value { counts[low].count += 1; return }
            guard counts.count < Self.maximumValues else {
                counts = []
                overflowed = true
                return
            }
            counts.insert(ValueCount(value: value, count: 1), at: low)
        }
    }

    /// A reading's value and how many readings have it.
    public struct ValueCount: Sendable, Equatable {
        public var value: Double
        public var count: Int
    }

    /// One archive day as digested, and the upload time it was read at.
    public struct Day: Sendable, Equatable {
        public let stamp: String
        /// The zone the day was cut in (its body's `tz`); nil is UTC.
        public let zone: String?
        public let metrics: [String: MetricDay]
        /// A zone no reading's local day could be told in: the day's readings are left out, and
        /// answers that need them read the day itself (and say what the events path says).
        public let unknownZone: String?
        /// Its workouts, their statistics and route fixes, as a workouts answer reads them.
        public let workouts: WorkoutDay
        /// Its sleep stretches in body order, each with the zone its events carry, as a sleep answer reads them.
        public let sleep: [SleepNight.Stretch]

        public init(stamp: String, zone: String?, metrics: [String: MetricDay], unknownZone: String? = nil, workouts: WorkoutDay = WorkoutDay(),
                    sleep: [SleepNight.Stretch] = []) {
            self.stamp = stamp
            self.zone = zone
            self.metrics = metrics
            self.unknownZone = unknownZone
            self.workouts = workouts
            self.sleep = sleep
        }
    }

    private let mirror: Mirror
    private let current = Mutex<DigestSnapshot>(DigestSnapshot(days: [:]))
    /// Held for a whole refresh, so two requests never read the same changed days twice.
    private let turn = Mutex<Void>(())

    public init(mirror: Mirror) { self.mirror = mirror }

    /// The digest as last refreshed.
    public var snapshot: DigestSnapshot { current.withLock { $0 } }

    /// Brings the digest up to the mirror: the mirror's index, in which only the days whose
    /// upload time or file changed are read again and days the mirror no longer holds are
    /// forgotten; returns the snapshot that results (the same one when nothing changed).
    @discardableResult
    public func refresh() throws -> DigestSnapshot {
        try turn.withLock { _ in
            let snapshot = try mirror.indexSnapshot()
            // The pages need every reading's day; a zone none can be told in is said, as the answers say it.
            if let zone = snapshot.days.values.lazy.compactMap(\.unknownZone).first { throw AnswerError.unknownTimeZone(zone) }
            current.withLock { $0 = snapshot }
            return snapshot
        }
    }

    /// One day body's digest: every series of a layout-2 day read a series at a time, a layout-1
    /// day's lines as events. Each metric's figures are folded in body order, as the answers fold
    /// them, so a day total or a day's readings sum to the same bits.
    /// `decoded` is the body already decoded, when the caller has it (sync checks each day it opens).
    public static func digest(_ bytes: [UInt8], decoded given: DecodedDay? = nil, day: CalendarDay, stamp: String,
                              clock: LocalClock = LocalClock()) throws -> Day {
        let decoded: DecodedDay
        if let given {
            decoded = given
        } else {
            do throws(DayBodyError) { decoded = try DayBody(bytes: bytes).decoded() } catch { throw MirrorError.unreadableDay(day, error.description) }
        }
        var metrics = [String: MetricDay]()
        var unknownZone: String?
        var workouts = WorkoutDay()
        var sleep = [SleepNight.Stretch]()
        // A metric's entry is taken out of the dictionary while its events are folded, so its
        // arrays are changed in place rather than copied per event.
        func fold(_ events: some Sequence<DayEvent>, zone: String?, wantsWorkouts: Bool) {
            var current: (metric: String, entry: MetricDay)?
            for event in events {
                if current?.metric != event.metric {
                    if let (metric, entry) = current { metrics[metric] = entry }
                    current = (event.metric, metrics.removeValue(forKey: event.metric) ?? MetricDay(kind: event.kind))
                }
                tally(event, into: &current!.entry, zone: zone)
                if wantsWorkouts { workouts.add(event) }
                if event.metric == "sleep" { sleep.append(SleepNight.Stretch(start: event.start, end: event.end, stage: event.stage, timeZone: zone)) }
            }
            if let (metric, entry) = current { metrics[metric] = entry }
        }
        func tally(_ event: DayEvent, into entry: inout MetricDay, zone: String?) {
            if let unit = event.unit { entry.units[unit, default: 0] += 1 }
            if let word = MetricCatalogue.wordNotYetKnown(metric: event.metric, stage: event.stage, activity: event.activity) {
                entry.words[word, default: 0] += 1
            }
            if event.bucket == .hour { entry.hourBuckets = true }
            if event.bucket == .day { entry.dayBuckets = true }
            entry.events += 1
            entry.firstStart = min(entry.firstStart, event.start)
            entry.lastStart = max(entry.lastStart, event.start)
            entry.firstLastInstant = min(entry.firstLastInstant, event.end > event.start ? event.end - 1 : event.end)
            guard let value = event.value else { return }
            if event.bucket == .day {
                entry.dayTotal = (entry.dayTotal ?? 0) + value
                if entry.totalUnit == nil { entry.totalUnit = event.unit }
            } else if event.bucket == nil {
                let local: CalendarDay
                do { local = try clock.day(of: event.start, in: zone) } catch {
                    if unknownZone == nil { unknownZone = zone ?? "UTC" }
                    return
                }
                if let index = entry.readings.lastIndex(where: { $0.day == local }) {
                    entry.readings[index].summary.add(value, at: event.start)
                    if entry.readingDetails[index].unit == nil { entry.readingDetails[index].unit = event.unit }
                    entry.readingDetails[index].add(value)
                } else {
                    entry.readings.append((local, ValueSummary(value, at: event.start)))
                    entry.readingDetails.append(ReadingDetail(unit: event.unit, counts: [ValueCount(value: value, count: 1)]))
                }
            }
        }
        var zone: String?
        switch decoded {
        case let .columnar(columns):
            zone = columns.timeZone
            // What a series' rows share (kind, unit, bucket) is tallied once per series, and the
            // zone's calendar is looked up once per day: sync digests every day it stores.
            let calendar = try? clock.zone(zone)
            // The offset and its span between transitions, and the local day last told: a reading
            // whose instant falls within both is on that day without asking the calendar again
            // (the same day `calendar.day(of:)` tells, which is the offset added and floored).
            var span = (offset: Int64(0), from: 1.0, until: 0.0)
            var localFirst = Int64.min, localDay = CalendarDay(unixSeconds: 0)
            for series in columns.series where series.count > 0 {
                let key = series.key
                var entry = metrics.removeValue(forKey: key.metric) ?? MetricDay(kind: key.kind)
                if let unit = key.unit { entry.units[unit, default: 0] += series.count }
                entry.words.merge(MetricCatalogue.wordsNotYetKnown(in: series), uniquingKeysWith: +)
                if key.bucket == .hour { entry.hourBuckets = true }
                if key.bucket == .day { entry.dayBuckets = true }
                entry.events += series.count
                // Rows are folded from the series' columns, never built as events: sync digests every
                // row of every day it stores (a decade is 29 million, most of them GPS fixes and ECG
                // voltages), and an event per row cost more than storing the days. Each figure is
                // folded in row order, as the events path folds it, so sums keep their bits.
                let count = series.count, starts = series.starts, ends = series.ends
                for row in 0..<count {
                    let start = starts[row], end = ends[row]
                    entry.firstStart = min(entry.firstStart, start)
                    entry.lastStart = max(entry.lastStart, start)
                    entry.firstLastInstant = min(entry.firstLastInstant, end > start ? end - 1 : end)
                }
                if WorkoutStatistics.wanted(key.metric) { workouts.add(series) }
                if key.metric == "sleep" {
                    for row in 0..<count { sleep.append(SleepNight.Stretch(start: starts[row], end: ends[row], stage: series.event(at: row).stage, timeZone: zone)) }
                }
                // Hour buckets' values are neither a day total nor readings; a value of NaN is a row without one.
                if let values = series.values, key.bucket != .hour {
                    if key.bucket == .day {
                        for row in 0..<count where !values[row].isNaN {
                            entry.dayTotal = (entry.dayTotal ?? 0) + values[row]
                            if entry.totalUnit == nil { entry.totalUnit = key.unit }
                        }
                    } else {
                        var reading = entry.readings.count - 1
                        for row in 0..<count where !values[row].isNaN {
                            let value = values[row], start = starts[row]
                            guard let calendar else {
                                if unknownZone == nil { unknownZone = zone ?? "UTC" }
                                continue
                            }
                            let seconds = Double(start)
                            if !(seconds >= span.from && seconds < span.until) { span = calendar.offsetSpan(at: seconds) }
                            let wall = start + span.offset
                            if wall < localFirst || wall >= localFirst + 86_400 {
                                localFirst = (wall >= 0 ? wall / 86_400 : (wall - 86_399) / 86_400) * 86_400
                                localDay = CalendarDay(unixSeconds: wall)
                            }
                            let local = localDay
                            if reading < 0 || entry.readings[reading].day != local {
                                reading = entry.readings.lastIndex { $0.day == local } ?? -1
                            }
                            if reading >= 0 {
                                entry.readings[reading].summary.add(value, at: start)
                                if entry.readingDetails[reading].unit == nil { entry.readingDetails[reading].unit = key.unit }
                                entry.readingDetails[reading].add(value)
                            } else {
                                reading = entry.readings.count
                                entry.readings.append((local, ValueSummary(value, at: start)))
                                entry.readingDetails.append(ReadingDetail(unit: key.unit, counts: [ValueCount(value: value, count: 1)]))
                            }
                        }
                    }
                }
                metrics[key.metric] = entry
            }
        case .lines:
            for item in try MirrorSource.events(of: bytes, day: day) {
                fold(CollectionOfOne(item.event), zone: item.timeZone, wantsWorkouts: WorkoutStatistics.wanted(item.event.metric))
            }
        }
        // Sorted, so a workout's fixes are counted in each day by two binary searches (`WorkoutStatistics`).
        workouts.fixStarts.sort()
        return Day(stamp: stamp, zone: zone, metrics: metrics, unknownZone: unknownZone, workouts: workouts, sleep: sleep)
    }
}
