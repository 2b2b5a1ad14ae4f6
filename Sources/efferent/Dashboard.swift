import EfferentCommandLine
import EfferentDashboard
import EfferentHTTP
import EfferentReader
import EfferentReceiver
import EfferentSystem
import Foundation

/// `efferent dashboard`: the mirror in a browser, served on this machine only.
struct DashboardCommand: Subcommand {
    static let defaultPort = 8765

    static let spec = CommandSpec(
        name: "dashboard",
        abstract: "Look at your health in a browser: Today, each metric's trend, sleep, workouts and the catalogue, with a JSON API, served from the mirror on this machine.",
        discussion: """
        It prints an address with an access token (http://127.0.0.1:8765/?token=…); open it, and the
        browser keeps the token in a cookie. Scripts send it as Authorization: Bearer <token>; the
        API is described at /api/openapi.json. An agent connects to the same MCP server `efferent
        mcp` runs at /mcp (Streamable HTTP), with the token as its bearer header, e.g.
          claude mcp add --transport http efferent http://127.0.0.1:8765/mcp --header "Authorization: Bearer <token>"
        (--token-file keeps the token from run to run). The mirror is refreshed in the background
        at most every five minutes; pages never wait for the service. Ctrl-C stops it.
        """,
        options: [.init("listen", value: "ADDR:PORT", help: "Where to listen; the next free port is taken when the default is busy.",
                        default: "127.0.0.1:\(defaultPort)"),
                  .flag("allow-remote", help: "Allow an address other machines can reach (plain HTTP: prefer an SSH tunnel)."),
                  .flag("open", help: "Open the address in the default browser."),
                  .init("token-file", value: "FILE", help: "Keep the access token in FILE (made, owner only, when missing), so the address and an agent's /mcp setting stay the same from run to run."),
                  .flag("offline", help: "Never refresh the mirror from the service; show it as it is.")])

    let host: String
    let port: Int
    let explicitPort: Bool
    let open: Bool
    let offline: Bool
    let tokenFile: String?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        let listen = arguments.string("listen")
        (host, port) = try ListenAddress.parse(listen ?? "127.0.0.1:\(Self.defaultPort)")
        explicitPort = listen != nil
        if !DashboardGate.isLoopback(host), !arguments.flag("allow-remote") {
            throw UsageError("--listen \(listen ?? host) would serve your health data beyond this machine; use a loopback address "
                             + "(127.0.0.1), or add --allow-remote if you mean it (anyone who learns the printed address can read everything).")
        }
        open = arguments.flag("open")
        offline = arguments.flag("offline")
        tokenFile = arguments.string("token-file")
    }

    /// The token kept in `path`, or a new one written there (0600, under the process's umask 077).
    static func keptToken(_ path: String) throws -> String {
        if let data = FileManager.default.contents(atPath: path) {
            let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard token.utf8.count >= 32, !token.hasPrefix("-"),
                  token.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
                throw DashboardCommandError.badTokenFile(path)
            }
            try FileDurability.restrictToOwner([path])
            return token
        }
        let token = DashboardGate.newToken()
        guard FileManager.default.createFile(atPath: path, contents: Data((token + "\n").utf8), attributes: [.posixPermissions: 0o600]) else {
            throw DashboardCommandError.unwritableTokenFile(path)
        }
        return token
    }

    func run() async throws -> Int32 {
        let context = try ReaderContext()
        let server: DashboardServer
        do {
            // The default port may be taken (another dashboard): the next nine are tried, as Jupyter does.
            let token = try tokenFile.map(Self.keptToken) ?? DashboardGate.newToken()
            server = try DashboardServer(context: context, host: host, port: port, tryNext: explicitPort ? 0 : 9, token: token,
                                         mcp: MCPEndpoint(world: MCP.world(context, refreshing: false, offline: offline)), log: { note($0) })
        } catch HTTPDaemonError.cannotListen(_, _) where !explicitPort {
            throw DashboardCommandError.noPort(port)
        }
        let dashboard = server.dashboard
        // Listening for SIGTERM and SIGINT from here on, so a stop after the address is printed
        // always ends the run cleanly.
        let termination = TerminationSignal()
        if !DashboardGate.isLoopback(host) {
            note("warning: the dashboard listens on \(host):\(server.port), which other machines can reach, over plain HTTP: anyone on the way "
                 + "can read the token and every page. An SSH tunnel (ssh -L \(server.port):127.0.0.1:\(server.port) this-machine) keeps it on loopback.")
        }
        // Written straight to the descriptor, not through print's buffer: a script reading the address waits for it.
        FileHandle.standardOutput.write(Data(("Efferent dashboard: \(server.url)\n"
            + "Open that address in a browser (it carries this run's access token); Ctrl-C stops the dashboard.\n"
            + "Agents: MCP at \(server.mcpURL), with the header Authorization: Bearer <the token above>.\n").utf8))
        // The digest is built before the first page asks for it; the first sync happens if one is due.
        Thread.detachNewThread { _ = try? dashboard.digest.refresh() }
        let refresher: Task<Void, Never>? = offline ? nil : Task.detached { await dashboard.sync.run() }
        if offline { dashboard.sync.markOffline() }
        if open { Self.openBrowser(server.url) }
        // The wait holds a thread of its own, never one of the cooperative pool's (one per core),
        // which the background refresh and every request's async work need.
        await Blocking.onOwnThread { termination.wait() }
        refresher?.cancel()
        server.stop()
        return 0
    }

    /// The desktop's opener (`xdg-open`, or `open` on macOS); without one, says so.
    static func openBrowser(_ url: String) {
        let candidates = ["/usr/bin/xdg-open", "/usr/local/bin/xdg-open", "/usr/bin/open"]
        guard let opener = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            note("no browser opener (xdg-open) on this machine; open the address above yourself")
            return
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: opener)
        process.arguments = [url]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { note("could not start \(opener) (\(error)); open the address above yourself") }
    }
}

enum DashboardCommandError: Error, CustomStringConvertible {
    case noPort(Int)
    case badTokenFile(String)
    case unwritableTokenFile(String)

    var description: String {
        switch self {
        case let .badTokenFile(path): "\(path) does not hold a dashboard token (32 or more letters, digits, - and _); remove it and a new one is made."
        case let .unwritableTokenFile(path): "Cannot write the token to \(path); check that its folder exists and is writable."
        case let .noPort(port): "ports \(port) to \(port + 9) are all in use; choose one with --listen 127.0.0.1:PORT (port 0 lets the system pick)."
        }
    }
}
