import EfferentCore
import EfferentSystem
import Foundation
import Testing
@testable import EfferentReader

@Suite struct LocalMCPServerTests {
    final class Calls: Sendable {
        private struct State {
            var refreshes: [Bool] = []
            var fail = false
            var now = Date(timeIntervalSince1970: 1_717_243_200)
        }
        private let state = Mutex(State())
        var refreshes: [Bool] {
            get { state.withLock { $0.refreshes } }
            set { state.withLock { $0.refreshes = newValue } }
        }
        var fail: Bool {
            get { state.withLock { $0.fail } }
            set { state.withLock { $0.fail = newValue } }
        }
        var now: Date {
            get { state.withLock { $0.now } }
            set { state.withLock { $0.now = newValue } }
        }
    }

    static func server(_ calls: Calls) throws -> LocalMCPServer {
        let day = CalendarDay("2024-06-01")!
        let steps = try DayEvent(kind: .total, metric: "steps", bucket: .day, unit: "count", start: day.startUnixSeconds,
                                 end: day.startUnixSeconds + 86_400, value: 4321)
        // A type this reader's catalogue does not name: the archive holding it is enough.
        let newer = try DayEvent(kind: .record, metric: "someNewerType", unit: "count", source: "Watch", start: day.startUnixSeconds,
                                 end: day.startUnixSeconds, value: 1)
        let source = EventList([ArchiveEvent(day: day, timeZone: nil, id: "agg:steps:2024-06-01T00:00:00Z:d", event: steps),
                                ArchiveEvent(day: day, timeZone: nil, id: "hk:someNewerType:2024-06-01T00:00:00Z", event: newer)])
        let world = LocalMCPServer.World(
            source: { source }, today: { day },
            refresh: { full in
                calls.refreshes.append(full)
                if calls.fail { throw CocoaError(.fileNoSuchFile) }
                return .object(["copied": .number(0)])
            },
            archive: { nil })
        return LocalMCPServer(world: world, clock: { calls.now })
    }

    func json(_ line: String?) throws -> JSONValue { try JSONParser.parse(try #require(line)) }

    @Test func handshakeListAndErrors() async throws {
        let server = try Self.server(Calls())
        let hello = try json(await server.handle(#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05"}}"#))
        #expect(hello["result"]?["protocolVersion"] == .string("2024-11-05"))
        #expect(hello["result"]?["serverInfo"]?["name"] == .string("efferent"))
        let unknownVersion = try json(await server.handle(#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"1999"}}"#))
        #expect(unknownVersion["result"]?["protocolVersion"] == .string("2025-06-18"))
        #expect(await server.handle(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#) == nil)
        let tools = try json(await server.handle(#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#))
        #expect(tools["result"]?["tools"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == [
            "phone_data_overview", "phone_data_daily", "phone_data_statistics", "phone_data_sleep", "phone_data_workouts",
            "phone_data_samples", "phone_data_latest", "phone_data_rings", "phone_data_state_of_mind", "phone_data_workout",
            "phone_data_compare", "phone_data_sync"])
        // Every metric argument lists the names the archive holds (a newer type's too), not the
        // hundreds the protocol defines; every tool says what it does to the world.
        let samples = tools["result"]?["tools"]?.arrayValue?.first { $0["name"] == .string("phone_data_samples") }
        let names = samples?["inputSchema"]?["properties"]?["metric"]?["enum"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(names == ["someNewerType", "steps"])
        let daily = tools["result"]?["tools"]?.arrayValue?.first { $0["name"] == .string("phone_data_daily") }
        #expect(daily?["inputSchema"]?["properties"]?["metrics"]?["items"]?["enum"]?.arrayValue?.count == names.count)
        #expect(daily?["annotations"]?["readOnlyHint"] == .bool(true) && daily?["annotations"]?["destructiveHint"] == .bool(false))
        for tool in tools["result"]?["tools"]?.arrayValue ?? [] { #expect(tool["annotations"]?["idempotentHint"] != nil) }
        #expect(try json(await server.handle("{oops"))["error"]?["code"]?.integerValue == -32700)
        #expect(try json(await server.handle(#"{"jsonrpc":"2.0","id":4,"method":"completion/complete"}"#))["error"]?["code"]?.integerValue == -32601)
        // The guide is the one resource; another address is refused.
        let resources = try json(await server.handle(#"{"jsonrpc":"2.0","id":5,"method":"resources/list"}"#))
        #expect(resources["result"]?["resources"]?.arrayValue?.compactMap { $0["uri"]?.stringValue } == ["efferent://guide"])
        let guide = try json(await server.handle(#"{"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"efferent://guide"}}"#))
        #expect(guide["result"]?["contents"]?.arrayValue?.first?["text"]?.stringValue?.contains("## Totals and readings") == true)
        #expect(try json(await server.handle(#"{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"efferent://x"}}"#))["error"] != nil)
    }

    /// Issue 41 item 4: the package's version; every capability advertised is answered (resource
    /// templates: none); prompts for the questions people ask, each naming its days and tools;
    /// every tool declares an `outputSchema` and its answer comes as `structuredContent` fitting it.
    @Test func versionPromptsTemplatesAndStructuredOutput() async throws {
        let server = try Self.server(Calls())
        let hello = try json(await server.handle(#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}"#))
        #expect(hello["result"]?["serverInfo"]?["version"] == .string(PackageVersion.text) && PackageVersion.text == "0.1.0")
        let capabilities = hello["result"]?["capabilities"]?.objectValue ?? [:]
        #expect(Set(capabilities.keys) == ["tools", "resources", "prompts"])
        let templates = try json(await server.handle(#"{"jsonrpc":"2.0","id":2,"method":"resources/templates/list"}"#))
        #expect(templates["result"]?["resourceTemplates"] == .array([]), "\(templates)")

        let prompts = try json(await server.handle(#"{"jsonrpc":"2.0","id":3,"method":"prompts/list"}"#))["result"]?["prompts"]?.arrayValue ?? []
        #expect(prompts.compactMap { $0["name"]?.stringValue } == ["steps_last_week", "compare_runs", "rings_yesterday", "sleep_last_week", "weight_trend"])
        // 2024-06-01 was a Saturday: last week is Monday 2024-05-20 to Sunday 2024-05-26.
        let steps = try json(await server.handle(#"{"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"steps_last_week"}}"#))
        let text = steps["result"]?["messages"]?.arrayValue?.first?["content"]?["text"]?.stringValue ?? ""
        #expect(text.contains("phone_data_daily") && text.contains("since 2024-05-20 and until 2024-05-26"), "\(text)")
        let runs = try json(await server.handle(#"{"jsonrpc":"2.0","id":5,"method":"prompts/get","params":{"name":"compare_runs","arguments":{"activity":"cycling"}}}"#))
        let compare = runs["result"]?["messages"]?.arrayValue?.first?["content"]?["text"]?.stringValue ?? ""
        #expect(compare.contains("phone_data_compare") && compare.contains("activity \"cycling\"") && compare.contains("first {since 2024-05-01, until 2024-05-31}"),
                "\(compare)")
        #expect(try json(await server.handle(#"{"jsonrpc":"2.0","id":6,"method":"prompts/get","params":{"name":"nope"}}"#))["error"]?["code"]?.integerValue == -32602)

        let tools = try json(await server.handle(#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#))["result"]?["tools"]?.arrayValue ?? []
        for tool in tools { #expect(tool["outputSchema"]?["type"] == .string("object"), "\(tool["name"] ?? .null)") }
        let calls: [(String, String)] = [("phone_data_overview", "{}"), ("phone_data_daily", #"{"metrics":["steps"]}"#),
                                         ("phone_data_statistics", #"{"metric":"steps","groupBy":"week"}"#), ("phone_data_sleep", "{}"),
                                         ("phone_data_workouts", "{}"), ("phone_data_samples", #"{"metric":"steps"}"#), ("phone_data_latest", "{}"),
                                         ("phone_data_rings", "{}"), ("phone_data_state_of_mind", "{}"),
                                         ("phone_data_compare", #"{"metric":"steps","first":{"since":"2024-05-01","until":"2024-05-31"},"second":{"since":"2024-06-01","until":"2024-06-01"}}"#),
                                         ("phone_data_sync", "{}")]
        for (name, arguments) in calls {
            let result = try json(await server.handle(#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"\#(name)","arguments":\#(arguments)}}"#))["result"]
            let schema = tools.first { $0["name"] == .string(name) }?["outputSchema"]
            let structured = result?["structuredContent"]?.objectValue
            #expect(result?["isError"] == .bool(false) && structured != nil, "\(name): \(result ?? .null)")
            #expect(try JSONParser.parse(result?["content"]?.arrayValue?.first?["text"]?.stringValue ?? "") == result?["structuredContent"], "\(name)")
            for required in schema?["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] {
                #expect(structured?[required] != nil, "\(name) lacks \(required), which its outputSchema requires")
            }
        }
        // One spelling (groupBy, as the API's); MCP's older group_by is taken, and said.
        let older = try json(await server.handle(#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"phone_data_statistics","arguments":{"metric":"steps","group_by":"week"}}}"#))
        #expect(older["result"]?["structuredContent"]?["groupBy"] == .string("week"))
        #expect(older["result"]?["structuredContent"]?["note"]?.stringValue?.hasSuffix("group_by is read as groupBy, the spelling the API and MCP share.") == true)
    }

    @Test func toolsAnswerCompactJSONAndRefreshAtMostEveryFiveMinutes() async throws {
        let calls = Calls()
        let server = try Self.server(calls)
        let call = #"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"phone_data_daily","arguments":{"metrics":["steps"],"since":"2024-06-01","until":"2024-06-01"}}}"#
        let answer = try json(await server.handle(call))
        let text = try #require(answer["result"]?["content"]?.arrayValue?.first?["text"]?.stringValue)
        #expect(!text.contains(" ") && !text.contains("\n"), "compact")
        #expect(try JSONParser.parse(text)["rows"] == .array([.array([.string("2024-06-01"), .number(4321)])]))
        _ = await server.handle(call)
        #expect(calls.refreshes == [false], "one refresh within five minutes")
        calls.now = calls.now.addingTimeInterval(301)
        _ = await server.handle(call)
        #expect(calls.refreshes == [false, false])
        _ = await server.handle(#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"phone_data_sync"}}"#)
        #expect(calls.refreshes == [false, false, true], "sync always walks the whole listing")
    }

    @Test func anUnreachableArchiveIsAWarningAndABadArgumentAnError() async throws {
        let calls = Calls()
        calls.fail = true
        let server = try Self.server(calls)
        let answer = try json(await server.handle(#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"phone_data_daily","arguments":{"since":"2024-06-01","until":"2024-06-01"}}}"#))
        let text = try #require(answer["result"]?["content"]?.arrayValue?.first?["text"]?.stringValue)
        #expect(try JSONParser.parse(text)["warning"]?.stringValue?.contains("could not be reached") == true)
        let refused = try json(await server.handle(#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"phone_data_daily","arguments":{"metrics":["sleep"]}}}"#))
        #expect(refused["result"]?["isError"] == .bool(true))
        let badDay = try json(await server.handle(#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"phone_data_sleep","arguments":{"since":"June"}}}"#))
        #expect(badDay["result"]?["isError"] == .bool(true))
    }

    /// Issue 45: an instant outside years 0001…9999 (`Int64.min` trapped the reader) is refused
    /// with the tool's sentence, as Unix seconds and as text alike.
    @Test func aWorkoutStartOutsideTheCalendarIsRefusedNotTrappedOn() async throws {
        let server = try Self.server(Calls())
        for start in ["-9223372036854775808", "9223372036854775807", "-62135596801", "253402300800", "99999-01-01T00:00:00Z"] {
            let answer = try json(await server.handle(#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"phone_data_workout","arguments":{"start":"\#(start)"}}}"#))
            #expect(answer["result"]?["isError"] == .bool(true), "\(start)")
            let text = answer["result"]?["content"]?.arrayValue?.first?["text"]?.stringValue ?? ""
            #expect(text.hasPrefix("start must be the workout's start"), "\(start): \(text)")
        }
        // Inside the calendar, an instant with no workout is its own sentence.
        let none = try json(await server.handle(#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"phone_data_workout","arguments":{"start":"-62135596800"}}}"#))
        #expect(none["result"]?["content"]?.arrayValue?.first?["text"]?.stringValue?.hasPrefix("no workout starts at 0001-01-01T00:00:00Z") == true)
    }

    /// A workout whose own statistics carry no heart rate (older exports, the phone) takes its
    /// average and maximum from the readings during it, and says so (issue 41: 112 readings beside
    /// a null average and maximum read as a fault).
    @Test func aWorkoutWithoutItsOwnHeartRateTakesItFromTheReadingsDuringIt() async throws {
        let day = CalendarDay("2024-06-01")!
        let start = day.startUnixSeconds + 10 * 3600
        var events = [ArchiveEvent(day: day, timeZone: nil, id: "hk:workout:1", event: try DayEvent(kind: .record, metric: "workout", source: "Watch",
                                                                                                      start: start, end: start + 1800, activity: "37", duration: 1800))]
        for (offset, bpm) in [(60, 120.0), (600, 150.0), (1200, 135.0), (2400, 90.0)] {
            events.append(ArchiveEvent(day: day, timeZone: nil, id: "hk:heartRate:\(offset)",
                                       event: try DayEvent(kind: .record, metric: "heartRate", unit: "count/min", source: "Watch",
                                                           start: start + Int64(offset), end: start + Int64(offset), value: bpm)))
        }
        let source = EventList(events)
        let server = LocalMCPServer(world: .init(source: { source }, today: { day }, refresh: { _ in .object([:]) }, archive: { nil }), clock: { Date() })
        let answer = try json(await server.handle(#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"phone_data_workout","arguments":{"start":"\#(start)"}}}"#))
        let workout = try #require(answer["result"]?["structuredContent"])
        #expect(workout["heartRate"]?["readings"]?.integerValue == 3, "the reading after the workout is not its own")
        #expect(workout["averageHeartRate"]?.numberValue == 135 && workout["maximumHeartRate"]?.numberValue == 150, "\(workout)")
        #expect(workout["heartRateFrom"]?.stringValue == "the 3 heart-rate readings during the workout")
    }

    /// `since` alone runs through today, over MCP as everywhere (it answered 90 days in silence):
    /// two years of days come 400 at a time, and the page names where the rest starts and ends.
    @Test func sinceAloneRunsThroughTodayAPageAtATime() async throws {
        let first = CalendarDay("2023-01-01")!, today = CalendarDay("2024-12-31")!
        var events = [ArchiveEvent]()
        var day = first
        while day <= today {
            let steps = try DayEvent(kind: .total, metric: "steps", bucket: .day, unit: "count", start: day.startUnixSeconds,
                                     end: day.startUnixSeconds + 86_400, value: 1000)
            events.append(ArchiveEvent(day: day, timeZone: nil, id: "agg:steps:\(day)T00:00:00Z:d", event: steps))
            day = day.next
        }
        let source = EventList(events)
        let world = LocalMCPServer.World(source: { source }, today: { today }, refresh: { _ in .object([:]) }, archive: { nil })
        let server = LocalMCPServer(world: world, clock: { Date(timeIntervalSince1970: 1_735_603_200) })
        let answer = try json(await server.handle(#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"phone_data_daily","arguments":{"metrics":["steps"],"since":"2023-01-01"}}}"#))
        let page = try JSONParser.parse(try #require(answer["result"]?["content"]?.arrayValue?.first?["text"]?.stringValue))
        #expect(page["rows"]?.arrayValue?.count == 400)
        #expect(page["next"] == .object(["since": .string("2024-02-05"), "until": .string("2024-12-31")]))
        #expect(page["note"]?.stringValue?.contains("ask again with since 2024-02-05 and until 2024-12-31") == true)
    }
}
