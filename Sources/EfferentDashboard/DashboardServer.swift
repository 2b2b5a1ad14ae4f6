import EfferentHTTP
import EfferentReader
import Foundation
import EfferentSystem

/// A dashboard listening: the daemon bound first (on the port asked for, or with `tryNext`, the
/// first free one after it; port 0 lets the system choose), then the dashboard made for the port
/// it got, so the Host check and the cookie name the real address.
public final class DashboardServer: Sendable {
    public let dashboard: Dashboard
    public let daemon: HTTPDaemon
    public let host: String

    public init(context: ReaderContext, host: String, port: Int, tryNext: Int = 0, token: String = DashboardGate.newToken(),
                mcp: MCPEndpoint? = nil, log: @escaping @Sendable (String) -> Void = { _ in }) throws {
        let responder = LateResponder()
        var bound: HTTPDaemon?
        var failure: (any Error)?
        for candidate in port...(port + max(0, tryNext)) where bound == nil {
            do { bound = try HTTPDaemon(configuration: .init(host: host, port: candidate), responder: responder) } catch { failure = error }
        }
        guard let daemon = bound else { throw failure ?? HTTPDaemonError.cannotListen(host, port) }
        dashboard = Dashboard(context: context, gate: DashboardGate(token: token, host: host, port: daemon.port), mcp: mcp, log: log)
        responder.serve(dashboard.responder())
        self.daemon = daemon
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

/// A responder whose router arrives once the daemon has bound its port; until then (an instant)
/// every request is a 404.
final class LateResponder: HTTPResponder {
    private let responder = Mutex(Router().responder())

    func serve(_ responder: RoutedResponder) { self.responder.withLock { $0 = responder } }

    func exchange(for head: HTTPRequestHead) -> HTTPExchange { responder.withLock { $0 }.exchange(for: head) }
}
