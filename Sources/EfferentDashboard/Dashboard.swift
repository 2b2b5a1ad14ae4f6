import EfferentClient
import EfferentCore
import EfferentHTTP
import EfferentReader
import Foundation

/// `efferent dashboard` as a library: the pages, the JSON API under `/api/v1` and its OpenAPI
/// document, served from the reader's mirror on the shared HTTP layer.
///
/// Routes → answers → renderer: every route reads the mirror (through the digest for what spans
/// years, through the answers `efferent daily/sleep/workouts` give for the rest), and every chart
/// is drawn by `ChartRenderer`, the one `efferent plot` uses. Nothing here waits on the service:
/// `BackgroundSync` refreshes the mirror at most every five minutes on its own.
public final class Dashboard: Sendable {
    public let context: ReaderContext
    public let digest: MirrorDigest
    public let gate: DashboardGate
    public let sync: BackgroundSync
    /// Where a failure's sentence goes (the command prints it on stderr).
    let log: @Sendable (String) -> Void

    /// The MCP server `/mcp` serves (the one `efferent mcp` serves over stdio); nil: no `/mcp`.
    let mcp: MCPEndpoint?

    /// A dashboard answering for `gate`'s address and token; `log` hears failures, never a request's
    /// path, token or values. With `mcp`, it also serves that MCP server at `/mcp`.
    public init(context: ReaderContext, gate: DashboardGate, mcp: MCPEndpoint? = nil, log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.mcp = mcp
        self.context = context
        self.gate = gate
        self.log = log
        let digest = MirrorDigest(mirror: context.mirror)
        self.digest = digest
        sync = BackgroundSync(context: context, digest: digest, report: log)
    }

    /// The routes registered on a fresh table (each handler holds this dashboard).
    private func table() -> RouteTable {
        let router = Router(configuration: Router.Configuration(
            log: { [log] line in if line.contains("\"level\":\"error\"") { log(line) } },
            recover: Self.recover, admit: { [gate] head in try gate.admit(head) }, headers: DashboardGate.headers,
            present: Self.present))
        let table = RouteTable(router: router)
        addRoutes(to: table)
        if let mcp { Self.addMCP(mcp, to: router) }
        return table
    }

    /// What a daemon serves: every route, frozen.
    public func responder() -> RoutedResponder { table().router.responder() }

    /// Every route's pattern, as registered: what the OpenAPI document must describe.
    public var routes: [String] { table().registered }

    /// The failures an answer reports to its asker: a question it refuses is 400, a mirror it
    /// cannot read 500, each with its sentence; anything else stays a plain 500.
    static let recover: @Sendable (any Error) -> (any HTTPResponseError)? = { error in
        switch error {
        case let error as AnswerError: return HTTPError(400, error.description)
        case let error as MirrorError: return HTTPError(500, error.description)
        default: return nil
        }
    }

    /// A page path the dashboard cannot serve (`/nope`, `/sleep/2017-13-45`) is answered with the
    /// app's own page and the refusal's status, not raw JSON: the page's script finds no page there,
    /// or asks the API, which says what is wrong, and shows it with the app's navigation. The API,
    /// `/mcp` and the gate's refusals (a missing token, a foreign Host) keep their own answers.
    static let present: @Sendable (HTTPRequestHead, any HTTPResponseError) -> HTTPResponse? = { head, error in
        guard !(error is DashboardRefusal), head.method == "GET" || head.method == "HEAD", DashboardGate.isPage(head.path),
              head.path != DashboardGate.mcpPath, !(head.header("accept")?.contains("application/json") ?? false) else { return nil }
        let status = error.status
        guard status == 400 || status == 404 else { return nil }
        return HTTPResponse(status: status, headers: [("Content-Type", "text/html; charset=utf-8")], body: DashboardAssets.shell)
    }

    /// The digest brought up to the mirror: each page sees every day the mirror holds now.
    func snapshot() throws -> DigestSnapshot { try digest.refresh() }

    /// The archive's zone for days that name none, and for "today".
    var zone: String { context.settings.timeZone }

    /// Today in the archive's zone: where ranges end unless a page names another day.
    var today: CalendarDay { context.today }
}
