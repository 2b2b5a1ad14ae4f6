import EfferentHTTP
import EfferentReader
import EfferentSystem

/// MCP over Streamable HTTP at `/mcp` (issue 30): the server `efferent mcp` runs over stdio, the
/// same tools and answers, for an agent that connects by URL (Claude Code's `--transport http`,
/// or one on another machine through an SSH tunnel). One JSON-RPC message a POST, its answer as
/// `application/json`; a notification or a response from the client is 202 with no body.
extension Dashboard {
    /// A message is a few KiB (an edit of 500 items is the largest); 4 MiB leaves room and no more.
    static let mcpBody = BodyLimit(bytes: 4 << 20)

    static func addMCP(_ mcp: MCPEndpoint, to router: Router) {
        router.post(DashboardGate.mcpPath, body: mcpBody) { request, _ in
            guard let text = String(validating: request.body, as: UTF8.self) else {
                throw HTTPError(400, "an MCP message is JSON in UTF-8")
            }
            // The request's thread waits while the answer is made on it (no thread of the pool held).
            let answer = try Blocking.run { await mcp.handle(text) }.get()
            guard let answer else { return HTTPResponse(status: 202, headers: [], body: []) }
            return HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: Array(answer.utf8))
        }
    }
}
