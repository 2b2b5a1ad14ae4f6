import EfferentCore
import Testing
@testable import EfferentReader

@Suite struct AnswerRefusalTests {
    typealias F = Fixture

    /// Daily answers for every metric with numbers (decision A.9); sleep and workouts have none,
    /// and a name neither the protocol nor the days know is refused rather than answered empty.
    @Test func dailyRefusesMetricsWithoutNumbersAndUnknownNames() throws {
        let error = #expect(throws: AnswerError.self) {
            try DailyAnswer(from: EventList([]), metrics: ["steps", "sleep"], range: F.range("2024-01-01", "2024-01-02"))
        }
        #expect(error == .noNumbers(metric: "sleep"))
        #expect(error?.description == "daily sums totals and gives the minimum, mean and maximum of readings; sleep has no numbers — use sleep, workouts or samples.")
        #expect(throws: AnswerError.unknownMetric("stepz")) {
            try DailyAnswer(from: EventList([]), metrics: ["stepz"], range: F.range("2024-01-01", "2024-01-02"))
        }
        #expect(throws: AnswerError.noMetrics) {
            try DailyAnswer(from: EventList([]), metrics: [], range: F.range("2024-01-01", "2024-01-02"))
        }
        // A metric only the archive knows is answered like any other.
        let source = EventList([try F.reading("someFutureType", "2024-01-01", nil, "2024-01-01T08:00:00Z", 3)])
        #expect(try DailyAnswer(from: source, metrics: ["someFutureType"], range: F.range("2024-01-01", "2024-01-01")).values == [[3, 3, 3]])
    }

    /// No range cap on local answers (the MCP tools page long ones); an empty one says so.
    @Test func dailyAnswersAnyRangeAndSaysWhenItIsEmpty() throws {
        let long = try DayRange(since: F.day("2016-01-01"), until: F.day("2024-02-05"))
        let answer = try DailyAnswer(from: EventList([]), metrics: ["steps", "activeEnergy"], range: long)
        #expect(answer.values.count == long.dayCount && long.dayCount > 400)
        #expect(answer.emptyNote == "no steps or activeEnergy between 2016-01-01 and 2024-02-05")
    }

    /// A name is read loosely where one fits, and refused with the archive's names and the nearest otherwise.
    @Test func namesAreResolvedOrRefusedWithTheNearest() throws {
        let source = EventList([try F.reading("heartRate", "2024-01-01", nil, "2024-01-01T08:00:00Z", 60),
                                try F.reading("someFutureType", "2024-01-01", nil, "2024-01-01T08:00:00Z", 3)])
        let resolver = NameResolver(source: source)
        #expect(try resolver.metric("steps") == .init(name: "steps", note: nil))
        #expect(try resolver.metric("Steps") == .init(name: "steps", note: "Steps read as steps"))
        #expect(try resolver.metric("somefuturetype").name == "someFutureType")
        let error = #expect(throws: AnswerError.self) { try resolver.metric("hartRate") }
        #expect(error == .unknownMetricName("hartRate", closest: "heartRate", held: ["heartRate", "someFutureType"]))
        #expect(error?.isUsage == true)
        #expect(try resolver.activity("Running").name == "running")
        #expect(throws: AnswerError.unknownActivityName("jogginng", closest: nil, valid: Set(MetricCatalogue.activityNames.values).sorted())) {
            try resolver.activity("jogginng")
        }
    }

    @Test func untilBeforeSinceIsRefused() {
        let error = #expect(throws: AnswerError.self) { try DayRange(since: F.day("2024-01-02"), until: F.day("2024-01-01")) }
        #expect(error?.description == "until is before since (2024-01-01 < 2024-01-02); swap them or pick a later until.")
    }

    @Test func defaultsFillWhatTheAskerLeftOut() throws {
        let today = F.day("2024-03-31")
        let daily = try DayRange(since: nil, until: nil, defaultDays: 90, today: today)
        #expect(daily.dayCount == 90)
        #expect(daily.until == today)
        let fromSince = try DayRange(since: F.day("2024-03-30"), until: nil, defaultDays: 7, today: today)
        #expect(fromSince.until == today)
        let fromUntil = try DayRange(since: nil, until: F.day("2024-01-07"), defaultDays: 7, today: today)
        #expect(fromUntil.since == F.day("2024-01-01"))
        #expect(throws: AnswerError.rangeTooLong(days: 401, limit: 400)) {
            try DayRange(since: F.day("2023-01-01"), until: F.day("2024-02-05"), defaultDays: 90, today: today, limit: 400)
        }
    }

    @Test func samplesRefuseNoMetricAndLimitsOutOfRange() throws {
        let range = try F.range("2024-01-01", "2024-01-01")
        #expect(throws: AnswerError.metricRequired) { try SamplesAnswer(from: EventList([]), metric: "", range: range) }
        #expect(throws: AnswerError.limitOutOfRange(limit: 0, maximum: 5000)) {
            try SamplesAnswer(from: EventList([]), metric: "heartRate", range: range, limit: 0)
        }
        #expect(throws: AnswerError.limitOutOfRange(limit: 5001, maximum: 5000)) {
            try SamplesAnswer(from: EventList([]), metric: "heartRate", range: range, limit: 5001)
        }
        #expect(try SamplesAnswer(from: EventList([]), metric: "heartRate", range: range, limit: 5000).matched == 0)
    }

    @Test func statisticsRefuseSleepAndUnknownGroupings() throws {
        #expect(throws: AnswerError.noStatistics(metric: "sleep")) {
            try StatisticsAnswer(from: EventList([]), metric: "sleep", range: F.range("2024-01-01", "2024-01-01"))
        }
        #expect(throws: AnswerError.unknownGrouping("fortnight")) { try Grouping(name: "fortnight") }
        #expect(try Grouping(name: "week") == .week)
    }

    @Test func anUnknownZoneIsRefusedWithWhatToInstall() throws {
        let source = EventList([try F.reading("heartRate", "2024-01-01", "Mars/Olympus_Mons", "2024-01-01T08:00:00Z", 60)])
        let error = #expect(throws: AnswerError.self) {
            try SamplesAnswer(from: source, metric: "heartRate", range: F.range("2024-01-01", "2024-01-01"))
        }
        #expect(error?.description.contains("tzdata") == true)
    }

    @Test func everyRefusalIsOneSentence() {
        let errors: [AnswerError] = [
            .noNumbers(metric: "sleep"), .noStatistics(metric: "workout"), .unknownMetric("x"), .noWorkoutStarting(0), .noRoute(0),
            .rangeTooLong(days: 500, limit: 400),
            .untilBeforeSince(since: F.day("2024-01-02"), until: F.day("2024-01-01")), .limitOutOfRange(limit: 0, maximum: 5000),
            .metricRequired, .noMetrics, .unknownGrouping("x"), .unknownActivity("x"), .unknownTimeZone("x"),
            .unknownMetricName("stepz", closest: "steps", held: ["heartRate", "steps"]), .unknownActivityName("yogaa", closest: "yoga", valid: ["yoga"]),
        ]
        for error in errors {
            #expect(error.description.hasSuffix("."))
            #expect(!error.description.dropLast().contains(". "))
        }
    }
}
