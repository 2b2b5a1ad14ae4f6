import EfferentCore

/// A question as the CLI and the MCP tools both take it, so the two answer the same way: which
/// answer, for which days and metrics, with the §10.3 defaults filled in.
public struct AnswerRequest: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case overview, daily, statistics, sleep, workouts, samples
    }

    public var kind: Kind
    public var since: CalendarDay?
    public var until: CalendarDay?
    /// `daily`: the totals to list (default steps and active energy).
    public var metrics: [String]
    /// `statistics` and `samples`: the one metric.
    public var metric: String?
    public var groupBy: String?
    public var activity: String?
    /// `samples`: the page size (default 500, at most 5000); ignored when `complete`.
    public var limit: Int?
    /// `samples` and `workouts`: rows to skip, the cursor of the next page (MCP paging).
    public var offset: Int = 0
    /// Every row, no page size: what exports and `--out` files write.
    public var complete: Bool = false

    public init(kind: Kind, since: CalendarDay? = nil, until: CalendarDay? = nil, metrics: [String] = [], metric: String? = nil,
                groupBy: String? = nil, activity: String? = nil, limit: Int? = nil) {
        self.kind = kind
        self.since = since
        self.until = until
        self.metrics = metrics
        self.metric = metric
        self.groupBy = groupBy
        self.activity = activity
        self.limit = limit
    }

    /// The days asked for once the defaults are filled in (nil for an overview of every day):
    /// `since` alone runs through today, `until` alone or neither takes the answer's usual window
    /// ending there. `AnswerScope` then cuts them to the archive.
    public func range(today: CalendarDay) throws -> DayRange? {
        typealias Limits = DayRange.Limits
        let defaultDays: Int
        switch kind {
        case .overview:
            guard since != nil || until != nil else { return nil }
            defaultDays = 365_000
        case .daily: defaultDays = Limits.dailyDefaultDays
        case .statistics: defaultDays = Limits.statisticsDefaultDays
        case .sleep: defaultDays = Limits.sleepDefaultDays
        case .workouts: defaultDays = Limits.workoutsDefaultDays
        case .samples: defaultDays = Limits.samplesDefaultDays
        }
        return try DayRange(since: since, until: until, defaultDays: defaultDays, today: today)
    }

    /// The answer from `source` over the days the one rule gives (`AnswerScope`, no page); `today`
    /// is the archive's local today, `archive` what the service said about itself (overview only).
    public func answer(from source: EventSource, today: CalendarDay, archive: ArchiveFacts? = nil) throws -> any Answer {
        try answer(from: source, today: today, archive: archive, pageDays: nil).answer
    }

    /// The answer over `range` as it stands (nil: every day, for an overview).
    func answer(from source: EventSource, range: DayRange?, archive: ArchiveFacts?) throws -> any Answer {
        typealias Limits = DayRange.Limits
        // A mirror answers from its index what the index can answer exactly; an index that cannot
        // be brought in step leaves the question to the days, which say what is wrong.
        if let mirror = source as? MirrorSource, let index = try? mirror.mirror.indexSnapshot(),
           let answer = try IndexedAnswers.answer(self, index: index, held: mirror.mirror.days, range: range, archive: archive, source: mirror) {
            return answer
        }
        switch kind {
        case .overview:
            return try OverviewAnswer(from: source, range: range, archive: archive)
        case .daily:
            return try DailyAnswer(from: source, metrics: metrics.isEmpty ? ["steps", "activeEnergy"] : metrics, range: try Self.given(range, source))
        case .statistics:
            guard let metric else { throw AnswerError.metricRequired }
            return try StatisticsAnswer(from: source, metric: metric, range: try Self.given(range, source), groupBy: try Grouping(name: groupBy ?? "month"))
        case .sleep:
            return try SleepAnswer(from: source, range: try Self.given(range, source))
        case .workouts:
            return try WorkoutsAnswer(from: source, range: try Self.given(range, source), activity: activity, offset: complete ? 0 : offset)
        case .samples:
            guard let metric else { throw AnswerError.metricRequired }
            return try SamplesAnswer(from: source, metric: metric, range: try Self.given(range, source), limit: complete ? nil : limit ?? Limits.samplesDefaultLimit,
                                     offset: complete ? 0 : offset)
        }
    }

    /// `range`, or every day the source holds when none is given.
    private static func given(_ range: DayRange?, _ source: EventSource) throws -> DayRange {
        if let range { return range }
        let days = try source.days()
        guard let first = days.first, let last = days.last else { return DayRange.nothing(from: ProtocolLimits.earliestDay) }
        return try DayRange(since: first, until: last)
    }
}
