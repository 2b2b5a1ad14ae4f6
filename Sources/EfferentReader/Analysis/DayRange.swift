import EfferentCore

/// The days an answer covers: `since…until`, both inclusive, local days of the archive's zone.
public struct DayRange: Sendable, Equatable {
    public let since: CalendarDay
    public let until: CalendarDay

    /// Refuses `until` before `since`, and more than `limit` days when a limit is given.
    public init(since: CalendarDay, until: CalendarDay, limit: Int? = nil) throws(AnswerError) {
        guard until >= since else { throw .untilBeforeSince(since: since, until: until) }
        self.since = since
        self.until = until
        if let limit, dayCount > limit { throw .rangeTooLong(days: dayCount, limit: limit) }
    }

    /// Fills what the asker left out: `until` defaults to `today`, `since` to the day that makes
    /// the range `defaultDays` long ending at `until` (or starting at `since` when only it is given).
    public init(since: CalendarDay?, until: CalendarDay?, defaultDays: Int, today: CalendarDay,
                limit: Int? = nil) throws(AnswerError) {
        switch (since, until) {
        case let (since?, until?): try self.init(since: since, until: until, limit: limit)
        case let (since?, nil):
            try self.init(since: since, until: max(since, min(today, since.adding(days: defaultDays - 1))), limit: limit)
        case let (nil, until?): try self.init(since: until.adding(days: -(defaultDays - 1)), until: until, limit: limit)
        case (nil, nil): try self.init(since: today.adding(days: -(defaultDays - 1)), until: today, limit: limit)
        }
    }

    /// How many days the range holds.
    public var dayCount: Int { Int(until.daysSinceEpoch - since.daysSinceEpoch) + 1 }

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
        try source.events(from: since.previous, through: until.adding(days: extraAfter), matching: matching)
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
        /// `MAX_ROWS` of the MCP server: rows an answer lists before it notes the rest.
        public static let maximumRows = 1000
    }
}
