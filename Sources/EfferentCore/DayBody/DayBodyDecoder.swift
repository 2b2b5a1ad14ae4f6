/// Reads a day body strictly: layout 2 or layout 1 by the rule of protocol §3.2, every field of
/// layout 2 checked for type, length and range, so that bad bytes throw and never trap.
enum DayBodyDecoder {
    /// The fields a series may have (§3.1: "packers refuse any other field").
    static let seriesFields: Set<String> = [
        "activity", "bucket", "d", "duration", "k", "metric", "source", "stage", "t", "t0", "unit", "value",
    ]

    /// §3.2 rule 1: decode UTF-8 and strip; empty is no events; a single line that starts with
    /// `{` and is an object with `series` is layout 2; anything else is layout 1.
    static func decode(_ bytes: [UInt8], keeping: ((String) -> Bool)? = nil) throws(DayBodyError) -> DecodedDay {
        var lower = 0
        var upper = bytes.count
        while lower < upper, isSpace(bytes[lower]) { lower += 1 }
        while upper > lower, isSpace(bytes[upper - 1]) { upper -= 1 }
        let text = bytes[lower..<upper]
        // What the fast reader reads whole is UTF-8 already (JSON's ASCII outside strings, each
        // string checked as it is read) and one line (it refuses a body whose white space holds a
        // line feed), so only a body it steps aside for, or one read in part, is checked first —
        // in full, as rule 1 says.
        if text.first == UInt8(ascii: "{"), keeping == nil, let day = ColumnarReader.read(text.count == bytes.count ? bytes : Array(text)) {
            return .columnar(day)
        }
        let oneObject = text.first == UInt8(ascii: "{") && !text.contains(0x0A)
        guard String(validating: bytes, as: UTF8.self) != nil else { throw .notUTF8 }
        guard text.first != nil else { return .lines([]) }
        if oneObject {
            if keeping != nil, let day = ColumnarReader.read(Array(text), keeping: keeping) { return .columnar(day) }
            let value: JSONValue
            do { value = try JSONParser.parse(Array(text)) } catch { throw .malformedJSON(error) }
            if let object = value.objectValue, object["series"] != nil {
                let day = try columnar(object)
                guard let keeping else { return .columnar(day) }
                return .columnar(ColumnarDay(series: day.series.filter { keeping($0.key.metric) }, timeZone: day.timeZone))
            }
        }
        return .lines(lines(text))
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 || byte == 0x0B || byte == 0x0C
    }

    /// §3.3: one event per line; blank lines are skipped and a `\r` before `\n` dropped.
    private static func lines(_ text: ArraySlice<UInt8>) -> [String] {
        text.split(separator: 0x0A, omittingEmptySubsequences: true).compactMap { line in
            let trimmed = line.last == 0x0D ? line.dropLast() : line
            guard trimmed.contains(where: { !isSpace($0) }) else { return nil }
            return String(decoding: trimmed, as: UTF8.self)
        }
    }

    /// The top-level object of layout 2: `series`, the optional `tz` (decision A.4), `v` = 2.
    static func columnar(_ object: [String: JSONValue]) throws(DayBodyError) -> ColumnarDay {
        guard let v = object["v"], v.integerValue == 2 else {
            let text = object["v"].flatMap { try? $0.canonicalBytes() }.map { String(decoding: $0, as: UTF8.self) }
            throw .unsupportedLayout(text ?? "none")
        }
        // The smallest unknown name, so the error does not depend on dictionary order.
        if let name = object.keys.filter({ $0 != "series" && $0 != "tz" && $0 != "v" }).min() {
            throw .unknownTopLevelField(name)
        }
        var timeZone: String?
        if let tz = object["tz"] {
            guard let zone = tz.stringValue else { throw .wrongType(field: "tz", expected: "a string") }
            timeZone = zone
        }
        guard let list = object["series"]?.arrayValue else { throw .wrongType(field: "series", expected: "an array") }
        var series = [DaySeries]()
        series.reserveCapacity(list.count)
        for item in list {
            guard let fields = item.objectValue else { throw .wrongType(field: "series", expected: "an array of objects") }
            series.append(try self.series(fields))
        }
        return ColumnarDay(series: series, timeZone: timeZone)
    }

    /// One series: its shared fields, `t0`, `t`, `d` and the columns, expanded into events.
    static func series(_ fields: [String: JSONValue]) throws(DayBodyError) -> DaySeries {
        if let name = fields.keys.filter({ !seriesFields.contains($0) }).min() { throw .unknownField(name) }
        guard let kindText = try text(fields, "k", required: true) else { throw .missingField("k") }
        guard let kind = DayEvent.Kind(rawValue: kindText) else { throw .unknownKind }
        guard let metric = try text(fields, "metric", required: true) else { throw .missingField("metric") }
        var bucket: DayEvent.Bucket?
        if let bucketText = try text(fields, "bucket", required: false) {
            guard let known = DayEvent.Bucket(rawValue: bucketText) else { throw .unknownBucket }
            bucket = known
        }
        let unit = try text(fields, "unit", required: false)
        let source = try text(fields, "source", required: false)
        guard let t0Value = fields["t0"] else { throw .missingField("t0") }
        guard let t0 = t0Value.integerValue else { throw .notInteger("t0") }
        let steps = try integers(fields, "t")
        let spans = try integers(fields, "d")
        guard spans.count == steps.count else { throw .columnLengthMismatch("d") }
        let values = try column(fields, "value", count: steps.count, \.numberValue, expected: "an array of numbers and nulls")
        let durations = try column(fields, "duration", count: steps.count, \.numberValue, expected: "an array of numbers and nulls")
        let stages = try column(fields, "stage", count: steps.count, \.stringValue, expected: "an array of strings and nulls")
        let activities = try column(fields, "activity", count: steps.count, \.stringValue, expected: "an array of strings and nulls")

        // §3.2 rule 2: moment = t0, then += t[i] per row. Each step is within ±2^53 and the
        // moment is kept within years 0001…9999, so the sums cannot overflow.
        let range = DayEvent.earliestSecond...DayEvent.latestSecond
        guard range.contains(t0) else { throw .instantOutOfRange }
        var moment = t0
        var events = [DayEvent]()
        events.reserveCapacity(steps.count)
        for i in steps.indices {
            moment += steps[i]
            guard range.contains(moment) else { throw .instantOutOfRange }
            events.append(try DayEvent(kind: kind, metric: metric, bucket: bucket, unit: unit, source: source,
                                       start: moment, end: moment + spans[i], value: values?[i],
                                       stage: stages?[i], activity: activities?[i], duration: durations?[i]))
        }
        let key = DaySeries.Key(kind: kind, metric: metric, bucket: bucket, unit: unit, source: source)
        return DaySeries(key: key, events: events)
    }

    /// A string field; `nil` when absent and not required. A present field of another type
    /// (including `null`) is refused: packers omit shared fields rather than write null.
    private static func text(_ fields: [String: JSONValue], _ name: String, required: Bool) throws(DayBodyError) -> String? {
        guard let value = fields[name] else {
            if required { throw .missingField(name) }
            return nil
        }
        guard let text = value.stringValue else { throw .wrongType(field: name, expected: "a string") }
        if name == "metric", text.isEmpty { throw .wrongType(field: name, expected: "a non-empty string") }
        return text
    }

    /// `t` or `d`: a required array of integers (within ±2^53, where Doubles stay exact).
    private static func integers(_ fields: [String: JSONValue], _ name: String) throws(DayBodyError) -> [Int64] {
        guard let value = fields[name] else { throw .missingField(name) }
        guard let items = value.arrayValue else { throw .wrongType(field: name, expected: "an array of integers") }
        var out = [Int64]()
        out.reserveCapacity(items.count)
        for item in items {
            guard let n = item.integerValue else { throw .notInteger(name) }
            out.append(n)
        }
        return out
    }

    /// An optional column: `nil` when absent, else exactly `count` entries of the given type or `null`.
    private static func column<T>(_ fields: [String: JSONValue], _ name: String, count: Int,
                                  _ read: (JSONValue) -> T?, expected: String) throws(DayBodyError) -> [T?]? {
        guard let value = fields[name] else { return nil }
        guard let items = value.arrayValue else { throw .wrongType(field: name, expected: expected) }
        guard items.count == count else { throw .columnLengthMismatch(name) }
        var out = [T?]()
        out.reserveCapacity(count)
        for item in items {
            if item.isNull { out.append(nil); continue }
            guard let typed = read(item) else { throw .wrongType(field: name, expected: expected) }
            out.append(typed)
        }
        return out
    }
}
