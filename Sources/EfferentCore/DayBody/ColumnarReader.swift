/// The fast path of the layout-2 decoder: reads a canonical-shaped body straight off the bytes
/// with `JSONScanner`, into series and events, with no JSON tree and no hashing.
///
/// It accepts only what the full decoder accepts and returns `nil` for anything else — another
/// layout, a malformed body, an unknown or escaped field name — so the caller falls back to the
/// full decoder, which gives the precise error. Valid bodies decode the same either way, fast.
enum ColumnarReader {
    private static let series = JSONScanner.pack("series"), tz = JSONScanner.pack("tz"), v = JSONScanner.pack("v")
    private static let k = JSONScanner.pack("k"), metric = JSONScanner.pack("metric"), bucket = JSONScanner.pack("bucket")
    private static let unit = JSONScanner.pack("unit"), source = JSONScanner.pack("source"), t0 = JSONScanner.pack("t0")
    private static let t = JSONScanner.pack("t"), d = JSONScanner.pack("d"), value = JSONScanner.pack("value")
    private static let duration = JSONScanner.pack("duration"), stage = JSONScanner.pack("stage")
    private static let activity = JSONScanner.pack("activity")

    /// The day, or with `keeping` only the series whose metric it accepts: the columns of the
    /// others are stepped over, not read (a day of GPS fixes costs a heart-rate question nothing).
    static func read(_ bytes: [UInt8], keeping: ((String) -> Bool)? = nil) -> ColumnarDay? {
        var scanner = JSONScanner(bytes)
        do {
            var list: [DaySeries]?
            var timeZone: String?
            var version: Double?
            try scanner.beginObject()
            while true {
                let name = try scanner.nextShortMember()
                if name == 0 { break }
                if name == series, list == nil {
                    var all = [DaySeries]()
                    try scanner.beginArray()
                    while try scanner.nextElement() {
                        var skipped = false
                        guard let one = try readSeries(&scanner, keeping: keeping, skipped: &skipped) else {
                            if skipped { continue }
                            return nil
                        }
                        all.append(one)
                    }
                    list = all
                } else if name == tz, timeZone == nil {
                    timeZone = try scanner.readString()
                } else if name == v, version == nil {
                    version = try scanner.readNumber()
                } else {
                    return nil
                }
            }
            try scanner.finish()
            // Lines are layout 1 (§3.2 rule 1), however the JSON reads.
            guard version == 2, let list, !scanner.readLineFeed else { return nil }
            return ColumnarDay(series: list, timeZone: timeZone)
        } catch {
            return nil
        }
    }

    /// One series object; `nil` when it holds anything the full decoder would refuse or read
    /// otherwise, or — with `skipped` set — when `keeping` does not want its metric.
    private static func readSeries(_ scanner: inout JSONScanner, keeping: ((String) -> Bool)?, skipped: inout Bool) throws -> DaySeries? {
        var kind: DayEvent.Kind?, metricText: String?, bucketValue: DayEvent.Bucket?, unitText: String?, sourceText: String?
        var start: Int64?, steps: [Int64]?, spans: [Int64]?
        var values: [Double]?, durations: [Double]?, stages: [String?]?, activities: [String?]?
        var seen: UInt16 = 0
        var rows = 0  // the length of the first column read, reserved for the others
        func once(_ bit: UInt16) -> Bool {
            defer { seen |= bit }
            return seen & bit == 0
        }
        try scanner.beginObject()
        while true {
            let name = try scanner.nextShortMember()
            if name == 0 { break }
            if skipped {
                // Canonical bodies name the metric before its rows (`t`, `value`, …).
                try scanner.skipColumnOrValue(name == k || name == bucket || name == unit || name == source || name == t0)
                continue
            }
            switch name {
            case k where once(1 << 0):
                guard let known = DayEvent.Kind(rawValue: try scanner.readString()) else { return nil }
                kind = known
            case metric where once(1 << 1):
                metricText = try scanner.readString()
                if let keeping, let metricText, !keeping(metricText) { skipped = true }
            case bucket where once(1 << 2):
                guard let known = DayEvent.Bucket(rawValue: try scanner.readString()) else { return nil }
                bucketValue = known
            case unit where once(1 << 3): unitText = try scanner.readString()
            case source where once(1 << 4): sourceText = try scanner.readString()
            case t0 where once(1 << 5):
                guard let n = integer(try scanner.readNumber()) else { return nil }
                start = n
            case t where once(1 << 6): guard let list = try integers(&scanner, hint: &rows) else { return nil }; steps = list
            case d where once(1 << 7): guard let list = try integers(&scanner, hint: &rows) else { return nil }; spans = list
            case value where once(1 << 8): values = try numbers(&scanner, hint: &rows)
            case duration where once(1 << 9): durations = try numbers(&scanner, hint: &rows)
            case stage where once(1 << 10): stages = try strings(&scanner)
            case activity where once(1 << 11): activities = try strings(&scanner)
            default: return nil
            }
        }
        if skipped { return nil }
        guard let kind, let metricText, !metricText.isEmpty, let start, var starts = steps, var ends = spans,
              ends.count == starts.count else { return nil }
        steps = nil  // so the buffers below are unshared and change in place
        spans = nil
        switch (kind, bucketValue) {
        case (.total, nil), (.record, .some): return nil
        default: break
        }
        let count = starts.count
        guard values.map({ $0.count == count }) ?? true, durations.map({ $0.count == count }) ?? true,
              stages.map({ $0.count == count }) ?? true, activities.map({ $0.count == count }) ?? true else { return nil }
        // The checks of `DayEvent.init`, made on the columns: every start and end within years
        // 0001…9999, no end before its start. Steps become starts and spans ends in place.
        let range = DayEvent.earliestSecond...DayEvent.latestSecond
        guard range.contains(start) else { return nil }
        // Through mutable spans: element by element, each write checked the arrays' uniqueness again.
        let valid = Self.accumulate(start: start, range: range, count: count, starts: &starts, ends: &ends)
        guard valid else { return nil }
        let key = DaySeries.Key(kind: kind, metric: metricText, bucket: bucketValue, unit: unitText, source: sourceText)
        return DaySeries(columns: .init(key: key, starts: starts, ends: ends, values: values, durations: durations,
                                        stages: stages, activities: activities))
    }

    private static func integer(_ n: Double) -> Int64? {
        guard n.rounded(.towardZero) == n, abs(n) <= 9_007_199_254_740_992 else { return nil }
        return Int64(n)
    }

    /// A column of integers; `hint` is the length of the columns read before (0 for none), and
    /// becomes this one's.
    private static func integers(_ scanner: inout JSONScanner, hint: inout Int) throws -> [Int64]? {
        var out = [Int64]()
        defer { hint = out.count }
        return try scanner.readIntegerColumn(into: &out, expected: hint) ? out : nil
    }

    /// A column of numbers and nulls, null as NaN (no number read can be NaN).
    private static func numbers(_ scanner: inout JSONScanner, hint: inout Int) throws -> [Double] {
        var out = [Double]()
        defer { hint = out.count }
        try scanner.readNumberColumn(into: &out, expected: hint)
        return out
    }

    private static func strings(_ scanner: inout JSONScanner) throws -> [String?] {
        var out = [String?]()
        try scanner.beginArray()
        while try scanner.nextElement() { out.append(try scanner.readNull() ? nil : try scanner.readString()) }
        return out
    }

    /// Steps become starts and spans ends, in place; `false` at the first start outside `range`,
    /// negative span or end past the latest second.
    @inline(__always)
    private static func accumulate(start: Int64, range: ClosedRange<Int64>, count: Int,
                                   starts: inout [Int64], ends: inout [Int64]) -> Bool {
        var moments = starts.mutableSpan, finishes = ends.mutableSpan
        guard moments.count >= count, finishes.count >= count else { return false }
        var moment = start
        for i in 0..<count {
            moment += moments[i]
            guard range.contains(moment), finishes[i] >= 0 else { return false }
            let end = moment + finishes[i]
            guard end <= DayEvent.latestSecond else { return false }
            moments[i] = moment
            finishes[i] = end
        }
        return true
    }
}
