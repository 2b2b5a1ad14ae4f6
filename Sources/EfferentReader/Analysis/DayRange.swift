import EfferentCore

/// The days an answer covers: `since…until`, both inclusive, local days of the archive's zone.
/// A range may be empty (`until` the day before `since`) when the days asked for lie wholly
/// outside the archive (`AnswerScope`): it holds no day and reads nothing.
public struct DayRange: Sendable, Equatable {
    public let since: CalendarDay
    public let until: CalendarDay

    private init(unchecked since: CalendarDay, until: CalendarDay) {
        self.since = since
        self.until = until
    }

    /// Archive days an answer reads at a time (`forEachWindow`): four concurrent answers over a
    /// decade of Watch heart rate peaked at 127–157 MB in the dashboard with a month, 205–211 MB
    /// with 92 days, at no speed measurable here.
    public static let windowDays = 31

    /// The empty range at `day`: no day, nothing read.
    public static func nothing(from day: CalendarDay) -> DayRange {
        // The calendar's first day has no day before it: the empty range sits after it instead.
        day.previous < day ? DayRange(unchecked: day, until: day.previous) : DayRange(unchecked: day.next, until: day)
    }

    public var isEmpty: Bool { until < since }

    /// "between 2024-01-01 and 2024-01-07", or "in the days asked" for an empty range: what an
    /// answer's empty note says of its days.
    public var phrase: String { isEmpty ? "in the days asked" : "between \(since) and \(until)" }

    /// Refuses `until` before `since`, and more than `limit` days when a limit is given.
    public init(since: CalendarDay, until: CalendarDay, limit: Int? = nil) throws(AnswerError) {
        guard until >= since else { throw .untilBeforeSince(since: since, until: until) }
        self.since = since
        self.until = until
        if let limit, dayCount > limit { throw .rangeTooLong(days: dayCount, limit: limit) }
    }

    /// Fills what the asker left out, one rule for every answer and surface: `since` alone runs
    /// through `today` (or is the one day asked when it lies after today); `until` alone, or
    /// neither, gives the range `defaultDays` long ending at `until` or today.
    public init(since: CalendarDay?, until: CalendarDay?, defaultDays: Int, today: CalendarDay,
                limit: Int? = nil) throws(AnswerError) {
        switch (since, until) {
        case let (since?, until?): try self.init(since: since, until: until, limit: limit)
        case let (since?, nil):
            try self.init(since: since, until: max(since, today), limit: limit)
        case let (nil, until?): try self.init(since: until.adding(days: -(defaultDays - 1)), until: until, limit: limit)
        case (nil, nil): try self.init(since: today.adding(days: -(defaultDays - 1)), until: today, limit: limit)
        }
    }

    /// How many days the range holds.
    public var dayCount: Int { max(0, Int(until.daysSinceEpoch - since.daysSinceEpoch) + 1) }

    /// Every day of the range, in order.
    public var days: [CalendarDay] { (0..<dayCount).map { since.adding(days: $0) } }

    public func contains(_ day: CalendarDay) -> Bool { day >= since && day <= until }

    /// The days an answer reads: one earlier than `since` (§10.2: a night that began the evening
    /// before belongs to the previous day), and `extraAfter` days past `until`.
    public func readEvents(from source: EventSource, extraAfter: Int = 0) throws -> [ArchiveEvent] {
        try source.events(from: since.previous, through: until.adding(days: extraAfter))
    }

    /// The same, of the metrics an answer needs only.
    public func readEvents(from source: EventSource, extraAfter: Int = 0, matching: @escaping (String) -> Bool) throws -> [ArchiveEvent] {
        guard !isEmpty else { return [] }
        return try source.events(from: since.previous, through: until.adding(days: extraAfter), matching: matching)
    }

    /// The events `readEvents` gives, in the same order, handed to `body` a window of
    /// `windowDays` held archive days at a time: an answer that folds events into per-day or
    /// per-group figures never holds a decade of them at once.
    public func forEachWindow(of source: EventSource, extraAfter: Int = 0, windowDays: Int = DayRange.windowDays,
                              matching: @escaping (String) -> Bool, _ body: ([ArchiveEvent]) throws -> Void) throws {
        guard !isEmpty else { return }
        let from = since.previous, through = until.adding(days: extraAfter)
        for window in Self.windows(of: try source.days().filter { $0 >= from && $0 <= through }, days: windowDays) {
            try body(try source.events(from: window.first, through: window.last, matching: matching))
        }
    }

    /// `held` (ascending archive days) cut into runs of `days` of them: the first and last day of
    /// each, the windows every answer reads.
    public static func windows(of held: [CalendarDay], days: Int = DayRange.windowDays) -> [(first: CalendarDay, last: CalendarDay)] {
        stride(from: 0, to: held.count, by: max(1, days)).map { start in (held[start], held[min(held.count, start + max(1, days)) - 1]) }
    }
}

extension DayRange {
    /// The protocol's limits on ranges and rows (§10.3).
    public enum Limits {
        public static let dailyDefaultDays = 90
        public static let dailyMaximumDays = 400
        public static let statisticsDefaultDays = 365
        public static let sleepDefaultDays = 90
        public static let workoutsDefaultDays = 365
        public static let samplesDefaultDays = 7
        public static let samplesDefaultLimit = 500
        public static let samplesMaximumLimit = 5000
        /// The furthest a page may start (`offset`): past every event of any archive, and far
        /// enough below Int.max that a page's arithmetic never overflows.
        public static let maximumOffset = 1_000_000_000
        /// `MAX_ROWS` of the MCP server: rows an answer lists before it notes the rest.
        public static let maximumRows = 1000
    }
}
