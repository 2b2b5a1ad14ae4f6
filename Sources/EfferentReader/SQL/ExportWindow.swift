import EfferentCore

/// A run of the mirror's days read once for the SQL export: every series of each day, for the
/// `events` rows, and the events the answers need, for `daily`, `sleep_nights`, `workouts` and
/// `routes`. Reading a window at a time keeps a decade out of memory; each window also holds the
/// days just around it, which the answers read for nights and workouts that cross its edges.
///
/// Its events carry no ids: no answer the export stores reads them (the export's tests compare
/// each table with the answer over the mirror itself, ids and all), and a decade's ids are
/// millions of strings.
struct ExportWindow {
    /// The rows of one day that share a series key, in body order.
    struct Run: Sendable {
        let key: DaySeries.Key
        let events: [DayEvent]
    }

    /// One mirrored day as the export writes it.
    struct Day: Sendable {
        let day: CalendarDay
        let uploaded: String
        let timeZone: String?
        let runs: [Run]
    }

    /// The days read, by day.
    let days: [CalendarDay: Day]
    /// The events answers read, in day order then body order, as a mirror source gives them.
    let source: WindowSource
    /// The window's runs of route fields (`workoutRoute.*`), with the day and zone they were read in.
    private let routeRuns: [(day: CalendarDay, timeZone: String?, events: [DayEvent])]
    /// Where each route field lies in `routeRuns`, ordered by start, body order kept among equal
    /// starts, so each workout's fixes are found by two binary searches (a window's fields are
    /// tens of thousands, its workouts dozens). Positions, not copies: a day of long runs holds
    /// tens of thousands of fields, and a copy of each was most of a window's memory.
    private let routeFields: [(start: Int64, run: Int32, index: Int32)]

    /// The metrics the answers read: everything but the samples faster than a second (route
    /// fixes, ECG voltages, beats, audiogram points), which are most of an every-type day's rows,
    /// except a fix's latitude, by which `workouts` counts its fixes.
    static func feedsAnswers(_ metric: String) -> Bool {
        !RecordParts.isSampleSeries(metric) || metric == RecordParts.route["latitude"]!.metric
    }

    /// Reads the mirrored days among `uploaded` (day → upload time it was fetched at) from `first`
    /// through `last`; a day whose file is gone since the record was read is skipped, and one whose
    /// file is not the body that was fetched is refused (`Mirror.fetchedBody`).
    init(mirror: Mirror, uploaded: [CalendarDay: String], from first: CalendarDay, through last: CalendarDay) throws {
        var days = [CalendarDay: Day]()
        var answerEvents = [ArchiveEvent]()
        var routeRuns = [(day: CalendarDay, timeZone: String?, events: [DayEvent])]()
        var routeFields = [(start: Int64, run: Int32, index: Int32)]()
        var day = first
        while day <= last {
            defer { day = day.next }
            guard let stamp = uploaded[day], let bytes = try mirror.fetchedBody(day) else { continue }
            let decoded: DecodedDay
            do throws(DayBodyError) { decoded = try DayBody(bytes: bytes).decoded() } catch {
                throw MirrorError.unreadableDay(day, error.description)
            }
            let read: Day
            switch decoded {
            case let .columnar(columns):
                read = Day(day: day, uploaded: stamp, timeZone: columns.timeZone, runs: columns.series.map { Run(key: $0.key, events: $0.events) })
            case .lines:
                read = Day(day: day, uploaded: stamp, timeZone: nil, runs: Self.runs(try MirrorSource.events(of: bytes, day: day).map(\.event)))
            }
            days[day] = read
            for run in read.runs {
                if run.key.metric.hasPrefix(RouteGPX.fieldPrefix) {
                    for (index, event) in run.events.enumerated() { routeFields.append((event.start, Int32(routeRuns.count), Int32(index))) }
                    routeRuns.append((day, read.timeZone, run.events))
                }
                guard Self.feedsAnswers(run.key.metric) else { continue }
                for event in run.events { answerEvents.append(ArchiveEvent(day: day, timeZone: read.timeZone, id: "", event: event)) }
            }
        }
        self.days = days
        source = WindowSource(answerEvents)
        self.routeRuns = routeRuns
        // Appended in day and body order, so (start, position) orders by start and keeps body order.
        self.routeFields = routeFields.sorted { ($0.start, $0.run, $0.index) < ($1.start, $1.run, $1.index) }
    }

    /// The route fields starting from `first` through `last` (Unix seconds), ordered by start.
    func routeFields(from first: Int64, through last: Int64) -> some Sequence<ArchiveEvent> {
        func firstIndex(startingAfter bound: Int64) -> Int {
            var low = 0, high = routeFields.count
            while low < high {
                let middle = (low + high) / 2
                if routeFields[middle].start <= bound { low = middle + 1 } else { high = middle }
            }
            return low
        }
        let range = first <= last ? firstIndex(startingAfter: first - 1)..<firstIndex(startingAfter: last) : 0..<0
        return routeFields[range].lazy.map { [routeRuns] field in
            let run = routeRuns[Int(field.run)]
            return ArchiveEvent(day: run.day, timeZone: run.timeZone, id: "", event: run.events[Int(field.index)])
        }
    }

    /// Layout-1 events grouped into runs of one series key, order kept.
    static func runs(_ events: [DayEvent]) -> [Run] {
        var runs = [Run]()
        var current = [DayEvent]()
        for event in events {
            if let last = current.last, DaySeries.Key(of: last) != DaySeries.Key(of: event) {
                runs.append(Run(key: DaySeries.Key(of: last), events: current))
                current = []
            }
            current.append(event)
        }
        if let last = current.last { runs.append(Run(key: DaySeries.Key(of: last), events: current)) }
        return runs
    }
}

/// The answer events of a window as an `EventSource`, sliced by day without copying a decade.
struct WindowSource: EventSource {
    let all: [ArchiveEvent]
    /// The first index of each day's events, days ascending.
    private let starts: [(day: CalendarDay, index: Int)]

    /// `events` must be in day order.
    init(_ events: [ArchiveEvent]) {
        all = events
        var starts = [(day: CalendarDay, index: Int)]()
        for (index, item) in events.enumerated() where starts.last?.day != item.day { starts.append((item.day, index)) }
        self.starts = starts
    }

    private func lowerBound(_ day: CalendarDay) -> Int {
        var low = 0, high = starts.count
        while low < high {
            let middle = (low + high) / 2
            if starts[middle].day < day { low = middle + 1 } else { high = middle }
        }
        return low < starts.count ? starts[low].index : all.count
    }

    func slice(from: CalendarDay, through: CalendarDay) -> ArraySlice<ArchiveEvent> {
        guard from <= through else { return [] }
        return all[lowerBound(from)..<lowerBound(through.next)]
    }

    func events(from: CalendarDay, through: CalendarDay) throws -> [ArchiveEvent] { Array(slice(from: from, through: through)) }

    func events(from: CalendarDay, through: CalendarDay, metric: String) throws -> [ArchiveEvent] {
        slice(from: from, through: through).filter { $0.event.metric == metric }
    }

    func events(from: CalendarDay, through: CalendarDay, matching: @escaping (String) -> Bool) throws -> [ArchiveEvent] {
        slice(from: from, through: through).filter { matching($0.event.metric) }
    }

    func days() throws -> [CalendarDay] { starts.map(\.day) }
}
