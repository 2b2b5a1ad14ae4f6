import EfferentCore

/// One day's digest (`MirrorDigest.Day`, all but its upload time) as the bytes `index.bin` holds
/// in its digests section, and its line in the tallies section (what the overview counts of it).
///
/// The digest: its zone, then each metric in name order (kind, buckets, units with their counts,
/// words not yet known with theirs, events, day total, the span of its starts, its readings per local day with their value
/// counts), its workouts (sessions, statistics, route fix starts as rising differences) and its
/// sleep stretches. Decoding holds every field to what a digest of real days can hold — instants
/// within years 0001…9999, counts at least one, names in order and once, value counts rising and
/// adding up to their readings — so bytes that pass a checksum but were never a digest are still
/// refused, and no answer is built from them.
enum DigestCoding {
    static func encode(_ digest: MirrorDigest.Day, strings: inout IndexStrings) -> [UInt8] {
        var out = IndexWriter()
        swap(&out.strings, &strings)
        defer { swap(&out.strings, &strings) }
        out.optional(digest.zone)
        out.optional(digest.unknownZone)
        out.int(digest.metrics.count)
        for (metric, m) in digest.metrics.sorted(by: { $0.key < $1.key }) {
            out.string(metric)
            out.bytes.append(m.kind == .total ? 1 : 0)
            out.bytes.append((m.hourBuckets ? 1 : 0) | (m.dayBuckets ? 2 : 0) | (m.dayTotal != nil ? 4 : 0))
            out.int(m.units.count)
            for (unit, count) in m.units.sorted(by: { $0.key < $1.key }) {
                out.string(unit)
                out.int(count)
            }
            out.int(m.words.count)
            for (word, count) in m.words.sorted(by: { $0.key < $1.key }) {
                out.string(word)
                out.int(count)
            }
            out.int(m.events)
            out.double(m.dayTotal ?? 0)
            out.optional(m.totalUnit)
            out.int64(m.firstStart)
            out.int64(m.lastStart)
            out.int64(m.firstLastInstant)
            out.int(m.readings.count)
            for (reading, detail) in zip(m.readings, m.readingDetails) {
                out.int(Int(reading.day.daysSinceEpoch))
                let s = reading.summary
                out.int(s.count)
                out.double(s.min)
                out.double(s.max)
                out.double(s.sum)
                out.int64(s.lastStart)
                out.double(s.lastValue)
                out.optional(detail.unit)
                out.bytes.append(detail.overflowed ? 1 : 0)
                out.int(detail.counts.count)
                for item in detail.counts {
                    out.double(item.value)
                    out.int(item.count)
                }
            }
        }
        let workouts = digest.workouts
        out.int(workouts.sessions.count)
        for session in workouts.sessions {
            out.int64(session.start)
            out.int64(session.end)
            out.optional(session.activity)
            out.optional(session.source)
            out.bytes.append(session.duration != nil ? 1 : 0)
            out.double(session.duration ?? 0)
        }
        out.int(workouts.parts.count)
        for part in workouts.parts {
            out.optional(part.source)
            out.int64(part.start)
            out.string(part.metric)
            out.double(part.value)
        }
        out.int(workouts.fixStarts.count)
        var previous: Int64 = 0
        for start in workouts.fixStarts {
            out.int64(start &- previous)
            previous = start
        }
        out.int(digest.sleep.count)
        for stretch in digest.sleep {
            out.int64(stretch.start)
            out.int64(stretch.end &- stretch.start)
            out.string(stretch.stage)
            out.optional(stretch.timeZone)
        }
        return out.bytes
    }

    /// A day's digest from the bytes `encode` wrote with `table`, read at `stamp`; nil when they
    /// do not read as one.
    static func decode(_ bytes: ArraySlice<UInt8>, stamp: String, table: [String]) -> MirrorDigest.Day? {
        var input = IndexReader(bytes: bytes, table: table)
        guard let zone = input.optional(), let unknownZone = input.optional(), let metricCount = input.count() else { return nil }
        var metrics = [String: MirrorDigest.MetricDay](minimumCapacity: metricCount)
        var previousMetric: String?
        for _ in 0..<metricCount {
            guard let metric = input.string(), previousMetric.map({ $0 < metric }) ?? true,
                  let kind = input.byte(), kind <= 1, let flags = input.byte(), flags <= 7, let unitCount = input.count() else { return nil }
            previousMetric = metric
            var m = MirrorDigest.MetricDay(kind: kind == 1 ? .total : .record)
            m.hourBuckets = flags & 1 != 0
            m.dayBuckets = flags & 2 != 0
            var previousUnit: String?
            for _ in 0..<unitCount {
                guard let unit = input.string(), previousUnit.map({ $0 < unit }) ?? true, let n = input.tally() else { return nil }
                previousUnit = unit
                m.units[unit] = n
            }
            guard let wordCount = input.count() else { return nil }
            var previousWord: String?
            for _ in 0..<wordCount {
                guard let word = input.string(), previousWord.map({ $0 < word }) ?? true, let n = input.tally() else { return nil }
                previousWord = word
                m.words[word] = n
            }
            // Every metric of a day holds one event at least, so its span is of real instants.
            guard let events = input.tally(), let total = input.double(), !total.isNaN, let totalUnit = input.optional(),
                  let firstStart = input.instant(), let lastStart = input.instant(), let firstLast = input.instant(), firstStart <= lastStart,
                  let readingCount = input.count() else { return nil }
            m.events = events
            m.dayTotal = flags & 4 != 0 ? total : nil
            m.totalUnit = totalUnit
            m.firstStart = firstStart
            m.lastStart = lastStart
            m.firstLastInstant = firstLast
            m.readings.reserveCapacity(readingCount)
            m.readingDetails.reserveCapacity(readingCount)
            for _ in 0..<readingCount {
                guard let local = input.day(), let n = input.tally(), let low = input.finite(), let high = input.finite(), low <= high,
                      let sum = input.double(), !sum.isNaN, let lastAt = input.instant(), let lastValue = input.finite(),
                      let unit = input.optional(), let overflowed = input.flag(), let distinct = input.count(each: 9),
                      distinct <= MirrorDigest.ReadingDetail.maximumValues, !overflowed || distinct == 0 else { return nil }
                var counts = [MirrorDigest.ValueCount]()
                counts.reserveCapacity(distinct)
                var counted = 0
                for _ in 0..<distinct {
                    guard let value = input.finite(), counts.last.map({ $0.value < value }) ?? true,
                          let times = input.int(), times >= 1, times <= n - counted else { return nil }
                    counted += times
                    counts.append(MirrorDigest.ValueCount(value: value, count: times))
                }
                guard overflowed || counted == n else { return nil }
                m.readings.append((local, ValueSummary(count: n, min: low, max: high, sum: sum, lastStart: lastAt, lastValue: lastValue)))
                m.readingDetails.append(MirrorDigest.ReadingDetail(unit: unit, counts: counts, overflowed: overflowed))
            }
            metrics[metric] = m
        }
        var workouts = WorkoutDay()
        guard let sessions = input.count() else { return nil }
        workouts.sessions.reserveCapacity(sessions)
        for _ in 0..<sessions {
            guard let start = input.instant(), let end = input.instant(), end >= start, let activity = input.optional(), let source = input.optional(),
                  let hasDuration = input.flag(), let duration = input.double(), !duration.isNaN else { return nil }
            workouts.sessions.append(WorkoutDay.Session(start: start, end: end, activity: activity, duration: hasDuration ? duration : nil, source: source))
        }
        guard let parts = input.count() else { return nil }
        workouts.parts.reserveCapacity(parts)
        for _ in 0..<parts {
            guard let source = input.optional(), let start = input.instant(), let metric = input.string(), let value = input.finite() else { return nil }
            workouts.parts.append(WorkoutDay.Part(source: source, start: start, metric: metric, value: value))
        }
        guard let fixes = input.count() else { return nil }
        workouts.fixStarts.reserveCapacity(fixes)
        var previous: Int64 = 0
        for index in 0..<fixes {
            // Rising (the digest sorts them), and within the years an instant may name.
            guard let delta = input.int64(), index == 0 || delta >= 0 else { return nil }
            let (start, overflow) = previous.addingReportingOverflow(delta)
            guard !overflow, start >= DayEvent.earliestSecond, start <= DayEvent.latestSecond else { return nil }
            previous = start
            workouts.fixStarts.append(start)
        }
        guard let stretches = input.count() else { return nil }
        var sleep = [SleepNight.Stretch]()
        sleep.reserveCapacity(stretches)
        for _ in 0..<stretches {
            guard let start = input.instant(), let length = input.int64(), length >= 0, length <= DayEvent.latestSecond - start,
                  let stage = input.string(), let zone = input.optional() else { return nil }
            sleep.append(SleepNight.Stretch(start: start, end: start + length, stage: stage, timeZone: zone))
        }
        guard input.atEnd else { return nil }
        return MirrorDigest.Day(stamp: stamp, zone: zone, metrics: metrics, unknownZone: unknownZone, workouts: workouts, sleep: sleep)
    }

    /// A day's line in the tallies section: each metric in name order with its kind and buckets,
    /// its events, its units and its words not yet known with their counts — what the overview adds
    /// up, without the rest.
    static func tally(of digest: MirrorDigest.Day, strings: inout IndexStrings) -> [UInt8] {
        var out = IndexWriter()
        swap(&out.strings, &strings)
        defer { swap(&out.strings, &strings) }
        out.int(digest.metrics.count)
        for (metric, m) in digest.metrics.sorted(by: { $0.key < $1.key }) {
            out.string(metric)
            out.bytes.append(DayTally.flags(kind: m.kind, hour: m.hourBuckets, day: m.dayBuckets))
            out.int(m.events)
            out.int(m.units.count)
            for (unit, count) in m.units.sorted(by: { $0.key < $1.key }) {
                out.string(unit)
                out.int(count)
            }
            out.int(m.words.count)
            for (word, count) in m.words.sorted(by: { $0.key < $1.key }) {
                out.string(word)
                out.int(count)
            }
        }
        return out.bytes
    }
}
