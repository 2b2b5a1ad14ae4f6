import EfferentClient
import EfferentCore

/// What the service says about the archive, for the overview's `archive` member; the caller
/// asks the service (answers do no I/O).
public enum ArchiveFacts: Sendable, Equatable {
    case reachable(days: Int, bytes: Int64, firstDay: CalendarDay?, lastDay: CalendarDay?)
    case unreachable

    public init(_ stats: ArchiveStats) {
        self = .reachable(days: stats.days, bytes: stats.bytes, firstDay: stats.firstDay, lastDay: stats.lastDay)
    }

    var json: JSONValue {
        switch self {
        case .unreachable: return .string("unreachable")
        case let .reachable(days, bytes, first, last):
            return .object(["days": .number(Double(days)), "firstDay": OverviewAnswer.dayJSON(first),
                            "lastDay": OverviewAnswer.dayJSON(last),
                            "megabytes": .number((Double(bytes) / 1_048_576 * 100).rounded() / 100)])
        }
    }
}

/// `phone_data_overview` (§10.3): what the readable days hold, metric by metric.
public struct OverviewAnswer: Answer {
    /// One metric's line of the overview.
    public struct MetricLine: Sendable, Equatable {
        public let metric: String
        public let kind: DayEvent.Kind
        public let unit: String?
        public let unitNote: String?
        /// `day`, `hour`, or both; empty for records.
        public let buckets: [String]
        public let firstDay: CalendarDay
        public let lastDay: CalendarDay
        public let daysCovered: Int
        public let events: Int
        /// Words held as they came, with how many events carry each: a name the writer that stored
        /// it did not know (`MetricCatalogue.wordNotYetKnown`), which a later writer maps.
        public var wordsNotYetKnown: [String: Int] = [:]
    }

    public let archive: ArchiveFacts?
    public let readableDays: Int
    public let firstDay: CalendarDay?
    public let lastDay: CalendarDay?
    /// By metric name.
    public let metrics: [MetricLine]

    /// Reads every day of `source`, or only the days of `range` when one is given; a metric's
    /// days are the archive days its events are filed under.
    public init(from source: EventSource, range: DayRange? = nil, archive: ArchiveFacts? = nil) throws {
        let days = try source.days().filter { range?.contains($0) ?? true }
        readableDays = days.count
        firstDay = days.first
        lastDay = days.last
        self.archive = archive
        guard !days.isEmpty else { metrics = []; return }
        struct Tally { var kind: DayEvent.Kind; var units: [String: Int] = [:]; var buckets: Set<String> = []
                       var days: Set<CalendarDay> = []; var events = 0; var words: [String: Int] = [:] }
        var tallies: [String: Tally] = [:]
        func tally(metric: String, kind: DayEvent.Kind, unit: String?, bucket: DayEvent.Bucket?, count: Int, day: CalendarDay,
                   words: [String: Int] = [:]) {
            var tally = tallies.removeValue(forKey: metric) ?? Tally(kind: kind)
            if let unit { tally.units[unit, default: 0] += count }
            tally.words.merge(words, uniquingKeysWith: +)
            if let bucket { tally.buckets.insert(bucket.rawValue) }
            tally.days.insert(day)
            tally.events += count
            tallies[metric] = tally
        }
        if let mirror = source as? MirrorSource {
            // From the columns: a series' kind, metric, unit and bucket are its rows', so a day is
            // tallied a series at a time, with no event built (a decade in a second, not ten).
            for day in days {
                guard let series = try mirror.series(of: day) else {
                    for item in try source.events(from: day, through: day) {
                        tally(metric: item.event.metric, kind: item.event.kind, unit: item.event.unit, bucket: item.event.bucket, count: 1, day: day,
                              words: Self.words(item.event))
                    }
                    continue
                }
                for series in series where series.count > 0 {
                    let key = series.key
                    tally(metric: key.metric, kind: key.kind, unit: key.unit, bucket: key.bucket, count: series.count, day: day,
                          words: MetricCatalogue.wordsNotYetKnown(in: series))
                }
            }
        } else {
            // A window of days at a time: a decade of every type is millions of events, never held at once.
            for window in DayRange.windows(of: days) {
                for item in try source.events(from: window.first, through: window.last) where range?.contains(item.day) ?? true {
                    tally(metric: item.event.metric, kind: item.event.kind, unit: item.event.unit, bucket: item.event.bucket, count: 1, day: item.day,
                          words: Self.words(item.event))
                }
            }
        }
        metrics = tallies.keys.sorted().map { name in
            let tally = tallies[name]!
            // The unit most events carry; ties go to the alphabetically first.
            let unit = tally.units.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.first?.key
            return MetricLine(metric: name, kind: tally.kind, unit: unit, unitNote: MetricCatalogue.note(for: name),
                              buckets: tally.buckets.sorted(), firstDay: tally.days.min()!, lastDay: tally.days.max()!,
                              daysCovered: tally.days.count, events: tally.events, wordsNotYetKnown: tally.words)
        }
    }

    /// An event's word not yet known, counted once.
    static func words(_ event: DayEvent) -> [String: Int] {
        MetricCatalogue.wordNotYetKnown(metric: event.metric, stage: event.stage, activity: event.activity).map { [$0: 1] } ?? [:]
    }

    /// `zumba_fusion ×3, nostalgic ×1`: the words not yet known of a line, most carried first.
    static func wordsText(_ words: [String: Int]) -> String? {
        guard !words.isEmpty else { return nil }
        return words.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")
    }

    /// An overview already tallied (the dashboard's digest of the mirror).
    init(readableDays: Int, firstDay: CalendarDay?, lastDay: CalendarDay?, metrics: [MetricLine], archive: ArchiveFacts?) {
        self.readableDays = readableDays
        self.firstDay = firstDay
        self.lastDay = lastDay
        self.metrics = metrics
        self.archive = archive
    }

    static func dayJSON(_ day: CalendarDay?) -> JSONValue { day.map { .string($0.description) } ?? .null }

    static func kindName(_ kind: DayEvent.Kind) -> String { kind == .total ? "total" : "record" }

    /// How to read what the answers say, for an agent that has not read the protocol.
    public static let howToRead = [
        "Totals (kind total) are de-duplicated sums per day or hour; use daily or statistics, never add samples.",
        "Records (kind record) are individual readings, sleep stretches and workouts; use samples, statistics, sleep or workouts.",
        "Days are local days of the archive's time zone; a night belongs to the day it began.",
        "oxygenSaturation is a fraction of 1: 0.97 means 97%.",
        "Metrics named <type>.<part> are parts of a sample: workout.heartRate.average, workoutRoute.latitude, electrocardiogram.voltage.",
        "notYetKnown lists words held as the phone sent them (an activity, a label, a classification) that this version does not map yet; a later one maps them without a re-import.",
    ]

    public var emptyNote: String? {
        readableDays == 0 ? "no days in the mirror" + (archive == nil ? "" : " for these dates") + "; efferent sync fetches the archive's" : nil
    }

    public var json: JSONValue {
        var writable: [String: JSONValue] = MetricCatalogue.writable.mapValues {
            .object(["kind": .string("quantity"), "unit": .string($0)])
        }
        writable["sleep"] = .object(["kind": .string("category"),
                                     "stages": .array(MetricCatalogue.sleepStages.dropLast().map(JSONValue.string))])
        var members: [String: JSONValue] = [
            "readable": .object(["days": .number(Double(readableDays)), "firstDay": Self.dayJSON(firstDay),
                                 "lastDay": Self.dayJSON(lastDay),
                                 "note": .string("days mirrored on this machine, which answers read")]),
            "metrics": .array(metrics.map { line in
                var object: [String: JSONValue] = [
                    "metric": .string(line.metric), "kind": .string(Self.kindName(line.kind)),
                    "unit": line.unit.map(JSONValue.string) ?? .null,
                    "buckets": .array(line.buckets.map(JSONValue.string)),
                    "firstDay": .string(line.firstDay.description), "lastDay": .string(line.lastDay.description),
                    "daysCovered": .number(Double(line.daysCovered)), "events": .number(Double(line.events)),
                ]
                if let note = line.unitNote { object["unitNote"] = .string(note) }
                if !line.wordsNotYetKnown.isEmpty {
                    object["notYetKnown"] = .object(line.wordsNotYetKnown.mapValues { .number(Double($0)) })
                }
                return .object(object)
            }),
            "writable": .object(writable),
            "howToRead": .array(Self.howToRead.map(JSONValue.string)),
        ]
        if let archive { members["archive"] = archive.json }
        return .object(members)
    }

    public var table: AnswerTable {
        AnswerTable(columns: ["metric", "kind", "unit", "buckets", "firstDay", "lastDay", "daysCovered", "events", "unitNote", "notYetKnown"],
                    rows: metrics.map { line in
                        [.string(line.metric), .string(Self.kindName(line.kind)), line.unit.map(JSONValue.string) ?? .null,
                         .string(line.buckets.joined(separator: ",")), .string(line.firstDay.description),
                         .string(line.lastDay.description), .number(Double(line.daysCovered)),
                         .number(Double(line.events)), line.unitNote.map(JSONValue.string) ?? .null,
                         Self.wordsText(line.wordsNotYetKnown).map(JSONValue.string) ?? .null]
                    },
                    display: [.plain, .plain, .plain, .plain, .plain, .plain, .whole, .whole, .plain, .plain])
    }
}
