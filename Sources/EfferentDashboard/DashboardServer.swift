import EfferentHTTP
import EfferentReader
import Foundation
import EfferentSystem

/// A dashboard listening: the port bound first (the one asked for, or with `tryNext`, the first
/// free one after it; port 0 lets the system choose), then the dashboard made for the port it got,
/// so the Host check and the cookie name the real address, then served.
public final class DashboardServer: Sendable {
    public let dashboard: Dashboard
    public let daemon: HTTPDaemon
    public let host: String

    public init(context: ReaderContext, host: String, port: Int, tryNext: Int = 0, token: String = DashboardGate.newToken(),
                mcp: MCPEndpoint? = nil, log: @escaping @Sendable (String) -> Void = { _ in }) throws {
        var bound: HTTPListener?
        var failure: (any Error)?
        for candidate in port...(port + max(0, tryNext)) where bound == nil {
            do { bound = try HTTPListener(host: host, port: candidate) } catch { failure = error }
        }
        guard let listener = bound else { throw failure ?? HTTPDaemonError.cannotListen(host, port) }
        dashboard = Dashboard(context: context, gate: DashboardGate(token: token, host: host, port: listener.port), mcp: mcp, log: log)
        daemon = try HTTPDaemon(configuration: .init(host: host, port: listener.port), listener: listener, responder: dashboard.responder())
        self.host = host
    }

    public var port: Int { daemon.port }

    /// The address to open: the dashboard's root with this run's token.
    public var url: String {
        "http://\(host.contains(":") ? "[\(host)]" : host):\(daemon.port)/?token=\(dashboard.gate.token)"
    }

    /// Where an agent reaches the MCP server (Streamable HTTP), the token sent as a bearer header.
    public var mcpURL: String {
        "http://\(host.contains(":") ? "[\(host)]" : host):\(daemon.port)\(DashboardGate.mcpPath)"
    }

    /// Stops accepting, lets pages being answered finish (up to `grace` seconds), then stops.
    public func stop(grace: Double = 5) { daemon.shutDown(grace: grace) }
}
