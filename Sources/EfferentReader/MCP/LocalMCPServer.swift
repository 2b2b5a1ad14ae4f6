import EfferentCore
import Foundation

/// The local MCP server (`efferent mcp`, §10.3): JSON-RPC 2.0 over stdio, one message a line,
/// answering the same questions as the CLI from the mirror, refreshed at most every five minutes.
public final class LocalMCPServer {
    public static let protocolVersions = ["2025-06-18", "2025-03-26", "2024-11-05"]
    public static let freshFor: TimeInterval = 300

    /// What the server needs from the outside world, so tests can stand in for it.
    public struct World {
        /// Events for answers.
        public var source: () throws -> EventSource
        /// Today in the archive's zone.
        public var today: () -> CalendarDay
        /// Brings the mirror up to date: `full` walks the whole listing. Returns what changed.
        public var refresh: (_ full: Bool) async throws -> JSONValue
        /// The service's own counts, or nil when unreachable.
        public var archive: () async -> ArchiveFacts?
        /// Sends items as one edit (§8); nil when the profile holds no editor key, and then the
        /// write tools are not offered.
        public var write: (([EditItem]) async throws -> JSONValue)?
        /// The edits and the writer's answers (`all`: answered ones too).
        public var edits: ((_ all: Bool) async throws -> JSONValue)?

        public init(source: @escaping () throws -> EventSource, today: @escaping () -> CalendarDay,
                    refresh: @escaping (_ full: Bool) async throws -> JSONValue, archive: @escaping () async -> ArchiveFacts?,
                    write: (([EditItem]) async throws -> JSONValue)? = nil, edits: ((_ all: Bool) async throws -> JSONValue)? = nil) {
            self.source = source
            self.today = today
            self.refresh = refresh
            self.archive = archive
            self.write = write
            self.edits = edits
        }
    }

    let world: World?
    let clock: () -> Date
    private var refreshedAt: Date?
    /// The sentence every request gets when there is no archive to serve (no profile).
    let unavailable: String?
    /// The tool list, made from the names the mirror holds; made again after a refresh.
    private var tools: [JSONValue]?

    public init(world: World, clock: @escaping () -> Date = { Date() }) {
        self.world = world
        self.clock = clock
        unavailable = nil
    }

    /// A server with nothing to serve: every request but `ping` is answered with a JSON-RPC error
    /// carrying `sentence` (a missing profile, and what to run), so the agent's client shows the
    /// reason instead of a connection that closed.
    public init(unavailable sentence: String) {
        world = nil
        clock = { Date() }
        unavailable = sentence
    }

    /// The answer line to one input line; nil for notifications and blank lines.
    nonisolated(nonsending) public func handle(_ line: String) async -> String? {
        guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        guard let message = try? JSONParser.parse(line), message.objectValue != nil else {
            return Self.encode(Self.error(id: .null, code: -32700, message: "the line is not a JSON object"))
        }
        guard let method = message["method"]?.stringValue else {
            return Self.encode(Self.error(id: message["id"] ?? .null, code: -32600, message: "a request needs a method"))
        }
        guard let id = message["id"] else { return nil }
        let params = message["params"]?.objectValue ?? [:]
        if method == "ping" { return Self.encode(Self.result(id: id, .object([:]))) }
        guard let world else {
            return Self.encode(Self.error(id: id, code: -32000, message: unavailable ?? "this server has no archive to serve"))
        }
        switch method {
        case "initialize":
            let asked = params["protocolVersion"]?.stringValue ?? ""
            return Self.encode(Self.result(id: id, .object([
                "protocolVersion": .string(Self.protocolVersions.contains(asked) ? asked : Self.protocolVersions[0]),
                "capabilities": .object(["tools": .object([:]), "resources": .object([:]), "prompts": .object([:])]),
                "serverInfo": .object(["name": .string("efferent"), "version": .string(PackageVersion.text)]),
                "instructions": .string("Start with phone_data_overview: it says which metrics the archive holds, their units and days. "
                                        + "Then ask phone_data_daily, _statistics, _sleep, _workouts (one in detail: _workout), _samples, "
                                        + "_latest, _rings, _state_of_mind or _compare. The resource efferent://guide says how to read the data. "
                                        + "Every answer over days carries coverage: what the days hold of each metric asked for, and where its data is when they hold none."
                                        + (world.write == nil ? "" : " To log meals, water, weight or sleep use phone_data_write; "
                                           + "the owner's writer applies it on its next push, and phone_data_edits shows its answer.")),
            ])))
        case "ping":
            return Self.encode(Self.result(id: id, .object([:])))
        case "resources/list":
            return Self.encode(Self.result(id: id, .object(["resources": .array([.object([
                "uri": .string(MCPGuide.uri), "name": .string("guide"), "title": .string("How to read this health archive"),
                "description": .string("The data's traps: totals against readings, local days, iPhone and Watch counted once, sleep, units, pages, what is left out."),
                "mimeType": .string("text/markdown"),
            ])])])))
        case "resources/templates/list":
            // The one resource is fixed; no resource is named by a template.
            return Self.encode(Self.result(id: id, .object(["resourceTemplates": .array([])])))
        case "prompts/list":
            return Self.encode(Self.result(id: id, MCPPrompts.list))
        case "prompts/get":
            guard let name = params["name"]?.stringValue, let prompt = MCPPrompts.get(name, arguments: params["arguments"]?.objectValue ?? [:],
                                                                                      today: world.today()) else {
                return Self.encode(Self.error(id: id, code: -32602, message: "no such prompt; prompts/list names them"))
            }
            return Self.encode(Self.result(id: id, prompt))
        case "resources/read":
            guard params["uri"]?.stringValue == MCPGuide.uri else {
                return Self.encode(Self.error(id: id, code: -32002, message: "no such resource; resources/list names \(MCPGuide.uri)"))
            }
            return Self.encode(Self.result(id: id, .object(["contents": .array([.object([
                "uri": .string(MCPGuide.uri), "mimeType": .string("text/markdown"), "text": .string(MCPGuide.text),
            ])])])))
        case "tools/list":
            return Self.encode(Self.result(id: id, .object(["tools": .array(toolList(world))])))
        case "tools/call":
            guard let name = params["name"]?.stringValue else {
                return Self.encode(Self.error(id: id, code: -32602, message: "tools/call needs a tool name"))
            }
            // An unknown tool is a protocol error; arguments that do not fit the tool's schema are a
            // tool error (isError), so the agent reads the sentence and asks again (MCP SEP-1303).
            guard let tool = toolList(world).first(where: { $0["name"]?.stringValue == name }), let schema = tool["inputSchema"] else {
                return Self.encode(Self.error(id: id, code: -32602, message: MCPError.unknownTool(name).description))
            }
            let given = params["arguments"] ?? .object([:])
            guard let arguments = given.objectValue else {
                return Self.encode(Self.result(id: id, Self.refusal("the arguments of \(name) must be an object.")))
            }
            if let problem = ToolArgumentCheck.problem(arguments, schema: schema, tool: name) {
                return Self.encode(Self.result(id: id, Self.refusal(problem)))
            }
            let result = await call(name, arguments)
            return Self.encode(Self.result(id: id, result))
        default:
            return Self.encode(Self.error(id: id, code: -32601, message: "\(method.prefix(60)) is not a method this server knows"))
        }
    }

    /// The tools, their name arguments listing what the mirror holds (cached until a refresh).
    func toolList(_ world: World) -> [JSONValue] {
        if let tools { return tools }
        var held = Set<String>(), activities = Set<String>()
        if let source = try? world.source() {
            let resolver = NameResolver(source: source)
            held = (try? resolver.metricsHeld()) ?? []
            activities = (try? resolver.activitiesHeld()) ?? []
        }
        let list = MCPTools.list(numeric: held.subtracting(MetricCatalogue.withoutValues).sorted(), metrics: held.sorted(),
                                 activities: activities.sorted()) + (world.write == nil ? [] : MCPTools.writeTools)
        tools = list
        return list
    }

    /// One tool call, as a result object: compact JSON text, `isError` for refusals.
    nonisolated(nonsending) func call(_ name: String, _ arguments: [String: JSONValue]) async -> JSONValue {
        guard let world else { return Self.refusal(unavailable ?? "") }
        var warning: String?
        do {
            if name == "phone_data_sync" {
                let changed = try await world.refresh(true)
                refreshedAt = clock()
                tools = nil
                return Self.text(changed)
            }
            if name == "phone_data_write", let write = world.write {
                guard let list = arguments["items"]?.arrayValue else { throw MCPError.noItems }
                return Self.text(try await write(try EditAgent.items(json: try JSONValue.array(list).canonicalBytes())))
            }
            if name == "phone_data_edits", let edits = world.edits {
                return Self.text(try await edits(arguments["all"] == .bool(true)))
            }
            if refreshedAt.map({ clock().timeIntervalSince($0) > Self.freshFor }) ?? true {
                do {
                    _ = try await world.refresh(false)
                    refreshedAt = clock()
                    tools = nil
                } catch {
                    warning = "the archive could not be reached, so this answer comes from the mirror as it was (\(error))"
                }
            }
            if MCPDetailTools.names.contains(name) {
                var answer = try MCPDetailTools.answer(name, arguments, source: world.source(), today: world.today())
                if let warning, case var .object(members) = answer {
                    members["warning"] = .string(warning)
                    answer = .object(members)
                }
                return Self.text(answer)
            }
            let request = try MCPTools.request(name, arguments)
            let spelling = MCPTools.spellingNotes(name, arguments)
            // The one rule of every surface (AnswerScope): since alone runs through today, the days
            // are cut to the archive, and a long range of days comes a page at a time with `next`.
            let archive = request.kind == .overview ? await world.archive() : nil
            let (result, scope) = try request.answer(from: world.source(), today: world.today(), archive: archive,
                                                     pageDays: MCPTools.dayWindow)
            return Self.text(bytes: try result.jsonBytes { members in
                scope.annotate(&members)
                if !spelling.isEmpty {
                    let said = spelling.joined(separator: " ")
                    members["note"] = .string(members["note"]?.stringValue.map { $0 + " " + said } ?? said)
                }
                if let warning { members["warning"] = .string(warning) }
            })
        } catch {
            return Self.refusal("\(error)")
        }
    }

    static func refusal(_ sentence: String) -> JSONValue {
        .object(["content": .array([.object(["type": .string("text"), "text": .string(sentence)])]), "isError": .bool(true)])
    }

    static func text(_ value: JSONValue) -> JSONValue {
        result(text: (try? value.canonicalBytes()) ?? Array("{}".utf8), structured: value)
    }

    /// A tool's result: its answer as `structuredContent`, which the tool's `outputSchema`
    /// describes, and as JSON text for clients that read only content (MCP 2025-06-18).
    static func text(bytes: [UInt8]) -> JSONValue {
        result(text: bytes, structured: (try? JSONParser.parse(bytes)) ?? .object([:]))
    }

    private static func result(text bytes: [UInt8], structured: JSONValue) -> JSONValue {
        .object(["content": .array([.object(["type": .string("text"), "text": .string(String(decoding: bytes, as: UTF8.self))])]),
                 "structuredContent": structured, "isError": .bool(false)])
    }

    static func result(id: JSONValue, _ result: JSONValue) -> JSONValue {
        .object(["jsonrpc": .string("2.0"), "id": id, "result": result])
    }

    static func error(id: JSONValue, code: Int, message: String) -> JSONValue {
        .object(["jsonrpc": .string("2.0"), "id": id, "error": .object(["code": .number(Double(code)), "message": .string(message)])])
    }

    static func encode(_ value: JSONValue) -> String {
        (try? value.canonicalBytes()).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
