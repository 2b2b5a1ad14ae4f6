import EfferentCore
@testable import EfferentDashboard
@testable import EfferentReader
import EfferentTestSupport
import Foundation
import Testing

/// Issue 41 item 1: every answer over days carries what the archive holds of its metrics there
/// (`coverage`), from one definition, in the same place on the answer itself (the CLI's JSON),
/// the API and MCP; a span with none of a metric says, in a sentence, where its data stops. The
/// archive here ends in March 2025 and today is later, as for an export whose data stopped long
/// ago: "last week" lies inside the archive's days and reads nothing.
@Suite struct CoverageTests {
    static let first = SleepRuleTests.first
    static let lastSteps = first.adding(days: 7)
    /// Sleep is filed under the evening's day: the last stretch starts on the seventh evening.
    static let lastSleep = first.adding(days: 6)
    static let empty = (since: CalendarDay("2025-04-01")!, until: CalendarDay("2025-04-07")!)

    func mcp(_ harness: DashboardHarness, _ tool: String, _ arguments: String) async throws -> (text: JSONValue, structured: JSONValue?) {
        let context = harness.context
        let server = LocalMCPServer(world: .init(source: { context.source }, today: { context.today }, refresh: { _ in .object([:]) }, archive: { nil }),
                                    clock: { Date() })
        let line = await server.handle(#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"\#(tool)","arguments":\#(arguments)}}"#)
        let result = try JSONParser.parse(line ?? "")["result"]
        #expect(result?["isError"] == .bool(false), "\(tool): \(line ?? "")")
        let text = try JSONParser.parse(try #require(result?["content"]?.arrayValue?.first?["text"]?.stringValue))
        return (text, result?["structuredContent"])
    }

    @Test func aSpanWithoutDataSaysWhereTheDataIsOnEverySurface() async throws {
        let harness = try await DashboardHarness(days: SleepRuleTests.week())
        let span = "since=\(Self.empty.since)&until=\(Self.empty.until)"
        let stepsNote = "no steps between \(Self.empty.since) and \(Self.empty.until); your steps end on \(Self.lastSteps)"
        let sleepNote = "no sleep between \(Self.empty.since) and \(Self.empty.until); your sleep ends on \(Self.lastSleep)"

        // The answer itself, as the CLI gets it: the coverage, and the sentence it says on stderr.
        let request = AnswerRequest(kind: .daily, since: Self.empty.since, until: Self.empty.until, metrics: ["steps"])
        let (_, scope) = try request.answer(from: harness.context.source, today: harness.context.today, pageDays: nil)
        let coverage = try #require(scope.coverage)
        #expect(coverage.lines == [Coverage.Line(metric: "steps", daysWithData: 0, firstDay: nil, lastDay: nil, daysMissing: 7,
                                                 before: Self.lastSteps, after: nil)])
        #expect(scope.said.last == stepsNote + ".")
        let expected = coverage.json

        // The API and MCP: the same member, and the sentence in the answer's note.
        let api = try #require(try harness.get("/api/v1/daily?metric=steps&\(span)").json)
        #expect(api["coverage"] == expected && api["note"]?.stringValue?.contains(stepsNote) == true, "\(api)")
        let daily = try await mcp(harness, "phone_data_daily", #"{"metrics":["steps"],"since":"\#(Self.empty.since)","until":"\#(Self.empty.until)"}"#)
        #expect(daily.text["coverage"] == expected && daily.text["note"]?.stringValue?.contains(stepsNote) == true, "\(daily.text)")
        #expect(daily.structured == daily.text, "structuredContent is the text's object")

        // Every answer over days, not only daily: statistics, samples, sleep, workouts.
        let arguments = #""since":"\#(Self.empty.since)","until":"\#(Self.empty.until)""#
        for (tool, extra, note) in [("phone_data_statistics", #""metric":"steps","#, stepsNote), ("phone_data_samples", #""metric":"steps","#, stepsNote),
                                    ("phone_data_sleep", "", sleepNote)] {
            let answer = try await mcp(harness, tool, "{" + extra + arguments + "}")
            #expect(answer.text["coverage"]?["note"]?.stringValue == note + ".", "\(tool): \(answer.text)")
        }
        let workouts = try await mcp(harness, "phone_data_workouts", "{" + arguments + "}")
        #expect(workouts.text["coverage"]?["note"]?.stringValue == "the archive holds no workouts.", "\(workouts.text)")
        // The tools beyond the answers say it too, keeping their own explanation.
        let rings = try await mcp(harness, "phone_data_rings", "{" + arguments + "}")
        #expect(rings.text["coverage"]?["metrics"]?["activitySummary.activeEnergyBurned"]?["daysWithData"]?.integerValue == 0)
        #expect(rings.text["note"]?.stringValue == "the archive holds no activity rings: rings come from an Apple Watch, through an export or the phone",
                "\(rings.text)")
        let mood = try await mcp(harness, "phone_data_state_of_mind", "{" + arguments + "}")
        #expect(mood.text["note"]?.stringValue?.hasPrefix("the archive holds no State of Mind: ") == true, "\(mood.text)")
        let sleep = try #require(try harness.get("/api/v1/sleep?\(span)").json)
        #expect(sleep["coverage"]?["metrics"]?["sleep"]?["dataBefore"] == .string(Self.lastSleep.description))
        #expect(sleep["note"]?.stringValue?.contains(sleepNote) == true)
    }

    /// A span with data: coverage counts its days and adds no sentence, and the rest of the answer
    /// is byte for byte what it was without coverage.
    @Test func aSpanWithDataCountsItsDaysAndIsOtherwiseUnchanged() async throws {
        let harness = try await DashboardHarness(days: SleepRuleTests.week())
        let until = Self.first.adding(days: 9)
        let body = try harness.get("/api/v1/daily?metric=steps&since=\(Self.first)&until=\(until)").body
        guard case var .object(members) = try JSONParser.parse(body) else { Issue.record("not an object"); return }
        let coverage = members.removeValue(forKey: "coverage")
        #expect(coverage?["metrics"]?["steps"]?["daysWithData"]?.integerValue == 8 && coverage?["metrics"]?["steps"]?["daysMissing"]?.integerValue == 2)
        #expect(coverage?["metrics"]?["steps"]?["lastDay"] == .string(Self.lastSteps.description) && coverage?["note"] == nil && members["note"] == nil)
        let plain = try DailyAnswer(from: harness.context.source, metrics: ["steps"], range: DayRange(since: Self.first, until: until))
        #expect(try JSONValue.object(members).canonicalBytes() == plain.jsonBytes { _ in })
    }
}
