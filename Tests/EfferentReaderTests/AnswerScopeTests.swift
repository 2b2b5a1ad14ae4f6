import EfferentCore
import EfferentTestSupport
import Testing
@testable import EfferentReader

/// The one rule for the days an answer covers (AnswerScope, decision A.13): since alone runs
/// through today, the range is cut to the archive before a day is read, a paging surface cuts it
/// to a page and says where the rest starts; and answers read a window of days at a time.
@Suite struct AnswerScopeTests {
    typealias F = Fixture

    /// `--since` alone answered 90 days (daily, sleep), 365 (workouts, statistics) or 7 (samples).
    @Test(arguments: AnswerRequest.Kind.allCases)
    func sinceAloneRunsThroughToday(_ kind: AnswerRequest.Kind) throws {
        let today = F.day("2026-12-01")
        let request = AnswerRequest(kind: kind, since: F.day("2016-01-01"), metric: "steps")
        let range = try #require(try request.range(today: today))
        #expect(range.since == F.day("2016-01-01") && range.until == today, "\(kind)")
        // A since after today is that one day, never a range ending before it starts.
        let later = AnswerRequest(kind: kind, since: F.day("2027-01-05"), metric: "steps")
        #expect(try later.range(today: today) == (try F.range("2027-01-05", "2027-01-05")))
    }

    /// Every day from the archive's first through its last (or today): 0001…9999 reads the decade.
    @Test func theRangeIsCutToTheArchiveAndSaysSo() throws {
        let held = [F.day("2024-01-10"), F.day("2024-01-11"), F.day("2024-03-31")]
        let today = F.day("2024-04-02")
        let wide = AnswerRequest(kind: .daily, since: F.day("0001-01-01"), until: F.day("9999-12-31"), metrics: ["steps"])
        let scope = try AnswerScope(wide, today: today, held: held)
        #expect(scope.range == (try F.range("2024-01-10", "2024-04-02")))
        #expect(scope.next == nil)
        #expect(scope.notes == ["cut to 2024-01-10 … 2024-04-02, the days the archive holds (2024-01-10 … 2024-04-02); 0001-01-01 … 9999-12-31 was asked."])
        // Within the archive nothing is said.
        let inside = AnswerRequest(kind: .daily, since: F.day("2024-02-01"), until: F.day("2024-02-10"), metrics: ["steps"])
        let plain = try AnswerScope(inside, today: today, held: held)
        #expect(plain.range == (try F.range("2024-02-01", "2024-02-10")) && plain.notes.isEmpty)
        #expect(plain.annotated(.object(["rows": .array([])])) == .object(["rows": .array([])]))
    }

    /// Days wholly outside the archive read nothing and give an empty answer that says why.
    @Test func daysOutsideTheArchiveReadNothing() throws {
        let source = EventList([try F.total("steps", "2024-01-10", 1000)])
        let request = AnswerRequest(kind: .daily, since: F.day("0001-01-01"), until: F.day("1999-12-31"), metrics: ["steps"])
        let (answer, scope) = try request.answer(from: source, today: F.day("2024-01-11"), pageDays: AnswerScope.pageDays)
        let daily = try #require(answer as? DailyAnswer)
        #expect(daily.values.isEmpty && scope.range?.isEmpty == true)
        #expect(daily.emptyNote == "no steps in the days asked")
        #expect(scope.notes == ["the archive holds 2024-01-10 … 2024-01-11, none of 0001-01-01 … 1999-12-31, so nothing was read."])
        let empty = try AnswerScope(request, today: F.day("2024-01-11"), held: [])
        #expect(empty.range?.isEmpty == true && empty.notes.first?.hasPrefix("the mirror holds no day yet") == true)
    }

    /// A JSON surface pages days 400 at a time with `next`; a file or a terminal gets them all.
    @Test func aLongRangeIsPagedWhereTheSurfacePagesAndWholeElsewhere() throws {
        var events = [ArchiveEvent]()
        var day = F.day("2023-01-01")
        while day <= F.day("2024-12-31") {
            events.append(try F.total("steps", day.description, 1000))
            day = day.next
        }
        let source = EventList(events)
        let today = F.day("2024-12-31")
        let request = AnswerRequest(kind: .daily, since: F.day("2023-01-01"), metrics: ["steps"])
        let (page, scope) = try request.answer(from: source, today: today, pageDays: 400)
        #expect(scope.range == (try F.range("2023-01-01", "2024-02-04")))
        #expect(scope.next == (try F.range("2024-02-05", "2024-12-31")))
        let json = scope.annotated(page.json)
        #expect(json["next"] == .object(["since": .string("2024-02-05"), "until": .string("2024-12-31")]))
        #expect(json["note"]?.stringValue == "this page covers 2023-01-01 … 2024-02-04, the first 400 days; ask again with since 2024-02-05 and until 2024-12-31 for the rest.")
        #expect(json["rows"]?.arrayValue?.count == 400)
        // The next page, asked as the note says, ends the range.
        let rest = AnswerRequest(kind: .daily, since: F.day("2024-02-05"), until: F.day("2024-12-31"), metrics: ["steps"])
        let (second, secondScope) = try rest.answer(from: source, today: today, pageDays: 400)
        #expect(secondScope.next == nil && (second as? DailyAnswer)?.values.count == 331)
        // The terminal and files (no page) get all 731 days at once.
        let whole = try request.answer(from: source, today: today)
        #expect((whole as? DailyAnswer)?.values.count == 731)
        var file = request
        file.complete = true
        #expect(try AnswerScope(file, today: today, held: try source.days(), pageDays: 400).next == nil)
        // Statistics by month and workouts never page by days; statistics by day does.
        let months = AnswerRequest(kind: .statistics, since: F.day("2023-01-01"), metric: "steps", groupBy: "month")
        #expect(try AnswerScope(months, today: today, held: try source.days(), pageDays: 400).next == nil)
        let days = AnswerRequest(kind: .statistics, since: F.day("2023-01-01"), metric: "steps", groupBy: "day")
        #expect(try AnswerScope(days, today: today, held: try source.days(), pageDays: 400).next != nil)
    }

    /// A stray reading decades before the rest (the writer leaves the gap unfilled, A.12) costs
    /// one page: the next page starts at the next day the archive holds, and says what it skipped.
    @Test func aPageSkipsTheDaysTheArchiveDoesNotHold() throws {
        var held = [F.day("1900-01-01")]
        var day = F.day("2026-01-01")
        while day <= F.day("2026-01-20") { held.append(day); day = day.next }
        let today = F.day("2026-01-20")
        let request = AnswerRequest(kind: .daily, since: F.day("0001-01-01"), until: F.day("9999-12-31"), metrics: ["steps"])
        let first = try AnswerScope(request, today: today, held: held, pageDays: 400)
        #expect(first.range == (try F.range("1900-01-01", "1901-02-04")))
        #expect(first.next == (try F.range("2026-01-01", "2026-01-20")))
        #expect(first.notes.last == "this page covers 1900-01-01 … 1901-02-04, the first 400 days; ask again with since 2026-01-01 and until 2026-01-20 for the rest (the archive holds no day from 1901-02-05 to 2025-12-31).")
        var rest = request
        rest.since = first.next?.since
        rest.until = first.next?.until
        let second = try AnswerScope(rest, today: today, held: held, pageDays: 400)
        #expect(second.range == first.next && second.next == nil && second.notes.isEmpty)
    }

    /// Answers fold a window of days at a time; their figures are those of one pass over all
    /// events: readings' min/mean/max, totals, distributions, and a page of samples in
    /// (start, end, archive order) with every event counted.
    @Test func windowsGiveTheFiguresOfOnePass() throws {
        var events = [ArchiveEvent]()
        var generator = SplitMix64(seed: 7)
        var day = F.day("2024-01-01")
        // 300 days × 90 readings: 27,000 events, past the samples page's trimming threshold.
        while day <= F.day("2024-10-26") {
            for minute in 0..<90 {
                let second = Int(generator.next() % 86_000)
                let start = day.startUnixSeconds + Int64(second)
                let event = try DayEvent(kind: .record, metric: "heartRate", unit: "count/min", source: minute % 3 == 0 ? "Phone" : "Watch",
                                         start: start, end: start + Int64(minute % 2), value: Double(50 + generator.next() % 100) + 0.25)
                events.append(ArchiveEvent(day: day, timeZone: nil, id: "hk:heartRate:\(day):\(minute)", event: event))
            }
            events.append(try F.total("steps", day.description, Double(generator.next() % 20_000)))
            day = day.next
        }
        let source = EventList(events)
        let range = try F.range("2024-01-02", "2024-10-25")
        let inRange = events.filter { range.contains($0.day) }
        // Daily: min, mean and max of the readings; the total as it is.
        let daily = try DailyAnswer(from: source, metrics: ["heartRate", "steps"], range: range)
        #expect(daily.columns.map(\.name) == ["heartRate.min", "heartRate.mean", "heartRate.max", "steps"])
        for (row, day) in range.days.enumerated() {
            let values = inRange.filter { $0.day == day && $0.event.metric == "heartRate" }.compactMap(\.event.value)
            let total = inRange.first { $0.day == day && $0.event.metric == "steps" }?.event.value
            #expect(daily.values[row] == [values.min(), Distribution.round3(values.reduce(0, +) / Double(values.count)), values.max(), total])
        }
        // Statistics by month: the distribution of every reading of the month.
        let statistics = try StatisticsAnswer(from: source, metric: "heartRate", range: range, groupBy: .month)
        let june = inRange.filter { $0.day.description.hasPrefix("2024-06") && $0.event.metric == "heartRate" }.compactMap(\.event.value)
        #expect(statistics.rows.first { $0.group == "2024-06" }?.distribution == Distribution(june))
        // Samples: a page deep into the range, and the count of all.
        let ordered = inRange.filter { $0.event.metric == "heartRate" }.enumerated()
            .sorted { ($0.element.event.start, $0.element.event.end, $0.offset) < ($1.element.event.start, $1.element.event.end, $1.offset) }
            .map(\.element.id)
        let page = try SamplesAnswer(from: source, metric: "heartRate", range: range, limit: 500, offset: 12_345)
        #expect(page.matched == ordered.count)
        #expect(page.events.map(\.id) == Array(ordered[12_345..<12_845]))
        let all = try SamplesAnswer(from: source, metric: "heartRate", range: range, limit: nil)
        #expect(all.events.map(\.id) == ordered)
    }
}
