import EfferentCore

/// What the archive holds of a question's metrics in the days it covers, and where the nearest
/// data lies when those days hold none (issue 41): the one definition every surface shows.
///
/// A day with data is an archive day (a local day, as the writer filed it) holding at least one
/// event of the metric — the days `overview` counts in `daysCovered`. The writer uploads empty
/// days up to today, so "last week" on an archive whose data stopped years ago lies inside the
/// archive's days and reads nothing: coverage says so, and names the last day with data before
/// the span and the first after it ("your steps end on 2017-12-31").
public struct Coverage: Sendable, Equatable {
    /// One metric against the span.
    public struct Line: Sendable, Equatable {
        public let metric: String
        /// Days of the span holding the metric.
        public let daysWithData: Int
        /// The first and last of them; nil when there is none.
        public let firstDay: CalendarDay?
        public let lastDay: CalendarDay?
        /// Days of the span without it.
        public let daysMissing: Int
        /// The nearest data outside the span: the last day with data before it, the first after it.
        public let before: CalendarDay?
        public let after: CalendarDay?

        /// When the span holds none of the metric, the sentence that says where its data is;
        /// `name` is how the sentence calls the metric (its title, lowered, unless given).
        public func sentence(span: DayRange, name given: String? = nil) -> String? {
            guard daysWithData == 0 else { return nil }
            let name = given ?? Coverage.name(metric)
            let plural = name.hasSuffix("s")
            let verb = { (singular: String) in plural ? String(singular.dropLast()) : singular }
            let none = "no \(name) " + (span.isEmpty ? "in the days asked" : "between \(span.since) and \(span.until)")
            switch (before, after) {
            case let (before?, after?):
                return "\(none); your \(name) \(verb("stops")) on \(before) and \(verb("resumes")) on \(after)"
            case let (before?, nil): return "\(none); your \(name) \(verb("ends")) on \(before)"
            case let (nil, after?): return "\(none); your \(name) \(verb("begins")) on \(after)"
            case (nil, nil): return "the archive holds no \(name)"
            }
        }
    }

    /// The days answered (after `AnswerScope`'s cut and page).
    public let span: DayRange
    public let lines: [Line]
    /// How sentences call a metric whose title does not read well in one (`activitySummary.*`:
    /// "activity rings").
    public var names: [String: String] = [:]

    /// Coverage of `metrics` over `span`, from the sorted days holding each (`holding`).
    public init(span: DayRange, metrics: [String], holding: (String) throws -> [CalendarDay]) rethrows {
        self.span = span
        lines = try metrics.map { metric in
            let days = try holding(metric)
            let start = Self.firstIndex(in: days, notBefore: span.since)
            let end = span.isEmpty ? start : Self.firstIndex(in: days, notBefore: span.until.next)
            let inside = max(0, end - start)
            return Line(metric: metric, daysWithData: inside, firstDay: inside > 0 ? days[start] : nil,
                        lastDay: inside > 0 ? days[end - 1] : nil, daysMissing: span.dayCount - inside,
                        before: start > 0 ? days[start - 1] : nil, after: end < days.count ? days[end] : nil)
        }
    }

    /// From the mirror's index: the days whose entry holds the metric.
    public init(span: DayRange, metrics: [String], index: DigestSnapshot) {
        self.init(span: span, metrics: metrics) { metric in
            index.sortedDays.filter { index.days[$0]?.metrics[metric].map { $0.events > 0 } ?? false }
        }
    }

    /// From the mirror's index when `source` is a mirror whose index reads, else from the events.
    public init(span: DayRange, metrics: [String], of source: EventSource) throws {
        if let mirror = source as? MirrorSource, let index = try? mirror.mirror.indexSnapshot() {
            self.init(span: span, metrics: metrics, index: index)
        } else {
            try self.init(span: span, metrics: metrics, source: source)
        }
    }

    /// From the events themselves (a source without an index): one pass over every held day.
    public init(span: DayRange, metrics: [String], source: EventSource) throws {
        let wanted = Set(metrics)
        var byMetric = [String: Set<CalendarDay>]()
        let held = try source.days()
        if let first = held.first, let last = held.last {
            for item in try source.events(from: first, through: last, matching: { wanted.contains($0) }) {
                byMetric[item.event.metric, default: []].insert(item.day)
            }
        }
        self.init(span: span, metrics: metrics) { (byMetric[$0] ?? []).sorted() }
    }

    /// The sentences of the metrics the span holds none of.
    public var sentences: [String] { lines.compactMap { $0.sentence(span: span, name: names[$0.metric]) } }

    /// The `coverage` member every JSON answer carries.
    public var json: JSONValue {
        func day(_ day: CalendarDay?) -> JSONValue { day.map { .string($0.description) } ?? .null }
        var members: [String: JSONValue] = [
            "since": span.isEmpty ? .null : .string(span.since.description), "until": span.isEmpty ? .null : .string(span.until.description),
            "days": .number(Double(span.dayCount)),
            "metrics": .object(Dictionary(lines.map { line in
                var entry: [String: JSONValue] = [
                    "daysWithData": .number(Double(line.daysWithData)), "firstDay": day(line.firstDay), "lastDay": day(line.lastDay),
                    "daysMissing": .number(Double(line.daysMissing)), "dataBefore": day(line.before), "dataAfter": day(line.after),
                ]
                if let sentence = line.sentence(span: span, name: names[line.metric]) { entry["note"] = .string(sentence) }
                return (line.metric, .object(entry))
            }, uniquingKeysWith: { first, _ in first })),
        ]
        if !sentences.isEmpty { members["note"] = .string(sentences.joined(separator: "; ") + ".") }
        return .object(members)
    }

    /// A metric as the sentence names it: its title, lowered where that reads right (`steps`,
    /// `heart rate`, but `VO₂ max`).
    static func name(_ metric: String) -> String {
        let title = MetricTitle.of(metric)
        guard let first = title.first, title.dropFirst().first?.isLowercase ?? true else { return title }
        return first.lowercased() + title.dropFirst()
    }

    static func firstIndex(in days: [CalendarDay], notBefore day: CalendarDay) -> Int {
        var low = 0, high = days.count
        while low < high {
            let middle = (low + high) / 2
            if days[middle] < day { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
