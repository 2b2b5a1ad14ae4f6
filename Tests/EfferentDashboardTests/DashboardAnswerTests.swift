import EfferentCore
@testable import EfferentDashboard
import EfferentReader
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

/// What the pages and the API show equals what `efferent daily/sleep/workouts/samples/overview`
/// answer from the same mirror: the API is those answers, byte for byte; a page's numbers are
/// theirs; an export holds every row; the OpenAPI document describes every route.
@Suite struct DashboardAnswerTests {
    func day(_ text: String) -> CalendarDay { CalendarDay(text)! }

    func json(_ answer: Answer) throws -> JSONValue {
        guard answer.status == 200 else { throw AnswerFailure(status: answer.status, body: answer.body) }
        return try JSONParser.parse(Array(answer.body.utf8))
    }

    struct AnswerFailure: Error { let status: Int; let body: String }

    @Test func theAPIAnswersAsTheCommandsDo() async throws {
        let harness = try await DashboardHarness(days: SampleDays.make())
        let source = harness.context.source
        let today = harness.context.today
        let questions: [(String, AnswerRequest)] = [
            ("/api/v1/daily?metric=steps&metric=heartRate&since=2025-05-03&until=2025-05-30",
             AnswerRequest(kind: .daily, since: day("2025-05-03"), until: day("2025-05-30"), metrics: ["steps", "heartRate"])),
            ("/api/v1/statistics?metric=heartRate&groupBy=week&since=2025-05-01&until=2025-06-09",
             AnswerRequest(kind: .statistics, since: day("2025-05-01"), until: day("2025-06-09"), metric: "heartRate", groupBy: "week")),
            ("/api/v1/sleep?since=2025-05-01&until=2025-06-09", AnswerRequest(kind: .sleep, since: day("2025-05-01"), until: day("2025-06-09"))),
            ("/api/v1/workouts?since=2025-05-01&until=2025-06-09", AnswerRequest(kind: .workouts, since: day("2025-05-01"), until: day("2025-06-09"))),
            ("/api/v1/samples?metric=bodyMass&since=2025-05-01&until=2025-06-09&limit=3",
             AnswerRequest(kind: .samples, since: day("2025-05-01"), until: day("2025-06-09"), metric: "bodyMass", limit: 3)),
            ("/api/v1/overview", AnswerRequest(kind: .overview)),
        ]
        var paged = AnswerRequest(kind: .samples, since: day("2025-05-01"), until: day("2025-06-09"), metric: "bodyMass", limit: 3)
        paged.offset = 3
        var laterWorkouts = AnswerRequest(kind: .workouts, since: day("2025-05-01"), until: day("2025-06-09"))
        laterWorkouts.offset = 2
        let pages: [(String, AnswerRequest)] = [
            ("/api/v1/samples?metric=bodyMass&since=2025-05-01&until=2025-06-09&limit=3&offset=3", paged),
            ("/api/v1/workouts?since=2025-05-01&until=2025-06-09&offset=2", laterWorkouts),
        ]
        for (target, question) in questions + pages {
            let answer = try harness.get(target)
            #expect(answer.status == 200, "\(target): \(answer.body)")
            // The answer with what every surface adds to it (its coverage; no cut or page here).
            let (plain, scope) = try question.answer(from: source, today: today, pageDays: AnswerScope.pageDays)
            let expected = String(decoding: try plain.jsonBytes { scope.annotate(&$0) }, as: UTF8.self)
            #expect(answer.body == expected, "\(target)")
        }
        #expect(try harness.get("/api/v1/samples?metric=bodyMass&since=2025-05-01&until=2025-06-09&limit=3").json?["next"]?["offset"]?.numberValue == 3,
                "a page says where the next starts")
        // A name read loosely answers as the right one and says so; an unknown one is refused with the closest.
        let loose = try harness.get("/api/v1/daily?metric=Steps&since=2025-05-03&until=2025-05-30")
        #expect(loose.status == 200 && loose.json?["nameNotes"]?.arrayValue?.first?.stringValue == "Steps read as steps", "\(loose.body.prefix(300))")
        let misspelt = try harness.get("/api/v1/daily?metric=stepz")
        #expect(misspelt.status == 400 && misspelt.error?.contains("stepz is not a metric name (the closest is steps)") == true, "\(misspelt.body)")
        let refused = try harness.get("/api/v1/daily?metric=sleep")
        #expect(refused.status == 400 && refused.error?.contains("sleep has no numbers") == true, "an answer's refusal is its sentence")
        // One spelling, groupBy, across the API and MCP; MCP's older group_by is taken, with a note, and gives the same rows.
        let snake = try harness.get("/api/v1/statistics?metric=heartRate&group_by=week")
        let camel = try harness.get("/api/v1/statistics?metric=heartRate&groupBy=week")
        #expect(snake.status == 200 && snake.json?["note"]?.stringValue?.hasSuffix("group_by is read as groupBy, the spelling the API and MCP share.") == true,
                "\(snake.body.prefix(300))")
        #expect(snake.json?["rows"] == camel.json?["rows"] && camel.json?["groupBy"] == .string("week"))
        let unknown = try harness.get("/api/v1/statistics?metric=heartRate&group=week")
        #expect(unknown.status == 400 && unknown.error == "group is not a parameter of statistics; it takes groupBy, group_by, metric, since, until")
    }

    /// The API's days follow the rule every surface does (AnswerScope): since alone runs through
    /// today, days outside the archive are cut and the answer's note says so, and a range longer
    /// than 400 days comes a page at a time with `next` — 0001-01-01 … 9999-12-31 included.
    @Test func theAPIsDaysFollowTheOneRule() async throws {
        let harness = try await DashboardHarness(days: SampleDays.make())
        let today = harness.context.today
        let end = max(SampleDays.last, today)
        let span = try DayRange(since: SampleDays.first, until: end).dayCount
        let wide = try json(try harness.get("/api/v1/daily?metric=steps&since=0001-01-01&until=9999-12-31"))
        #expect(wide["rows"]?.arrayValue?.first?.arrayValue?.first == .string("2025-05-01"))
        #expect(wide["note"]?.stringValue?.hasPrefix("cut to 2025-05-01 … ") == true, "\(wide["note"] ?? .null)")
        if span > AnswerScope.pageDays {
            // The mirror holds nothing after its 40 days, so no page follows this one, and it says so.
            #expect(wide["rows"]?.arrayValue?.count == AnswerScope.pageDays && wide["next"] == nil)
            #expect(wide["note"]?.stringValue?.contains("the archive holds no day from \(SampleDays.first.adding(days: AnswerScope.pageDays)) to \(end)") == true,
                    "\(wide["note"] ?? .null)")
        } else {
            #expect(wide["rows"]?.arrayValue?.count == span && wide["next"] == nil)
        }
        // since alone: from that day through today (a page of it), never 90 days.
        let alone = try json(try harness.get("/api/v1/daily?metric=steps&since=2025-05-01"))
        #expect(alone["rows"]?.arrayValue?.count == min(span, AnswerScope.pageDays))
        // Samples over the whole calendar read the archive's days only, and count every reading.
        let samples = try json(try harness.get("/api/v1/samples?metric=heartRate&since=0001-01-01&until=9999-12-31&limit=10"))
        #expect(samples["matched"]?.integerValue == 39 * 40 + 6000 && samples["returned"]?.integerValue == 10, "\(samples["note"] ?? .null)")
    }

    /// ALL runs from the metric's first day to its last, not to today: an archive that ended
    /// long ago fills the chart (issue 30). Every other span opens on the latest data too (issue
    /// 41): thirty days to the metric's last day, not thirty empty ones to today; a range with no
    /// data says where the data is and offers the jump.
    @Test func allRunsFromTheFirstDayToTheLast() async throws {
        let harness = try await DashboardHarness(days: SampleDays.make())
        for page in ["/api/v1/pages/metric/steps?range=ALL", "/api/v1/pages/sleep?range=ALL", "/api/v1/pages/workouts?range=ALL"] {
            let answer = try harness.get(page)
            #expect(answer.status == 200, "\(page): \(answer.body.prefix(200))")
        }
        let steps = try json(harness.get("/api/v1/pages/metric/steps?range=ALL"))
        #expect(steps["range"]?["since"] == .string(SampleDays.first.description), "\(steps["range"] ?? .null)")
        #expect(steps["range"]?["until"] == .string(SampleDays.last.description), "\(steps["range"] ?? .null)")
        let month = try json(harness.get("/api/v1/pages/metric/steps?range=30D"))
        #expect(month["range"]?["until"] == .string(SampleDays.last.description), "\(month["range"] ?? .null)")
        #expect(month["coverage"]?["daysWithData"]?.integerValue == 30 && month["coverage"]?["note"] == nil)
        // A run every fifth day: the last on day 35, which the workouts page opens on.
        for (page, last) in [("/api/v1/pages/sleep?range=30D", SampleDays.last), ("/api/v1/pages/workouts?range=30D", SampleDays.first.adding(days: 35))] {
            #expect(try json(harness.get(page))["range"]?["until"] == .string(last.description), "\(page)")
        }
        let later = SampleDays.last.adding(days: 100)
        let empty = try json(harness.get("/api/v1/pages/metric/steps?range=7D&until=\(later)"))
        #expect(empty["coverage"]?["note"]?.stringValue == "No steps between \(later.adding(days: -6)) and \(later); your steps end on \(SampleDays.last).",
                "\(empty["coverage"] ?? .null)")
        #expect(empty["coverage"]?["jump"]?["until"] == .string(SampleDays.last.description))
        let before = try json(harness.get("/api/v1/pages/sleep?range=7D&until=2025-01-01"))
        #expect(before["coverage"]?["note"]?.stringValue?.hasSuffix("your sleep begins on \(SampleDays.first).") == true, "\(before["coverage"] ?? .null)")
    }

    /// Samples are exported a day at a time with every row: 6,000 readings on the last day alone,
    /// past the 5,000 `samples` returns at most, all of them in the file.
    @Test(arguments: ["csv", "jsonl"])
    func anExportHoldsEveryRow(_ format: String) async throws {
        let harness = try await DashboardHarness(days: SampleDays.make())
        let range = "since=\(SampleDays.first)&until=\(SampleDays.last)"
        let answer = try harness.get("/api/v1/export/samples?metric=heartRate&format=\(format)&\(range)", over: .loopback)
        #expect(answer.status == 200 && answer.headers["transfer-encoding"] == "chunked", "streamed, with no length up front")
        #expect(answer.headers["content-disposition"] == "attachment; filename=\"efferent-samples-heartRate.\(format)\"")
        // CSV records end in CRLF, JSON Lines in LF.
        let lines = answer.body.components(separatedBy: format == "csv" ? "\r\n" : "\n").filter { !$0.isEmpty }
        let expected = (SampleDays.count - 1) * 40 + 6000
        #expect(lines.count == expected + (format == "csv" ? 1 : 0), "\(lines.count) lines")
        if format == "csv" {
            #expect(lines.first == "day,start,end,kind,bucket,unit,source,value,stage,activity,duration")
            #expect(lines.filter { $0.hasPrefix("day,") }.count == 1, "one header")
        } else {
            let first = try JSONParser.parse(Array(lines[0].utf8))
            #expect(first["day"]?.stringValue == SampleDays.first.description && first["unit"]?.stringValue == "count/min")
        }
        let json = try json(harness.get("/api/v1/samples?metric=heartRate&\(range)&limit=5000"))
        #expect(json["matched"]?.integerValue == Int64(expected) && json["returned"]?.integerValue == 5000, "the answer says what it left out")
        let daily = try harness.get("/api/v1/export/daily?metric=steps&\(range)&format=\(format)")
        #expect(daily.body.unicodeScalars.filter { $0 == "\n" }.count == SampleDays.count + (format == "csv" ? 1 : 0))
        let route = try harness.get("/api/v1/export/route?start=\(SampleDays.first.startUnixSeconds - 7200 + 18 * 3600)")
        #expect(route.status == 200 && route.headers["content-type"] == "application/gpx+xml" && route.body.components(separatedBy: "<trkpt").count == 61)
        // Issue 45: Int64.min crashed the dashboard here and on the workout page; it is a 400 now.
        for target in ["/api/v1/export/route?start=-9223372036854775808", "/api/v1/export/route?start=9223372036854775807",
                       "/api/v1/pages/workout/-9223372036854775808"] {
            let refused = try harness.get(target)
            #expect(refused.status == 400 && refused.body.contains("start"), "\(target): \(refused.status) \(refused.body)")
        }
        // A page's offset is bounded before any arithmetic (Int.max + a page overflowed).
        for target in ["/api/v1/samples?metric=heartRate&offset=9223372036854775807", "/api/v1/workouts?offset=1000000001"] {
            let refused = try harness.get(target)
            #expect(refused.status == 400 && refused.body.contains("offset must be a whole number from 0 to 1000000000"), "\(target): \(refused.body)")
        }
        for target in ["/api/v1/samples?metric=heartRate&since=2025-05-01&offset=1000000000", "/api/v1/workouts?since=2025-05-01&offset=1000000000"] {
            let empty = try self.json(harness.get(target))
            #expect(empty["rows"]?.arrayValue?.isEmpty == true && empty["next"] == nil, "\(target)")
        }
        #expect(try harness.get("/api/v1/status").status == 200, "the dashboard still answers")
    }

    @Test func aMetricsChartShowsWhatDailySays() async throws {
        let harness = try await DashboardHarness(days: SampleDays.make())
        let source = harness.context.source
        let week = try DayRange(since: day("2025-05-10"), until: day("2025-05-16"))
        let daily = try DailyAnswer(from: source, metrics: ["steps", "heartRate"], range: week)
        let steps = try json(harness.get("/api/v1/pages/metric/steps?range=7D&until=2025-05-16&width=700"))
        let bins = steps["chart"]?["bins"]?.arrayValue ?? []
        #expect(bins.count == 7)
        for (index, bin) in bins.enumerated() {
            #expect(bin["first"]?.stringValue == week.days[index].description)
            #expect(bin["value"]?.numberValue == daily.values[index][0], "steps on \(week.days[index])")
            #expect(bin["text"]?.stringValue == DisplayUnit.of("steps", unit: "count").text(daily.values[index][0]!))
        }
        #expect(steps["statistics"]?["total"]?.numberValue == Distribution.round3(daily.values.compactMap { $0[0] }.reduce(0, +)))
        #expect(steps["kind"]?.stringValue == "total" && steps["chart"]?["style"]?.stringValue == "bars")
        let svg = steps["chart"]?["svg"]?.stringValue ?? ""
        #expect(XMLParser(data: Data(svg.utf8)).parse() && svg.contains(" steps</text>"))

        // Heart rate over 90 days: a band per day with each day's lowest and highest reading.
        let heart = try json(harness.get("/api/v1/pages/metric/heartRate?range=90D&until=2025-06-09&width=1200"))
        let range = try DayRange(since: day("2025-03-12"), until: day("2025-06-09"))
        let perDay = try DailyAnswer(from: source, metrics: ["heartRate"], range: range)
        for (index, bin) in (heart["chart"]?["bins"]?.arrayValue ?? []).enumerated() {
            #expect(bin["min"]?.numberValue == perDay.values[index][0] && bin["max"]?.numberValue == perDay.values[index][2], "\(range.days[index])")
        }
        #expect(heart["chart"]?["style"]?.stringValue == "band" && heart["unit"]?["symbol"]?.stringValue == "bpm")
        // One day: readings in bins of minutes, the day's zone on the clock.
        let oneDay = try json(harness.get("/api/v1/pages/metric/heartRate?range=D&until=\(SampleDays.last)&width=800"))
        let dayBins = oneDay["chart"]?["bins"]?.arrayValue ?? []
        #expect(dayBins.count <= 740 && dayBins.compactMap { $0["n"]?.integerValue }.reduce(0, +) == 6000)
        #expect(dayBins.first?["label"]?.stringValue == "Mon 9 Jun 2025, 00:00–00:02")
        let empty = try json(harness.get("/api/v1/pages/metric/steps?range=30D&until=2024-01-31"))
        #expect(empty["chart"]?["empty"] == .bool(true) && empty["chart"]?["svg"]?.stringValue?.contains("No data in this range") == true)
        let nothing = try harness.get("/api/v1/pages/metric/nonsenseMetric")
        #expect(nothing.status == 404 && nothing.error?.contains("catalogue lists those it holds") == true)
        #expect(try harness.get("/api/v1/pages/metric/steps?range=3W").status == 400)
    }

    @Test func sleepAndWorkoutPagesShowWhatTheAnswersSay() async throws {
        let harness = try await DashboardHarness(days: SampleDays.make())
        let source = harness.context.source
        let range = try DayRange(since: day("2025-05-11"), until: day("2025-06-09"))
        let sleep = try SleepAnswer(from: source, range: range)
        let page = try json(harness.get("/api/v1/pages/sleep?range=30D&until=2025-06-09"))
        let nights = page["nights"]?.arrayValue ?? []
        #expect(nights.count == sleep.nights.count && nights.count >= 29)
        for (shown, night) in zip(nights, sleep.nights.reversed()) {
            #expect(shown["night"]?.stringValue == night.night.description && shown["asleepHours"]?.numberValue == night.asleepHours)
            #expect(shown["stages"] == .object(night.stages.mapValues(JSONValue.number)))
        }
        let chosen = sleep.nights[3]
        let night = try json(harness.get("/api/v1/pages/night/\(chosen.night)"))
        #expect(night["summary"]?["stages"] == .object(chosen.stages.mapValues(JSONValue.number)))
        #expect(night["summary"]?["from"]?.stringValue == "22:30" && night["summary"]?["start"]?.stringValue?.hasSuffix("+02:00") == true,
                "the night's clock in its own zone")
        let hypnogram = night["hypnogram"]?["svg"]?.stringValue ?? ""
        #expect(hypnogram.contains(">REM</text>") && hypnogram.contains("class=\"st-asleepDeep\"") && XMLParser(data: Data(hypnogram.utf8)).parse())

        let workouts = try WorkoutsAnswer(from: source, range: range)
        let list = try json(harness.get("/api/v1/pages/workouts?range=30D&until=2025-06-09"))
        let rows = list["workouts"]?.arrayValue ?? []
        #expect(rows.count == workouts.workouts.count && rows.count == 6)
        for (shown, workout) in zip(rows, workouts.workouts.reversed()) {
            #expect(shown["start"]?.integerValue == workout.start && shown["distanceMeters"]?.numberValue == workout.distanceMeters)
            #expect(shown["title"]?.stringValue == "Running" && shown["when"]?.stringValue?.hasSuffix(", 18:00") == true)
        }
        let detail = try json(harness.get("/api/v1/pages/workout/\(workouts.workouts[0].start)"))
        #expect(detail["route"]?["fixes"]?.integerValue == 60 && detail["route"]?["svg"]?.stringValue?.contains("c-route") == true)
        #expect(detail["heartRate"]?["style"]?.stringValue == "band")
        #expect(try harness.get("/api/v1/pages/workout/12345").status == 404)
    }

    /// Path parameters are percent-decoded once (a workout named by its ISO start, `:` written
    /// `%3A` as the page asks for it, an offset's `+` kept), and a page path the dashboard cannot
    /// serve gets the app's own page with the refusal's status, while the API keeps its JSON.
    @Test func pathsAreDecodedAndBadPagePathsGetTheAppsPage() async throws {
        let harness = try await DashboardHarness(days: SampleDays.make())
        let start = try #require(try WorkoutsAnswer(from: harness.context.source, range: DayRange(since: SampleDays.first, until: SampleDays.last)).workouts.first).start
        let utc = ISOInstant.text(start)
        let berlin = LocalClock().shown(start, in: "Europe/Berlin")
        for written in [utc.replacingOccurrences(of: ":", with: "%3A"), utc, berlin, berlin.replacingOccurrences(of: "+", with: "%2B"), String(start)] {
            let answer = try harness.get("/api/v1/pages/workout/\(written)")
            #expect(answer.status == 200 && answer.json?["workout"]?["start"]?.integerValue == start, "\(written): \(answer.status) \(answer.body.prefix(120))")
        }
        #expect(try harness.get("/api/v1/pages/night/2025-05-0%32").json?["night"]?.stringValue == "2025-05-02")
        let html = ["Accept": "text/html,application/xhtml+xml"]
        for (path, status) in [("/nope", 404), ("/sleep/2017-13-45", 400), ("/workouts/yesterday", 400), ("/metrics/a%20b", 400)] {
            let page = try harness.get(path, headers: html)
            #expect(page.status == status && page.headers["content-type"] == "text/html; charset=utf-8" && page.body.contains("/assets/app.js"),
                    "\(path): \(page.status) \(page.body.prefix(120))")
        }
        let api = try harness.get("/api/v1/pages/night/2017-13-45", headers: html)
        #expect(api.status == 400 && api.error == "a night is named by its evening's date, a real day written YYYY-MM-DD", "\(api.body)")
        #expect(try harness.get("/nope", headers: ["Accept": "application/json"]).error == "unknown path")
        #expect(try harness.get("/nope", token: false, headers: html).status == 401, "the gate's refusal comes before any page")
    }

    @Test func todayAndTheCatalogue() async throws {
        let harness = try await DashboardHarness(days: SampleDays.make())
        let today = try json(harness.get("/api/v1/pages/today?day=\(SampleDays.last)"))
        let rings = today["rings"]?["rings"]?.arrayValue ?? []
        #expect(rings.map { $0["key"]?.stringValue } == ["move", "exercise", "stand"])
        #expect(rings[0]["value"]?.numberValue == 459 && rings[0]["goal"]?.numberValue == 500 && rings[0]["text"]?.stringValue == "459 kcal of 500 kcal")
        #expect(today["rings"]?["source"]?.stringValue == "activitySummary")
        let headlines = Dictionary(uniqueKeysWithValues: (today["headlines"]?.arrayValue ?? []).map { ($0["metric"]!.stringValue!, $0) })
        let week = try DailyAnswer(from: harness.context.source, metrics: ["steps"], range: DayRange(since: SampleDays.last.adding(days: -6), until: SampleDays.last))
        #expect(headlines["steps"]?["latest"]?["value"]?.numberValue == week.values.last?[0])
        #expect(headlines["steps"]?["week"]?["value"]?.numberValue == Distribution.round3(week.values.compactMap { $0[0] }.reduce(0, +) / 7))
        #expect(headlines["bodyMass"]?["latest"]?["day"]?.stringValue == "2025-06-06")
        #expect(today["sleep"]?["latest"]?["night"]?.stringValue == "2025-06-08")
        #expect((today["workouts"]?.arrayValue ?? []).count == 5)
        // Long after the archive's last day, the sleep card shows the latest night it holds, said
        // as such, as the other cards show their latest values (it said "nothing recorded yet").
        let later = try json(harness.get("/api/v1/pages/today?day=\(SampleDays.last.adding(days: 40))"))
        #expect(later["sleep"]?["latest"]?["night"]?.stringValue == SampleDays.last.description, "\(later["sleep"] ?? .null)")
        #expect(later["sleep"]?["week"]?["note"]?.stringValue?.hasSuffix("the latest the archive holds") == true, "\(later["sleep"] ?? .null)")
        #expect(later["headlines"]?.arrayValue?.first?["latest"]?["day"]?.stringValue == SampleDays.last.description)

        let catalogue = try json(harness.get("/api/v1/pages/catalogue"))
        let overview = try OverviewAnswer(from: harness.context.source)
        let metrics = catalogue["metrics"]?.arrayValue ?? []
        #expect(metrics.map { $0["metric"]?.stringValue } == overview.metrics.map(\.metric))
        for (shown, line) in zip(metrics, overview.metrics) {
            #expect(shown["events"]?.integerValue == Int64(line.events) && shown["firstDay"]?.stringValue == line.firstDay.description)
        }
        #expect(metrics.first { $0["metric"]?.stringValue == "sleep" }?["page"]?.stringValue == "/sleep")
    }

    /// Every API route the dashboard registers is in its OpenAPI 3.1 document, and the document
    /// names no route that does not exist.
    @Test func theOpenAPIDocumentDescribesEveryRoute() async throws {
        let harness = try await DashboardHarness(days: [])
        let document = try json(harness.get("/api/openapi.json"))
        #expect(document["openapi"]?.stringValue == "3.1.0")
        let documented = Set((document["paths"]?.objectValue ?? [:]).keys)
        let registered = Set(harness.dashboard.routes.filter { $0.hasPrefix("/api") }.map { route in
            route.split(separator: "/", omittingEmptySubsequences: false)
                .map { $0.hasPrefix(":") ? "{" + $0.dropFirst() + "}" : String($0) }.joined(separator: "/")
        })
        #expect(documented == registered, "documented but absent: \(documented.subtracting(registered)); registered but undocumented: \(registered.subtracting(documented))")
        for (path, item) in document["paths"]?.objectValue ?? [:] {
            #expect(item.objectValue?.keys.sorted() == ["get"], "\(path) is GET only")
        }
        // Each answer's documented parameters are the ones it takes.
        for (kind, taken) in Dashboard.answerParameters {
            let parameters = document["paths"]?["/api/v1/\(kind.rawValue)"]?["get"]?["parameters"]?.arrayValue ?? []
            #expect(Set(parameters.compactMap { $0["name"]?.stringValue }) == taken, "\(kind.rawValue)")
        }
    }
}
