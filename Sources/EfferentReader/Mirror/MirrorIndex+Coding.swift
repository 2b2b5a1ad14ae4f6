import EfferentCore
import EfferentSystem

/// `index.bin`: the mirror's index as bytes. Version 6: `EFX6`, a table of the strings the days'
/// digests name (metric names, units, words not yet known, zones, sources, activities, each
/// once), then each day with
/// the fingerprint of the file it was read from, the upload time it was read at, and its digest
/// as a run of bytes of stated length (then its workouts, their parts and route fix starts, and
/// its sleep stretches);
/// integers are zigzag LEB128, strings their number in the table, and real numbers their 8-byte
/// bit patterns, so a sum reads back to the same bits. A day's digest is kept as those bytes until
/// an answer asks for it: a sync holds a decade's index as 11 MB of them rather than as 4,189
/// days of dictionaries and arrays. A file that does not read is no index: every day is read
/// again from the days.
enum MirrorIndexCoding {
    static let magic: [UInt8] = Array("EFX6".utf8)

    /// The strings the encoded days name, each numbered once in the order first written; the
    /// numbers are stable, so a day encoded with them stays readable as others are added.
    struct Strings: Sendable {
        var list = [String]()
        var numbers = [String: Int]()

        mutating func number(_ text: String) -> Int {
            if let known = numbers[text] { return known }
            numbers[text] = list.count
            list.append(text)
            return list.count - 1
        }
    }

    /// One day's digest (all but its upload time) as bytes, its strings numbered in `strings`.
    static func encode(_ digest: MirrorDigest.Day, strings: inout Strings) -> [UInt8] {
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

    /// A day's digest from the bytes `encode` wrote with `table`, read at `stamp`; nil when they do not read.
    static func decode(day bytes: [UInt8], stamp: String, table: [String]) -> MirrorDigest.Day? {
        var input = IndexReader(bytes: bytes, table: table)
        guard let zone = input.optional(), let unknownZone = input.optional(), let metricCount = input.int(), metricCount >= 0 else { return nil }
        var metrics = [String: MirrorDigest.MetricDay](minimumCapacity: metricCount)
        for _ in 0..<metricCount {
            guard let metric = input.string(), let kind = input.byte(), let flags = input.byte(), let unitCount = input.int() else { return nil }
            var m = MirrorDigest.MetricDay(kind: kind == 1 ? .total : .record)
            m.hourBuckets = flags & 1 != 0
            m.dayBuckets = flags & 2 != 0
            for _ in 0..<max(0, unitCount) {
                guard let unit = input.string(), let n = input.int() else { return nil }
                m.units[unit] = n
            }
            guard let wordCount = input.int() else { return nil }
            for _ in 0..<max(0, wordCount) {
                guard let word = input.string(), let n = input.int() else { return nil }
                m.words[word] = n
            }
            guard let events = input.int(), let total = input.double(), let totalUnit = input.optional(),
                  let firstStart = input.int64(), let lastStart = input.int64(), let firstLast = input.int64(),
                  let readingCount = input.int(), readingCount >= 0 else { return nil }
            m.events = events
            m.dayTotal = flags & 4 != 0 ? total : nil
            m.totalUnit = totalUnit
            m.firstStart = firstStart
            m.lastStart = lastStart
            m.firstLastInstant = firstLast
            m.readings.reserveCapacity(readingCount)
            m.readingDetails.reserveCapacity(readingCount)
            for _ in 0..<readingCount {
                guard let local = input.int(), let n = input.int(), let low = input.double(), let high = input.double(),
                      let sum = input.double(), let lastAt = input.int64(), let lastValue = input.double(),
                      let unit = input.optional(), let overflowed = input.byte(), let distinct = input.int(), distinct >= 0 else { return nil }
                var counts = [MirrorDigest.ValueCount]()
                counts.reserveCapacity(distinct)
                for _ in 0..<distinct {
                    guard let value = input.double(), let times = input.int() else { return nil }
                    counts.append(MirrorDigest.ValueCount(value: value, count: times))
                }
                m.readings.append((CalendarDay(daysSinceEpoch: Int64(local)),
                                   ValueSummary(count: n, min: low, max: high, sum: sum, lastStart: lastAt, lastValue: lastValue)))
                m.readingDetails.append(MirrorDigest.ReadingDetail(unit: unit, counts: counts, overflowed: overflowed == 1))
            }
            metrics[metric] = m
        }
        var workouts = WorkoutDay()
        guard let sessions = input.int() else { return nil }
        for _ in 0..<max(0, sessions) {
            guard let start = input.int64(), let end = input.int64(), let activity = input.optional(), let source = input.optional(),
                  let hasDuration = input.byte(), let duration = input.double() else { return nil }
            workouts.sessions.append(WorkoutDay.Session(start: start, end: end, activity: activity, duration: hasDuration == 1 ? duration : nil, source: source))
        }
        guard let parts = input.int() else { return nil }
        for _ in 0..<max(0, parts) {
            guard let source = input.optional(), let start = input.int64(), let metric = input.string(), let value = input.double() else { return nil }
            workouts.parts.append(WorkoutDay.Part(source: source, start: start, metric: metric, value: value))
        }
        guard let fixes = input.int() else { return nil }
        workouts.fixStarts.reserveCapacity(max(0, fixes))
        var previous: Int64 = 0
        for _ in 0..<max(0, fixes) {
            guard let delta = input.int64() else { return nil }
            previous = previous &+ delta
            workouts.fixStarts.append(previous)
        }
        guard let stretches = input.int() else { return nil }
        var sleep = [SleepNight.Stretch]()
        sleep.reserveCapacity(max(0, stretches))
        for _ in 0..<max(0, stretches) {
            guard let start = input.int64(), let length = input.int64(), let stage = input.string(), let zone = input.optional() else { return nil }
            sleep.append(SleepNight.Stretch(start: start, end: start &+ length, stage: stage, timeZone: zone))
        }
        guard input.atEnd else { return nil }
        return MirrorDigest.Day(stamp: stamp, zone: zone, metrics: metrics, unknownZone: unknownZone, workouts: workouts, sleep: sleep)
    }

    /// The file of `stored` (each day's digest as `encode` wrote it with `strings`), days ascending.
    static func file(_ stored: [CalendarDay: MirrorIndex.Stored], strings: Strings) -> [UInt8] {
        var out = IndexWriter()
        out.bytes.reserveCapacity(stored.values.reduce(64 + strings.list.reduce(0) { $0 + $1.utf8.count + 2 }) { $0 + $1.bytes.count + $1.stamp.utf8.count + 40 })
        out.bytes += magic
        out.int(strings.list.count)
        for text in strings.list {
            out.int(text.utf8.count)
            out.bytes += text.utf8
        }
        out.int(stored.count)
        for day in stored.keys.sorted() {
            let entry = stored[day]!
            out.int(Int(day.daysSinceEpoch))
            out.int64(entry.file.size)
            out.int64(entry.file.modified)
            out.int(entry.stamp.utf8.count)
            out.bytes += entry.stamp.utf8
            out.int(entry.bytes.count)
            out.bytes += entry.bytes
        }
        return out.bytes
    }

    /// The days of a file, their digests left as bytes, and its strings; nil when the bytes are
    /// not an index of this version (or are cut short).
    static func read(_ bytes: [UInt8]) -> (stored: [CalendarDay: MirrorIndex.Stored], strings: Strings)? {
        var input = IndexReader(bytes: bytes)
        guard input.take(magic.count).map(Array.init) == magic, let count = input.int() else { return nil }
        var strings = Strings()
        for _ in 0..<max(0, count) {
            guard let length = input.int(), let slice = input.take(length), let text = String(validating: slice, as: UTF8.self) else { return nil }
            _ = strings.number(text)
        }
        guard strings.list.count == max(0, count), let days = input.int() else { return nil }
        var stored = [CalendarDay: MirrorIndex.Stored](minimumCapacity: max(0, days))
        for _ in 0..<max(0, days) {
            guard let day = input.int(), let size = input.int64(), let modified = input.int64(),
                  let stampLength = input.int(), let stampBytes = input.take(stampLength), let stamp = String(validating: stampBytes, as: UTF8.self),
                  let length = input.int(), let digest = input.take(length) else { return nil }
            stored[CalendarDay(daysSinceEpoch: Int64(day))] = MirrorIndex.Stored(file: FileStamp(size: size, modified: modified), stamp: stamp, bytes: Array(digest))
        }
        return input.atEnd ? (stored, strings) : nil
    }

    /// Every day of a file decoded; nil when any does not read.
    static func decode(_ bytes: [UInt8]) -> [CalendarDay: MirrorIndex.Entry]? {
        guard let (stored, strings) = read(bytes) else { return nil }
        var entries = [CalendarDay: MirrorIndex.Entry](minimumCapacity: stored.count)
        for (day, entry) in stored {
            guard let digest = decode(day: entry.bytes, stamp: entry.stamp, table: strings.list) else { return nil }
            entries[day] = MirrorIndex.Entry(file: entry.file, digest: digest)
        }
        return entries
    }
}

private struct IndexWriter {
    var bytes = [UInt8]()
    var strings = MirrorIndexCoding.Strings()

    /// Zigzag LEB128: small numbers of either sign in a byte or two.
    mutating func int64(_ value: Int64) {
        var v = UInt64(bitPattern: (value << 1) ^ (value >> 63))
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    mutating func int(_ value: Int) { int64(Int64(value)) }

    mutating func double(_ value: Double) {
        var v = value.bitPattern
        for _ in 0..<8 {
            bytes.append(UInt8(truncatingIfNeeded: v))
            v >>= 8
        }
    }

    mutating func string(_ text: String) { int(strings.number(text)) }

    mutating func optional(_ text: String?) {
        if let text {
            bytes.append(1)
            string(text)
        } else {
            bytes.append(0)
        }
    }
}

private struct IndexReader {
    let bytes: [UInt8]
    var at = 0
    /// The file's strings, each read once: a decade repeats a few dozen names hundreds of thousands of times.
    var table = [String]()

    init(bytes: [UInt8], table: [String] = []) {
        self.bytes = bytes
        self.table = table
    }

    var atEnd: Bool { at == bytes.count }

    mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, bytes.count - at >= count else { return nil }
        defer { at += count }
        return bytes[at..<(at + count)]
    }

    mutating func byte() -> UInt8? {
        guard at < bytes.count else { return nil }
        defer { at += 1 }
        return bytes[at]
    }

    mutating func int64() -> Int64? {
        var v: UInt64 = 0, shift: UInt64 = 0
        while let byte = byte() {
            v |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return Int64(bitPattern: v >> 1) ^ -Int64(bitPattern: v & 1) }
            shift += 7
            if shift > 63 { return nil }
        }
        return nil
    }

    mutating func int() -> Int? { int64().flatMap { Int(exactly: $0) } }

    mutating func double() -> Double? {
        guard bytes.count - at >= 8 else { return nil }
        var v: UInt64 = 0
        for shift in 0..<8 { v |= UInt64(bytes[at + shift]) << (8 * UInt64(shift)) }
        at += 8
        return Double(bitPattern: v)
    }

    mutating func string() -> String? {
        guard let number = int(), number >= 0, number < table.count else { return nil }
        return table[number]
    }

    /// `nil` inside: an absent string; the outer nil: bytes that do not read.
    mutating func optional() -> String?? {
        switch byte() {
        case 0?: return .some(nil)
        case 1?: return string().map { .some($0) }
        default: return nil
        }
    }
}
