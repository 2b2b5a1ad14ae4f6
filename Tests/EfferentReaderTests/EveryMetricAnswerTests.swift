import EfferentCore
import Testing
@testable import EfferentReader

/// Answers for metrics beyond the first catalogue (decision A.9): readings per day as minimum,
/// mean and maximum, totals the catalogue adds summed, workouts with their statistics, and a
/// route as GPX with fixes sharing a second kept in order.
@Suite struct EveryMetricAnswerTests {
    typealias F = Fixture

    static func part(_ metric: String, _ day: String, _ start: String, end: String? = nil, ordinal: Int64 = 0, _ value: Double?,
                     unit: String? = nil, source: String = "Watch") throws -> ArchiveEvent {
        let event = try DayEvent(kind: .record, metric: metric, unit: unit, source: source, start: F.at(start),
                                 end: (end.map(F.at) ?? F.at(start)) + ordinal, value: value)
        return ArchiveEvent(day: F.day(day), timeZone: nil, id: "hk:\(metric):\(start)", event: event)
    }

    @Test func dailyGivesReadingsAsMinimumMeanAndMaximumAndSumsNewTotals() throws {
        let source = EventList([
            try F.reading("bloodPressureSystolic", "2024-01-01", nil, "2024-01-01T07:00:00Z", 120, unit: "mmHg"),
            try F.reading("bloodPressureSystolic", "2024-01-01", nil, "2024-01-01T19:00:00Z", 131, unit: "mmHg"),
            try F.reading("bloodPressureSystolic", "2024-01-02", nil, "2024-01-02T07:00:00Z", 118, unit: "mmHg"),
            try F.total("distanceCycling", "2024-01-01", 12_000, unit: "m"),
            try F.total("distanceCycling", "2024-01-01", 900, unit: "m", bucket: .hour),
        ])
        let answer = try DailyAnswer(from: source, metrics: ["bloodPressureSystolic", "distanceCycling"], range: F.range("2024-01-01", "2024-01-02"))
        #expect(answer.table.columns == ["day", "bloodPressureSystolic.min", "bloodPressureSystolic.mean", "bloodPressureSystolic.max",
                                         "distanceCycling"])
        #expect(answer.values == [[120, 125.5, 131, 12_000], [118, 118, 118, nil]])
        #expect(answer.units == ["bloodPressureSystolic": "mmHg", "distanceCycling": "m"])
        #expect(answer.series(of: "bloodPressureSystolic") == [125.5, 118])
    }

    @Test func statisticsTakeAnyMetricWithNumbers() throws {
        let source = EventList([
            try F.reading("walkingHeartRateAverage", "2024-01-01", nil, "2024-01-01T18:00:00Z", 96),
            try F.reading("walkingHeartRateAverage", "2024-01-02", nil, "2024-01-02T18:00:00Z", 100),
        ])
        let answer = try StatisticsAnswer(from: source, metric: "walkingHeartRateAverage", range: F.range("2024-01-01", "2024-01-31"))
        #expect(!answer.overDailyTotals)
        #expect(answer.rows.first?.distribution.mean == 98)
        let fat = try StatisticsAnswer(from: EventList([try F.reading("bodyFatPercentage", "2024-01-01", nil, "2024-01-01T07:00:00Z", 0.21, unit: "%")]),
                                       metric: "bodyFatPercentage", range: F.range("2024-01-01", "2024-01-01"))
        #expect(fat.json["unitNote"]?.stringValue?.hasPrefix("fraction of 1") == true)
        #expect(throws: AnswerError.noStatistics(metric: "workout")) {
            try StatisticsAnswer(from: EventList([]), metric: "workout", range: F.range("2024-01-01", "2024-01-01"))
        }
    }

    @Test func workoutsCarryTheirStatisticsAndRouteFixes() throws {
        let day = "2024-01-02", start = "2024-01-02T07:00:00Z"
        var events = [try F.workout(day, nil, start, minutes: 30, activity: "13")]
        events.append(try Self.part("workout.distanceCycling.sum", day, start, end: "2024-01-02T07:30:00Z", 12_345.5, unit: "m"))
        events.append(try Self.part("workout.activeEnergy.sum", day, start, end: "2024-01-02T07:30:00Z", 321, unit: "kcal"))
        events.append(try Self.part("workout.heartRate.average", day, start, end: "2024-01-02T07:30:00Z", 141.25, unit: "count/min"))
        events.append(try Self.part("workout.heartRate.maximum", day, start, end: "2024-01-02T07:30:00Z", 170, unit: "count/min"))
        // Another source's statistic starting at the same moment is not this workout's.
        events.append(try Self.part("workout.activeEnergy.sum", day, start, 999, unit: "kcal", source: "Other"))
        for (time, ordinal, lat) in [("2024-01-02T07:00:01Z", Int64(0), 48.85661), ("2024-01-02T07:00:01Z", 1, 48.85662),
                                     ("2024-01-02T07:10:00Z", 0, 48.857)] {
            events.append(try Self.part("workoutRoute.latitude", day, time, ordinal: ordinal, lat, unit: "deg"))
            events.append(try Self.part("workoutRoute.longitude", day, time, ordinal: ordinal, 2.35, unit: "deg"))
        }
        events.append(try Self.part("workoutRoute.altitude", day, "2024-01-02T07:00:01Z", ordinal: 1, 35.5, unit: "m"))
        let source = EventList(events)
        let answer = try WorkoutsAnswer(from: source, range: F.range(day, day))
        let workout = try #require(answer.workouts.first)
        #expect(workout.activity == "cycling" && workout.distanceMeters == 12_345.5 && workout.activeEnergyKcal == 321)
        #expect(workout.averageHeartRate == 141.25 && workout.maximumHeartRate == 170 && workout.routeFixes == 3)
        #expect(answer.table.columns.suffix(5) == ["distanceMeters", "activeEnergyKcal", "averageHeartRate", "maximumHeartRate", "routeFixes"])

        let gpx = try RouteGPX(from: source, start: F.at(start))
        #expect(gpx.fixes.map(\.fields["latitude"]) == [48.85661, 48.85662, 48.857], "two fixes in one second keep their order")
        #expect(gpx.text.contains(#"<trkpt lat="48.85662" lon="2.35"><ele>35.5</ele><time>2024-01-02T07:00:01Z</time></trkpt>"#))
        #expect(gpx.text.contains(#"<name>cycling 2024-01-02T07:00:00Z</name>"#))
        #expect(throws: AnswerError.noWorkoutStarting(F.at("2024-01-02T08:00:00Z"))) { try RouteGPX(from: source, start: F.at("2024-01-02T08:00:00Z")) }
        let bare = EventList([try F.workout(day, nil, start, minutes: 30, activity: "13")])
        #expect(throws: AnswerError.noRoute(F.at(start))) { try RouteGPX(from: bare, start: F.at(start)) }
    }

    @Test func theOverviewNotesWhatAValueMeans() throws {
        let source = EventList([
            try Self.part("appleStandHour", "2024-01-01", "2024-01-01T08:00:00Z", end: "2024-01-01T09:00:00Z", 1),
            try Self.part("electrocardiogram.voltage", "2024-01-01", "2024-01-01T12:00:00Z", ordinal: 3, -265.868, unit: "mcV"),
        ])
        let overview = try OverviewAnswer(from: source)
        #expect(overview.metrics.map(\.metric) == ["appleStandHour", "electrocardiogram.voltage"])
        #expect(overview.metrics[0].unitNote?.contains("category value") == true)
        #expect(overview.metrics[1].unitNote?.contains("ordinal") == true)
    }
}
