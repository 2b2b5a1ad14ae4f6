import EfferentCore

/// One event of the archive as a reader sees it: the day it was filed under, the zone that day was
/// cut in (decision A.4; nil means UTC), its expanded id (§3.2) and its fields.
///
/// An event expanded from a layout-2 day keeps the row its id is spelled from and spells it when
/// asked: most answers (daily totals, sleep, statistics) never read an id, and building one was
/// most of the cost of opening a day for them.
public struct ArchiveEvent: Sendable, Equatable {
    public let day: CalendarDay
    public let timeZone: String?
    public let event: DayEvent
    private let identity: Identity

    private enum Identity: Sendable {
        case text(String)
        case row(ExpandedEvent)
    }

    public init(day: CalendarDay, timeZone: String?, id: String, event: DayEvent) {
        self.day = day
        self.timeZone = timeZone
        self.event = event
        identity = .text(id)
    }

    /// The event at `expanded`'s row of a layout-2 day, its id spelled only when read.
    public init(day: CalendarDay, timeZone: String?, expanded: ExpandedEvent) {
        self.day = day
        self.timeZone = timeZone
        event = expanded.event
        identity = .row(expanded)
    }

    /// `<k>:<metric>:<ISO start>[:h|:d][#n]` (§3.2).
    public var id: String {
        switch identity {
        case let .text(id): id
        case let .row(expanded): expanded.id
        }
    }

    /// Equal when day, zone, id and fields are, however each id is held.
    public static func == (a: ArchiveEvent, b: ArchiveEvent) -> Bool {
        a.day == b.day && a.timeZone == b.timeZone && a.event == b.event && a.id == b.id
    }
}

/// Where answers read events from: the mirror on disk, or days fetched for one question.
public protocol EventSource {
    /// Every event of the archive days `from…through` (inclusive), in day order then body order.
    func events(from: CalendarDay, through: CalendarDay) throws -> [ArchiveEvent]
    /// The same, of one metric only (a source may skip expanding the rest).
    func events(from: CalendarDay, through: CalendarDay, metric: String) throws -> [ArchiveEvent]
    /// The same, of the metrics `matching` accepts (a source may skip reading the rest: a day of
    /// GPS fixes need not be decoded to answer for sleep).
    func events(from: CalendarDay, through: CalendarDay, matching: @escaping (String) -> Bool) throws -> [ArchiveEvent]
    /// The days the source holds, ascending.
    func days() throws -> [CalendarDay]
    /// Every metric name the source's days hold.
    func metricNames() throws -> Set<String>
    /// Days the source lists but cannot read now (a mirrored day whose file is missing or is not
    /// what was fetched), ascending: an answer over them names them rather than taking them as empty.
    func unusableDays() throws -> [CalendarDay]
}

extension EventSource {
    public func unusableDays() throws -> [CalendarDay] { [] }

    public func metricNames() throws -> Set<String> {
        let days = try days()
        guard let first = days.first, let last = days.last else { return [] }
        return Set(try events(from: first, through: last).map(\.event.metric))
    }

    public func events(from: CalendarDay, through: CalendarDay, metric: String) throws -> [ArchiveEvent] {
        try events(from: from, through: through).filter { $0.event.metric == metric }
    }

    public func events(from: CalendarDay, through: CalendarDay, matching: @escaping (String) -> Bool) throws -> [ArchiveEvent] {
        try events(from: from, through: through).filter { matching($0.event.metric) }
    }
}

/// An in-memory source, for tests and for `ask` (days fetched for one question).
public struct EventList: EventSource {
    public let all: [ArchiveEvent]

    public init(_ events: [ArchiveEvent]) { all = events.sorted { $0.day < $1.day } }

    public func events(from: CalendarDay, through: CalendarDay) throws -> [ArchiveEvent] {
        all.filter { $0.day >= from && $0.day <= through }
    }

    public func days() throws -> [CalendarDay] { Array(Set(all.map(\.day))).sorted() }
}
