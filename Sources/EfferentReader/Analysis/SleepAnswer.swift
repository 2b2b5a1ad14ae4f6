import EfferentCore

/// `phone_data_sleep` (§10.3): the nights of a range, stitched across sources (see `SleepNight`
/// for the rules), and how long they were.
public struct SleepAnswer: Answer {
    public let range: DayRange
    /// Nights of the range with at least one sleep stretch, by night.
    public let nights: [SleepNight]

    /// Reads one day before `since` and one after `until`, so a night named `until` keeps its
    /// morning; only nights named inside the range are answered.
    public init(from source: EventSource, range: DayRange) throws {
        self.range = range
        let clock = LocalClock()
        var byNight: [CalendarDay: [SleepNight.Stretch]] = [:]
        try range.forEachWindow(of: source, extraAfter: 1, matching: { $0 == "sleep" }) { events in
            for item in events {
                let event = item.event
                let night = try SleepNight.night(of: event.start, timeZone: item.timeZone, clock: clock)
                guard range.contains(night) else { continue }
                byNight[night, default: []].append(.init(start: event.start, end: event.end, stage: event.stage, timeZone: item.timeZone))
            }
        }
        nights = try byNight.keys.sorted().compactMap { night throws(AnswerError) in
            try SleepNight(night: night, stretches: byNight[night]!, clock: clock)
        }
    }

    /// The answer over `range` from each night's stretches, in the order the days give them
    /// (the mirror's index, `IndexedAnswers.sleep`).
    init(range: DayRange, byNight: [CalendarDay: [SleepNight.Stretch]], clock: LocalClock) throws {
        self.range = range
        nights = try byNight.keys.sorted().compactMap { night throws(AnswerError) in
            try SleepNight(night: night, stretches: byNight[night]!, clock: clock)
        }
    }

    /// Hours asleep over the nights that have an asleep figure; `nil` when none has. Its `n` is
    /// how many nights it averages: the nights recorded less those in bed only.
    public var asleepDistribution: Distribution? { Distribution(nights.compactMap(\.asleepHours)) }

    /// Nights recorded with no asleep stage (only in bed, or awake): recorded, never a night of 0 h.
    public var nightsInBedOnly: Int { nights.reduce(0) { $0 + ($1.isInBedOnly ? 1 : 0) } }

    public var emptyNote: String? { nights.isEmpty ? "no sleep \(range.phrase)" : nil }

    /// An instant of a night on its own wall clock, with the offset.
    private func time(_ seconds: Int64, _ night: SleepNight, _ clock: LocalClock) -> JSONValue {
        .string(clock.shown(seconds, in: night.timeZone))
    }

    public var json: JSONValue {
        let clock = LocalClock()
        // `nights` says how many nights the figures average (the recorded ones with an asleep figure).
        var distribution = asleepDistribution.map { $0.json(withCount: false, withSum: false) }
            ?? ["min": .null, "p10": .null, "median": .null, "mean": .null, "p90": .null, "max": .null]
        distribution["nights"] = .number(Double(asleepDistribution?.n ?? 0))
        return .object([
            "nightsRecorded": .number(Double(nights.count)),
            "nightsInBedOnly": .number(Double(nightsInBedOnly)),
            "nightsInRange": .number(Double(range.dayCount)),
            "asleepHours": .object(distribution),
            "rows": .array(nights.map { night in
                .object([
                    "night": .string(night.night.description),
                    "asleepHours": night.asleepHours.map(JSONValue.number) ?? .null,
                    "inBedHours": night.inBedHours.map(JSONValue.number) ?? .null,
                    "stages": .object(night.stages.mapValues(JSONValue.number)),
                    "start": time(night.start, night, clock),
                    "end": time(night.end, night, clock),
                    "segments": .number(Double(night.segments)),
                    "naps": .array(night.naps.map { nap in
                        .object(["start": time(nap.start, night, clock), "end": time(nap.end, night, clock),
                                 "asleepHours": .number(nap.asleepHours)])
                    }),
                ])
            }),
        ])
    }

    /// One row per night; a column per stage any night holds (catalogue order), and the naps as
    /// a count and their hours asleep.
    public var table: AnswerTable {
        let seen = Set(nights.flatMap(\.stages.keys))
        let stages = MetricCatalogue.sleepStages.filter(seen.contains) + seen.subtracting(MetricCatalogue.sleepStages).sorted()
        let clock = LocalClock()
        let hours = ColumnDisplay(unit: "h", style: .decimals(2))
        return AnswerTable(
            columns: ["night", "start", "end", "asleepHours", "inBedHours", "segments"] + stages + ["naps", "napAsleepHours"],
            rows: nights.map { night in
                var row: [JSONValue] = [.string(night.night.description), time(night.start, night, clock),
                                        time(night.end, night, clock), night.asleepHours.map(JSONValue.number) ?? .null,
                                        night.inBedHours.map(JSONValue.number) ?? .null, .number(Double(night.segments))]
                row += stages.map { night.stages[$0].map(JSONValue.number) ?? .null }
                row += [.number(Double(night.naps.count)),
                        .number(Distribution.round3(night.naps.reduce(0) { $0 + $1.asleepHours }))]
                return row
            },
            display: [.plain, .time, .time, hours, hours, .whole] + stages.map { _ in hours } + [.whole, hours])
    }
}
