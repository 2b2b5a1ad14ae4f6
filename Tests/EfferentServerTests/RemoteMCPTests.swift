import EfferentHTTP
import EfferentCore
@testable import EfferentServer
import Foundation
import Testing

/// The keyless remote MCP endpoint (§6): JSON-RPC over POST.
@Suite struct RemoteMCPTests {
    func call(_ service: TestService, _ bucket: BucketID, _ body: String) async throws -> HTTPResponse {
        try await service.send(HTTPRequest(method: "POST", target: "/mcp/b/\(bucket)",
                                           headers: ["content-type": "application/json", "accept": "application/json, text/event-stream"],
                                           body: Array(body.utf8)))
    }

    func toolText(_ response: HTTPResponse) -> String? {
        response.json?["result"]?["content"]?.arrayValue?.first?["text"]?.stringValue
    }

    @Test(arguments: ServiceKind.allCases)
    func handshakeToolsAndClosingByReadKey(_ kind: ServiceKind) async throws {
        let (service, writer, _) = try await ReadTests.archive(kind, count: 5)
        let b = writer.bucket
        let hello = try await call(service, b, #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}"#)
        #expect(hello.json?["result"]?["protocolVersion"] == .string("2025-03-26"))
        #expect(hello.json?["result"]?["serverInfo"]?["name"] == .string("efferent-sealed-archive"))
        let note = try await call(service, b, #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        #expect(note.status == 202 && note.body.isEmpty)
        let tools = try await call(service, b, #"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#)
        let names = tools.json?["result"]?["tools"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
        #expect(names == ["setup_guide", "archive_status", "list_sealed_days", "get_sealed_day", "list_edits"])

        let status = try await call(service, b, #"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"archive_status"}}"#)
        #expect(try JSONParser.parse(toolText(status) ?? "")["days"]?.integerValue == 5)
        let listed = try await call(service, b, #"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"list_sealed_days","arguments":{"from":"2020-01-02","limit":2}}}"#)
        #expect(try JSONParser.parse(toolText(listed) ?? "")["days"]?.arrayValue?.count == 2)
        let link = try await call(service, b, #"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_sealed_day","arguments":{"day":"2020-01-03"}}}"#)
        let uri = try #require(link.json?["result"]?["content"]?.arrayValue?.first?["uri"]?.stringValue)
        #expect(uri.hasSuffix("/b/\(b)/d/2020-01-03"))
        let guide = try await call(service, b, #"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"setup_guide"}}"#)
        #expect(toolText(guide)?.contains("Keep the reading key local") == true)
        #expect(toolText(guide)?.contains("`efferent mcp` as a local MCP server") == true)
        let attached = guide.json?["result"]?["content"]?.arrayValue?.last?["resource"]
        #expect(attached?["mimeType"] == .string("text/x-python"))
        let script = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("interop/efferent_reader.py"), encoding: .utf8)
        #expect(attached?["text"]?.stringValue == script, "setup_guide hands out interop/efferent_reader.py as it is; run scripts/embed-reader")

        let badTool = try await call(service, b, #"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"get_sealed_day","arguments":{"day":"2020-13-01"}}}"#)
        #expect(badTool.json?["result"]?["isError"] == .bool(true))

        let annotated = tools.json?["result"]?["tools"]?.arrayValue ?? []
        #expect(annotated.allSatisfy { $0["annotations"]?["readOnlyHint"] == .bool(true) && $0["annotations"]?["destructiveHint"] == .bool(false) })
        let mistyped = try await call(service, b, #"{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"list_sealed_days","arguments":{"form":"2020-01-02"}}}"#)
        #expect(mistyped.json?["result"]?["isError"] == .bool(true) && toolText(mistyped)?.contains("the nearest is from") == true, "\(toolText(mistyped) ?? "")")

        _ = try await service.send(writer.registerReader())
        // Once reads need the read key, the tools that would refuse are not offered, and refuse as errors.
        let reduced = try await call(service, b, #"{"jsonrpc":"2.0","id":12,"method":"tools/list"}"#)
        #expect(reduced.json?["result"]?["tools"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["setup_guide", "archive_status"])
        let closed = try await call(service, b, #"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list_sealed_days"}}"#)
        #expect(closed.json?["result"]?["isError"] == .bool(true))
        #expect(toolText(closed)?.contains("efferent mcp") == true)
        #expect(toolText(closed)?.contains("2020-01") == false, "no listing once the read key closes reads")
        let stillOpen = try await call(service, b, #"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"archive_status"}}"#)
        #expect(try JSONParser.parse(toolText(stillOpen) ?? "")["days"]?.integerValue == 5)

        let unknown = try await call(service, b, #"{"jsonrpc":"2.0","id":9,"method":"resources/list"}"#)
        #expect(unknown.json?["error"]?["code"]?.integerValue == -32601)
        let garbage = try await call(service, b, "{nope")
        #expect(garbage.json?["error"]?["code"]?.integerValue == -32700)
        let get = try await service.send(HTTPRequest(method: "GET", target: "/mcp/b/\(b)"))
        #expect(get.status == 405)
    }
}
