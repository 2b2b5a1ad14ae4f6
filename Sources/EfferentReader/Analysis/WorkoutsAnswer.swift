import EfferentCore

/// `phone_data_workouts` (§10.3): the workouts of a range, counted and timed by activity.
public struct WorkoutsAnswer: Answer {
    /// One workout as the answer lists it.
    public struct Workout: Sendable, Equatable {
        public let start: Int64
        public let end: Int64
        /// The reader-side name (§4.2): `running`, `activity-<n>`, `activity-unknown`.
        public let activity: String
        /// The local day the workout started on.
        public let day: CalendarDay
        /// The recorded duration, or end minus start when none was recorded, in minutes.
        public let minutes: Double
        public let source: String?
        /// Its statistics (decision A.9), where the archive holds them: every distance type's sum
        /// in metres, active energy in kilocalories, heart rate in beats per minute.
        public var distanceMeters: Double? = nil
        public var activeEnergyKcal: Double? = nil
        public var averageHeartRate: Double? = nil
        public var maximumHeartRate: Double? = nil
        /// GPS fixes recorded during it (`efferent export route --start <start>` writes them as GPX).
        public var routeFixes: Int? = nil
        /// The zone of the day it was filed under: start and end are shown on its wall clock.
        public var timeZone: String? = nil
    }

    public let range: DayRange
    public let activity: String?
    /// Every workout overlapping the range (of the asked activity), by start, its statistics and
    /// route fixes perhaps not yet filled in (`completed` fills them).
    private let found: [Workout]
    /// `found[positions]` with their statistics and route fixes. From the days they are found
    /// with them; from the mirror's index they are filled only for the workouts asked for, so a
    /// page of JSON costs a page of them, not a decade's (the count, the order, `byActivity` and
    /// `next` need none of them).
    private let completed: @Sendable (Range<Int>) -> [Workout]
    /// Every workout overlapping the range (of the asked activity), by start.
    public var workouts: [Workout] { completed(found.indices) }
    /// Workouts the JSON answer skips before its page (MCP paging); tables list them all.
    public let offset: Int

    public static let columns = ["start", "end", "activity", "day", "minutes", "source", "distanceMeters", "activeEnergyKcal",
                                 "averageHeartRate", "maximumHeartRate", "routeFixes"]

    /// `activity`, when given, must be a catalogue name or `activity-<n>`.
    public init(from source: EventSource, range: DayRange, activity: String? = nil, offset: Int = 0) throws {
        if let activity, !Self.isActivityName(activity) { throw AnswerError.unknownActivity(activity) }
        self.range = range
        self.activity = activity
        self.offset = min(max(0, offset), DayRange.Limits.maximumOffset)
        let clock = LocalClock()
        var workouts: [Workout] = []
        // A window of archive days at a time (a decade of route fixes never sits in memory), each
        // read with the week after it: a workout's statistics start when it starts, on its own
        // day, and its route lies within its span, which a workout (at most 7 days) never leaves.
        // Each workout is taken in the window its own day falls in, so it is listed once.
        let from = range.since.previous, through = range.until.adding(days: 1)
        let held = range.isEmpty ? [] : try source.days().filter { $0 >= from && $0 <= through }
        for window in DayRange.windows(of: held) {
            let events = try source.events(from: window.first, through: min(through, window.last.adding(days: 7)), matching: WorkoutStatistics.wanted)
            let statistics = WorkoutStatistics(events)
            for item in events where item.event.metric == "workout" && item.day <= window.last {
                guard try clock.overlaps(item, range) else { continue }
                let event = item.event
                let name = MetricCatalogue.activityName(event.activity)
                if let activity, activity != name { continue }
                let seconds = event.duration ?? Double(event.end - event.start)
                var workout = Workout(start: event.start, end: event.end, activity: name, day: try clock.day(of: event.start, in: item.timeZone),
                                      minutes: Distribution.round3(seconds / 60), source: event.source)
                workout.timeZone = item.timeZone
                statistics.fill(&workout)
                workouts.append(workout)
            }
        }
        let found = workouts.sorted(by: Self.listedBefore)
        self.found = found
        completed = { Array(found[$0]) }
    }

    /// Workouts already found (the mirror's index finds them without opening a day), in the
    /// order `listedBefore` gives, and what fills in the statistics of those at some positions.
    init(range: DayRange, activity: String?, sorted: [Workout], offset: Int, completed: @escaping @Sendable (Range<Int>) -> [Workout]) {
        self.range = range
        self.activity = activity
        self.offset = min(max(0, offset), DayRange.Limits.maximumOffset)
        found = sorted
        self.completed = completed
    }

    /// The order workouts are listed in: by start, then end, then activity (sorting is
    /// deterministic, so the same workouts in the same order always sort the same way).
    static func listedBefore(_ a: Workout, _ b: Workout) -> Bool { (a.start, a.end, a.activity) < (b.start, b.end, b.activity) }

    static func isActivityName(_ name: String) -> Bool {
        if MetricCatalogue.activityNames.values.contains(name) || name == "activity-unknown" { return true }
        guard name.hasPrefix("activity-") else { return false }
        let number = name.dropFirst("activity-".count)
        return !number.isEmpty && number.allSatisfy(\.isNumber)
    }

    /// Count and minutes per activity name.
    public var byActivity: [String: (count: Int, minutes: Double)] {
        // Tallied in a short list, not a dictionary: a decade's workouts are a few activities,
        // mostly one after another of the same, and hashing each name was most of this.
        var names = [String](), tallies = [(count: Int, minutes: Double)]()
        var last = -1
        for workout in found {
            if last < 0 || names[last] != workout.activity {
                last = names.firstIndex(of: workout.activity) ?? {
                    names.append(workout.activity)
                    tallies.append((0, 0))
                    return names.count - 1
                }()
            }
            tallies[last].count += 1
            tallies[last].minutes += workout.minutes
        }
        return Dictionary(uniqueKeysWithValues: zip(names, tallies.map { ($0.count, Distribution.round3($0.minutes)) }))
    }

    /// The positions of the JSON answer's page: at most `maximumRows` workouts from `offset` on.
    private var page: Range<Int> {
        let first = min(offset, found.count)
        return first..<min(found.count, first + DayRange.Limits.maximumRows)
    }

    private var nextOffset: Int? { offset + page.count < found.count ? offset + page.count : nil }

    /// A workout's row under `columns`, as every format prints it (the SQL export stores the same).
    public static func row(_ workout: Workout, clock: LocalClock = LocalClock()) -> [JSONValue] {
        cells(workout).map { $0.value(clock) }
    }

    /// A workout's cells under `columns`: what `row` makes JSON values of, and the JSON answer
    /// writes straight as text.
    static func cells(_ workout: Workout) -> [RowCell] {
        func number(_ value: Double?) -> RowCell { value.map { .number(Distribution.round3($0)) } ?? .null }
        return [.instant(workout.start, zone: workout.timeZone), .instant(workout.end, zone: workout.timeZone), .string(workout.activity),
                .string(workout.day.description), .number(workout.minutes), workout.source.map(RowCell.string) ?? .null,
                number(workout.distanceMeters), number(workout.activeEnergyKcal), number(workout.averageHeartRate),
                number(workout.maximumHeartRate), workout.routeFixes.map { .number(Double($0)) } ?? .null]
    }

    private func hoisted(_ workouts: [Workout]) -> HoistedRows {
        let clock = LocalClock()
        let rate = ColumnDisplay(unit: "count/min", style: .decimals(0))
        let display: [ColumnDisplay] = [.time, .time, .plain, .plain, ColumnDisplay(unit: "min", style: .decimals(0)), .plain,
                                        ColumnDisplay(title: "distance", unit: "m", style: .distance),
                                        ColumnDisplay(title: "activeEnergy", unit: "kcal", style: .decimals(1)), rate, rate, .whole]
        return HoistedRows(columns: Self.columns, display: display, rows: workouts.map { Self.row($0, clock: clock) })
    }

    public var emptyNote: String? {
        found.isEmpty ? "no \(activity.map { "\($0) " } ?? "")workouts \(range.phrase)" : nil
    }

    /// Said when nothing matched, or when the rows are one page of more (`MAX_ROWS` a page).
    public var note: String? {
        if let empty = emptyNote { return empty + "." }
        if let next = nextOffset {
            return "rows list workouts \(offset + 1)–\(next) of \(found.count); byActivity counts them all. Ask again with offset \(next) for the next page."
        }
        return nil
    }

    public var json: JSONValue {
        var members = hoisted(completed(page)).members
        addMembers(to: &members)
        return .object(members)
    }

    /// `json`'s bytes, written straight from the page's workouts (a page of a thousand rows makes
    /// no JSON value per cell); `annotate` adds to the members as it would to `json`'s.
    public func jsonBytes(annotating annotate: (inout [String: JSONValue]) -> Void) throws(JSONError) -> [UInt8] {
        let workouts = completed(page)
        let rows = PageRows(columns: Self.columns, rows: workouts.map(Self.cells), clock: LocalClock())
        var members = rows.members
        addMembers(to: &members)
        annotate(&members)
        var writer = JSONWriter(reservingCapacity: 1024 + workouts.count * 160)
        try writer.object(members, writing: "rows") { writer throws(JSONError) in try rows.writeRows(into: &writer) }
        return writer.bytes
    }

    /// The members besides the rows: the next page, the count, the activities and the note.
    private func addMembers(to members: inout [String: JSONValue]) {
        if let next = nextOffset { members["next"] = .object(["offset": .number(Double(next))]) }
        members["total"] = .number(Double(found.count))
        members["byActivity"] = .object(byActivity.mapValues {
            .object(["count": .number(Double($0.count)), "minutes": .number($0.minutes)])
        })
        if let note { members["note"] = .string(note) }
    }

    /// Every workout, not a page: what the CLI prints and exports write.
    public var table: AnswerTable { hoisted(workouts).fullTable }
}
