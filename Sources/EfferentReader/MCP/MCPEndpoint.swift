/// The local MCP server behind a transport whose requests may come from several threads at once
/// (the dashboard's `/mcp`, MCP's Streamable HTTP): one message is handled at a time, as the
/// lines of `efferent mcp`'s standard input are, so both transports answer alike.
public actor MCPEndpoint {
    private let server: LocalMCPServer

    public init(world: sending LocalMCPServer.World) {
        server = LocalMCPServer(world: world)
    }

    /// The answer to one JSON-RPC message (a request, or a notification: nil).
    public func handle(_ message: String) async -> String? {
        await server.handle(message)
    }
}
