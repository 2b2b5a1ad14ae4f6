import EfferentClient
import EfferentCore
@testable import EfferentDashboard
import EfferentReader
import EfferentTestSupport
import Foundation
import Testing

/// One definition of a night on every surface (issue 41): a night with only time in bed has no
/// asleep figure, counts in `nightsInBedOnly`, and stays out of every mean of time asleep — the
/// CLI's and the API's JSON, MCP, the dashboard's sleep page, its Today card and chart, and
/// `avg(asleep_hours)` over the SQL export's `sleep_nights`.
@Suite struct SleepRuleTests {
    static let first = CalendarDay("2025-03-03")!
    /// Minutes asleep on each night of the week; nil is a night with only time in bed.
    static let asleepMinutes: [Int?] = [420, 450, nil, 390, 480, 405, 465]
    static var expectedMean: Double {
        let hours = asleepMinutes.compactMap { $0 }.map { Double($0) / 60 }
        return Distribution.round3(hours.reduce(0, +) / Double(hours.count))
    }

    /// A week in Berlin: each night in bed 22:00–07:00 on the iPhone, and on six of them the
    /// Watch's stages; the third night has the iPhone's "in bed" alone.
    static func week() throws -> [(CalendarDay, String)] {
        let zone = ZoneCalendar(identifier: "Europe/Berlin")!
        return try (0..<8).map { offset in
            let date = first.adding(days: offset)
            let (start, _) = zone.bounds(of: date)
            var events = [DayEvent]()
            events.append(try DayEvent(kind: .total, metric: "steps", bucket: .day, unit: "count", start: start, end: start + 86_400,
                                       value: Double(8000 + offset)))
            if offset < asleepMinutes.count {
                let evening = start + 22 * 3600
                events.append(try DayEvent(kind: .record, metric: "sleep", source: "iPhone", start: evening, end: evening + 9 * 3600, stage: "inBed"))
                if let minutes = asleepMinutes[offset] {
                    let core = Int64(minutes - 90) * 60
                    events.append(try DayEvent(kind: .record, metric: "sleep", source: "Watch", start: evening + 1800, end: evening + 1800 + core,
                                               stage: "asleepCore"))
                    events.append(try DayEvent(kind: .record, metric: "sleep", source: "Watch", start: evening + 1800 + core,
                                               end: evening + 1800 + core + 5400, stage: "asleepDeep"))
                }
            }
            return (date, String(decoding: DayBody(events: events, timeZone: "Europe/Berlin").bytes, as: UTF8.self))
        }
    }

    func json(_ answer: EfferentDashboardTests.Answer) throws -> JSONValue {
        #expect(answer.status == 200, "\(answer.body.prefix(300))")
        return try JSONParser.parse(Array(answer.body.utf8))
    }

    @Test func aNightInBedOnlyHasNoAsleepFigureAndEverySurfaceGivesOneMean() async throws {
        let harness = try await DashboardHarness(days: Self.week())
        let last = Self.first.adding(days: 6)
        let mean = Self.expectedMean
        #expect(mean == 7.25)

        // The answer itself: the night is recorded, has no asleep figure, and is counted apart.
        let answer = try SleepAnswer(from: harness.context.source, range: DayRange(since: Self.first, until: last))
        #expect(answer.nights.count == 7 && answer.nightsInBedOnly == 1)
        #expect(answer.nights[2].asleepHours == nil && answer.nights[2].inBedHours == 9)
        #expect(answer.asleepDistribution?.mean == mean && answer.asleepDistribution?.n == 6 && answer.asleepDistribution?.min == 6.5)

        // The CLI's JSON is the API's, byte for byte (DashboardAnswerTests); its members here.
        let api = try json(harness.get("/api/v1/sleep?since=\(Self.first)&until=\(last)"))
        #expect(api["asleepHours"]?["mean"]?.numberValue == mean && api["asleepHours"]?["nights"]?.integerValue == 6)
        #expect(api["nightsRecorded"]?.integerValue == 7 && api["nightsInBedOnly"]?.integerValue == 1)
        #expect(api["rows"]?.arrayValue?[2]["asleepHours"] == .null)
        let coverage = try Coverage(span: DayRange(since: Self.first, until: last), metrics: ["sleep"], of: harness.context.source)
        let bytes = String(decoding: try answer.jsonBytes { $0["coverage"] = coverage.json }, as: UTF8.self)
        #expect(try bytes == harness.get("/api/v1/sleep?since=\(Self.first)&until=\(last)").body)

        // MCP, over the same mirror.
        let context = harness.context
        let mcp = LocalMCPServer(world: .init(source: { context.source }, today: { last.next }, refresh: { _ in .object([:]) }, archive: { nil }),
                                 clock: { Date() })
        let line = await mcp.handle(#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"phone_data_sleep","arguments":{"since":"\#(Self.first)","until":"\#(last)"}}}"#)
        let text = try #require(try JSONParser.parse(line ?? "")["result"]?["content"]?.arrayValue?.first?["text"]?.stringValue)
        let tool = try JSONParser.parse(text)
        #expect(tool["asleepHours"]?["mean"]?.numberValue == mean && tool["nightsInBedOnly"]?.integerValue == 1)

        // The dashboard: the sleep page's mean and its sentence, the Today card, the chart.
        let page = try json(harness.get("/api/v1/pages/sleep?range=7D&until=\(last)"))
        #expect(page["asleep"]?["mean"]?.numberValue == mean && page["asleep"]?["nights"]?.integerValue == 6)
        #expect(page["asleep"]?["text"]?.stringValue == "7 h 15 min on average over 6 nights (6 h 30 min to 8 h); 1 night with only time in bed has no asleep figure",
                "\(page["asleep"] ?? .null)")
        let shown = (page["nights"]?.arrayValue ?? []).first { $0["night"]?.stringValue == Self.first.adding(days: 2).description }
        #expect(shown?["asleepHours"] == .null && shown?["asleep"]?.stringValue == "in bed only")
        let today = try json(harness.get("/api/v1/pages/today?day=\(last.next)"))
        #expect(today["sleep"]?["week"]?["value"]?.numberValue == mean, "\(today["sleep"] ?? .null)")
        #expect(today["sleep"]?["week"]?["note"]?.stringValue == "asleep on average over 6 of the last 7 nights (1 more with only time in bed, no asleep figure)")
        let wide = try json(harness.get("/api/v1/pages/sleep?range=7D&until=\(last)&width=240"))
        let bins = wide["chart"]?["bins"]?.arrayValue ?? []
        #expect(bins.count == 7 && bins[2]["value"] == .null && bins[2]["text"]?.stringValue == "in bed only, no time asleep recorded")
        #expect(bins.compactMap { $0["value"]?.numberValue }.count == 6)

        // SQL: the export's sleep_nights, averaged as an analyst would.
        let file = harness.directory + "/health.db"
        _ = try SQLExport(context: harness.context, path: file).run()
        // Through `efferent sql`'s own read-only statement.
        let query = try SQLQuery(path: file, sql: "SELECT round(avg(asleep_hours), 3), count(*), count(*) FILTER (WHERE asleep_hours IS NULL) "
                                                 + "FROM sleep_nights WHERE night BETWEEN '\(Self.first)' AND '\(last)'")
        #expect(try query.next() == [.number(mean), .number(7), .number(1)])
    }
}
