import EfferentCore
import EfferentHTTP
import Foundation

/// The keyless remote MCP endpoint `POST /mcp/b/<bucket>` (§6): JSON-RPC 2.0 over streamable HTTP,
/// answered as plain JSON. It hands out only what the service holds: sealed bytes and sizes.
extension ArchiveHandlers {
    static let mcpProtocolVersions = ["2025-06-18", "2025-03-26", "2024-11-05"]
    static let mcpInstructions = "This endpoint holds only sealed days and answers no health question itself. Call setup_guide: it hands "
        + "out a reader script for an agent with a shell, and says how to run `efferent mcp` locally, which answers everything. "
        + "Keep the reading key local: it opens every day of this archive, and this service never sees it."

    /// The tools that hand out days or edits: once a read key is registered reads must be signed,
    /// so these are not offered (and refuse with `isError` if called anyway).
    static let keylessTools: Set<String> = ["list_sealed_days", "get_sealed_day", "list_edits"]

    func mcp(_ id: BucketID, _ request: HTTPRequest) throws -> HTTPResponse {
        guard let message = try? JSONParser.parse(request.body) else {
            return Self.json(200, Self.rpcError(id: .null, code: -32700, message: "the body is not JSON"))
        }
        if case let .array(batch) = message {
            let answers = try batch.compactMap { try mcpAnswer(id, $0, request) }
            return answers.isEmpty ? HTTPResponse(status: 202) : Self.json(200, .array(answers))
        }
        guard let answer = try mcpAnswer(id, message, request) else { return HTTPResponse(status: 202) }
        return Self.json(200, answer)
    }

    /// The answer to one JSON-RPC message; `nil` for a notification.
    func mcpAnswer(_ bucket: BucketID, _ message: JSONValue, _ request: HTTPRequest) throws -> JSONValue? {
        guard let object = message.objectValue, object["jsonrpc"]?.stringValue == "2.0",
              let method = object["method"]?.stringValue else {
            return Self.rpcError(id: message["id"] ?? .null, code: -32600, message: "not a JSON-RPC 2.0 request")
        }
        guard let rpcID = object["id"] else { return nil }
        let params = object["params"]?.objectValue ?? [:]
        switch method {
        case "initialize":
            let asked = params["protocolVersion"]?.stringValue ?? ""
            let version = Self.mcpProtocolVersions.contains(asked) ? asked : Self.mcpProtocolVersions[0]
            return Self.rpcResult(id: rpcID, .object([
                "protocolVersion": .string(version),
                "capabilities": .object(["tools": .object([:])]),
                "serverInfo": .object(["name": .string("efferent-sealed-archive"), "version": .string("1.0.0")]),
                "instructions": .string(Self.mcpInstructions),
            ]))
        case "ping":
            return Self.rpcResult(id: rpcID, .object([:]))
        case "tools/list":
            let closed = try store.bucket(bucket)?.reader != nil
            let offered = Self.remoteTools.filter { !closed || !Self.keylessTools.contains($0["name"]?.stringValue ?? "") }
            return Self.rpcResult(id: rpcID, .object(["tools": .array(offered)]))
        case "tools/call":
            guard let name = params["name"]?.stringValue else {
                return Self.rpcError(id: rpcID, code: -32602, message: "tools/call needs a tool name")
            }
            // As the local server: an unknown tool is a protocol error, arguments that do not fit
            // the schema an isError sentence (MCP SEP-1303).
            guard let schema = Self.remoteTools.first(where: { $0["name"]?.stringValue == name })?["inputSchema"] else {
                return Self.rpcError(id: rpcID, code: -32602, message: "\(name.prefix(60)) is not a tool of this server; tools/list names them")
            }
            let arguments = params["arguments"]?.objectValue ?? [:]
            if let problem = ToolArgumentCheck.problem(arguments, schema: schema, tool: name) {
                return Self.rpcResult(id: rpcID, Self.toolResult(text: problem, isError: true))
            }
            do {
                return Self.rpcResult(id: rpcID, try callTool(name, arguments, bucket: bucket, request: request))
            } catch let error as ServiceError {
                return Self.rpcResult(id: rpcID, Self.toolResult(text: error.message, isError: true))
            }
        default:
            return Self.rpcError(id: rpcID, code: -32601, message: "\(method.prefix(60)) is not a method this server knows")
        }
    }

    func callTool(_ name: String, _ arguments: [String: JSONValue], bucket: BucketID, request: HTTPRequest) throws -> JSONValue {
        let base = configuration.publicURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
            ?? "http://\(request.header("host") ?? "127.0.0.1")"
        let readKey = try store.bucket(bucket)?.reader != nil
        let closed = "This archive answers only reads signed with its read key, so this tool no longer hands out days or edits. "
            + "Read it locally with the handoff instead: `efferent connect --handoff handoff.txt` then `efferent mcp` (or `efferent sync` "
            + "and `efferent daily`), or `python efferent_reader.py --handoff handoff.txt --list` (see setup_guide)."
        switch name {
        case "setup_guide":
            // The guide, and the independent Python reader itself as an embedded resource (A.7).
            return .object(["content": .array([
                .object(["type": .string("text"), "text": .string(Self.setupGuide(base: base, bucket: bucket))]),
                .object(["type": .string("resource"), "resource": .object([
                    "uri": .string("\(base)/mcp/b/\(bucket)/\(ReaderScript.fileName)"), "mimeType": .string("text/x-python"),
                    "text": .string(ReaderScript.text)])]),
            ]), "isError": .bool(false)])
        case "archive_status":
            return Self.toolResult(json: statsValue(try store.stats(bucket)))
        case "list_sealed_days":
            if readKey { return Self.toolResult(text: closed, isError: true) }
            var query = [String]()
            for key in ["from", "to", "after"] {
                if let value = arguments[key]?.stringValue {
                    guard CalendarDay(value) != nil else { throw ServiceError(400, "\(key) must be a real date written YYYY-MM-DD") }
                    query.append("\(key)=\(value)")
                }
            }
            if let limit = arguments["limit"]?.integerValue { query.append("limit=\(limit)") }
            let inner = HTTPRequest(method: "GET", target: "/b/\(bucket)/days?" + query.joined(separator: "&"))
            let answer = try listing(bucket, inner)
            return Self.toolResult(text: String(decoding: answer.body, as: UTF8.self))
        case "get_sealed_day":
            if readKey { return Self.toolResult(text: closed, isError: true) }
            guard let text = arguments["day"]?.stringValue, let day = CalendarDay(text) else {
                throw ServiceError(400, "day must be a real date written YYYY-MM-DD")
            }
            guard let stored = try store.day(bucket, day) else { throw ServiceError.noSuchDay }
            return .object(["content": .array([.object([
                "type": .string("resource_link"), "uri": .string("\(base)/b/\(bucket)/d/\(day)"),
                "name": .string("\(day).sealed"), "mimeType": .string("application/octet-stream"),
                "description": .string("The sealed day \(day), \(stored.sealed.count) bytes; open it with the reading key."),
            ])])])
        case "list_edits":
            if readKey { return Self.toolResult(text: closed, isError: true) }
            var query = [String]()
            if let after = arguments["after"]?.stringValue { query.append("after=\(after)") }
            if let limit = arguments["limit"]?.integerValue { query.append("limit=\(limit)") }
            if let status = arguments["status"]?.stringValue { query.append("status=\(status)") }
            let inner = HTTPRequest(method: "GET", target: "/b/\(bucket)/edits?" + query.joined(separator: "&"))
            let answer = try listEdits(bucket, inner)
            return Self.toolResult(text: String(decoding: answer.body, as: UTF8.self))
        default:
            throw ServiceError(404, "\(name.prefix(60)) is not a tool of this server; tools/list names them")
        }
    }

    static func setupGuide(base: String, bucket: BucketID) -> String {
        """
        Efferent sealed archive for bucket \(bucket) at \(base).

        Every day here is sealed to the owner's reading key (HPKE: X25519, HKDF-SHA256, ChaCha20-Poly1305); this service \
        holds only sealed bytes, their sizes and upload times. To read, you need the handoff text the owner gave you \
        (MCP URL, reading key, and optionally an editor key). Keep the reading key local: never send it to any service.

        The best way to read: with the efferent command on your own machine, `efferent connect --handoff handoff.txt`, then \
        `efferent mcp` as a local MCP server for your agent (or `efferent sync`, `efferent daily`, `efferent sleep`): it answers \
        every question offline. This endpoint itself only hands out sealed days.

        An agent with a shell and no efferent command: read with the Python reader attached to this answer: save it as efferent_reader.py, `pip install cryptography` \
        (its only dependency), save the handoff text as handoff.txt with `chmod 600 handoff.txt`, then \
        `python efferent_reader.py --self-test`, `--handoff handoff.txt --list`, `--day YYYY-MM-DD`, \
        `--from D --to D` (NDJSON events, one per line) or `--write items.json` to ask the owner's writer to add entries.

        Wire summary: GET \(base)/b/\(bucket)/days lists days; GET \(base)/b/\(bucket)/d?from=&to= returns a frame \
        (10-byte day, 4-byte big-endian length, sealed bytes, repeated); each sealed day is 0x02 || enc(32) || ciphertext, \
        AAD "efferent/v1\\n\(bucket)\\n<day>", info "efferent/v2 hpke", plaintext raw-deflated JSON {"series":[...],"v":2}. \
        Once a read key is registered every read must be signed with the Ed25519 key derived from the reading key \
        (HKDF-SHA256, info "efferent/v1 read") over "efferent/v1 read\\n<bucket>\\n<path?query>\\n<unix seconds>".
        """
    }

    static let remoteTools: [JSONValue] = {
        func tool(_ name: String, _ description: String, _ properties: [String: JSONValue] = [:], required: [String] = []) -> JSONValue {
            var schema: [String: JSONValue] = ["type": .string("object"), "properties": .object(properties)]
            if !required.isEmpty { schema["required"] = .array(required.map { .string($0) }) }
            // Every remote tool only reads what the service holds.
            let annotations: JSONValue = .object(["readOnlyHint": .bool(true), "destructiveHint": .bool(false),
                                                  "idempotentHint": .bool(true), "openWorldHint": .bool(false)])
            return .object(["name": .string(name), "description": .string(description), "inputSchema": .object(schema),
                            "annotations": annotations])
        }
        let day: JSONValue = .object(["type": .string("string"), "description": .string("YYYY-MM-DD")])
        return [
            tool("setup_guide", "How to read this sealed archive: efferent mcp locally, or a reader script for an agent with a shell; call this first."),
            tool("archive_status", "How many sealed days the archive holds, their total size and first and last day."),
            tool("list_sealed_days", "Sealed days with their sizes and upload times (no contents).",
                 ["from": day, "to": day, "after": day,
                  "limit": .object(["type": .string("integer"), "minimum": .number(1), "maximum": .number(1000)])]),
            tool("get_sealed_day", "A link to one sealed day's bytes; open it locally with the reading key.", ["day": day], required: ["day"]),
            tool("list_edits", "Edits waiting for (or answered by) the owner's writer.",
                 ["after": .object(["type": .string("string")]),
                  "limit": .object(["type": .string("integer"), "minimum": .number(1), "maximum": .number(200)]),
                  "status": .object(["type": .string("string"), "enum": .array([.string("pending"), .string("all")])])]),
        ]
    }()

    static func toolResult(text: String, isError: Bool = false) -> JSONValue {
        .object(["content": .array([.object(["type": .string("text"), "text": .string(text)])]), "isError": .bool(isError)])
    }

    static func toolResult(json: JSONValue) -> JSONValue {
        let text = (try? json.canonicalBytes()).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return toolResult(text: text)
    }

    static func rpcResult(id: JSONValue, _ result: JSONValue) -> JSONValue {
        .object(["jsonrpc": .string("2.0"), "id": id, "result": result])
    }

    static func rpcError(id: JSONValue, code: Int, message: String) -> JSONValue {
        .object(["jsonrpc": .string("2.0"), "id": id, "error": .object(["code": .number(Double(code)), "message": .string(message)])])
    }
}
