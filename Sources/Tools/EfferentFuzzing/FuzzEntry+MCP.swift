import EfferentCore
import EfferentReader
import EfferentSystem
import Foundation

extension FuzzEntry {
    /// The local MCP server's tools (issue 45): any arguments to any tool, over a small archive
    /// with totals, readings, a workout with its route and sleep, are answered or refused with a
    /// sentence; none traps, and every answer is one JSON-RPC message with the request's id.
    ///
    /// The first byte picks the tool. The rest is the arguments when it parses as a JSON object;
    /// otherwise it becomes the value of one argument the tool takes (the second byte picks it),
    /// as a JSON value when it parses as one and as a string when not.
    public static func mcpArguments(_ bytes: [UInt8]) {
        guard bytes.count >= 2 else { return }
        let tool = MCPFuzzArchive.tools[Int(bytes[0]) % MCPFuzzArchive.tools.count]
        let rest = Array(bytes.dropFirst(2))
        let arguments: JSONValue
        if let parsed = try? JSONParser.parse(rest), parsed.objectValue != nil {
            arguments = parsed
        } else {
            let value = (try? JSONParser.parse(rest)) ?? .string(String(decoding: rest, as: UTF8.self))
            let names = tool.arguments.isEmpty ? ["since"] : tool.arguments
            arguments = .object([names[Int(bytes[1]) % names.count]: value])
        }
        let request: JSONValue = .object(["jsonrpc": .string("2.0"), "id": .number(7), "method": .string("tools/call"),
                                          "params": .object(["name": .string(tool.name), "arguments": arguments])])
        guard let line = try? request.canonicalBytes() else { return }
        let text = String(decoding: line, as: UTF8.self)
        let answer = Blocking.run { await MCPFuzzArchive.server().handle(text) }
        guard case let .success(reply?) = answer, let message = try? JSONParser.parse(reply) else {
            fatalError("a tool call got no JSON-RPC answer")
        }
        guard message["id"] == .number(7), (message["result"] != nil) != (message["error"] != nil) else {
            fatalError("a tool call's answer is not one JSON-RPC response to its id")
        }
    }
}

/// A small archive for the MCP fuzz target: two days with steps, heart rate, a run with its
/// route and statistics, a night's sleep and a State of Mind, in a zone with an offset.
enum MCPFuzzArchive {
    struct Tool {
        let name: String
        let arguments: [String]
    }

    static let tools: [Tool] = [
        Tool(name: "phone_data_overview", arguments: ["since", "until"]),
        Tool(name: "phone_data_daily", arguments: ["since", "until", "metrics"]),
        Tool(name: "phone_data_statistics", arguments: ["since", "until", "metric", "group_by"]),
        Tool(name: "phone_data_sleep", arguments: ["since", "until"]),
        Tool(name: "phone_data_workouts", arguments: ["since", "until", "activity", "offset"]),
        Tool(name: "phone_data_samples", arguments: ["since", "until", "metric", "offset", "limit"]),
        Tool(name: "phone_data_latest", arguments: ["metrics"]),
        Tool(name: "phone_data_rings", arguments: ["since", "until"]),
        Tool(name: "phone_data_state_of_mind", arguments: ["since", "until"]),
        Tool(name: "phone_data_workout", arguments: ["start"]),
        Tool(name: "phone_data_compare", arguments: ["metric", "activity", "first", "second"]),
    ]

    static let today = CalendarDay(year: 2025, month: 6, day: 2)!

    static let events: [ArchiveEvent] = {
        let zone = "Europe/Berlin"
        var list = [ArchiveEvent]()
        func add(_ day: CalendarDay, _ id: String, _ event: DayEvent?) {
            if let event { list.append(ArchiveEvent(day: day, timeZone: zone, id: id, event: event)) }
        }
        for day in [today.previous, today] {
            let midnight = day.startUnixSeconds - 7200
            add(day, "agg:steps:\(day)", try? DayEvent(kind: .total, metric: "steps", bucket: .day, unit: "count",
                                                       start: midnight, end: midnight + 86_400, value: 8_421))
            add(day, "agg:activeEnergy:\(day)", try? DayEvent(kind: .total, metric: "activeEnergy", bucket: .day, unit: "kcal",
                                                              start: midnight, end: midnight + 86_400, value: 512.5))
            let run = midnight + 7 * 3600
            add(day, "hk:workout:\(run)", try? DayEvent(kind: .record, metric: "workout", source: "Watch", start: run, end: run + 1800,
                                                         activity: "37", duration: 1800))
            add(day, "hk:workout.distance:\(run)", try? DayEvent(kind: .record, metric: "workout.distance.sum", unit: "m", source: "Watch",
                                                                  start: run, end: run + 1800, value: 5_012))
            for minute in stride(from: 0, to: 30, by: 3) {
                let at = run + Int64(minute * 60)
                add(day, "hk:heartRate:\(at)", try? DayEvent(kind: .record, metric: "heartRate", unit: "count/min", source: "Watch",
                                                              start: at, end: at, value: 120 + Double(minute)))
                add(day, "hk:lat:\(at)", try? DayEvent(kind: .record, metric: "workoutRoute.latitude", unit: "deg", source: "Watch",
                                                        start: at, end: at, value: 52.52 + Double(minute) / 1000))
                add(day, "hk:lon:\(at)", try? DayEvent(kind: .record, metric: "workoutRoute.longitude", unit: "deg", source: "Watch",
                                                        start: at, end: at, value: 13.40 + Double(minute) / 1000))
            }
            add(day, "hk:sleep:\(midnight)", try? DayEvent(kind: .record, metric: "sleep", source: "Watch", start: midnight - 3 * 3600,
                                                            end: midnight + 4 * 3600, stage: "asleepCore"))
            add(day, "hk:bodyMass:\(midnight)", try? DayEvent(kind: .record, metric: "bodyMass", unit: "kg", source: "Scale",
                                                               start: midnight + 8 * 3600, end: midnight + 8 * 3600, value: 72.4))
            add(day, "hk:som:\(midnight)", try? DayEvent(kind: .record, metric: "stateOfMind.valence", source: "iPhone",
                                                          start: midnight + 9 * 3600, end: midnight + 9 * 3600, value: 0.4))
        }
        return list
    }()

    /// A fresh server over the archive: the mirror is never refreshed (nothing to reach).
    static func server() -> LocalMCPServer {
        let source = EventList(events)
        return LocalMCPServer(world: LocalMCPServer.World(source: { source }, today: { today }, refresh: { _ in .object([:]) },
                                                          archive: { nil }),
                              clock: { Date(timeIntervalSince1970: 1_748_822_400) })
    }
}
