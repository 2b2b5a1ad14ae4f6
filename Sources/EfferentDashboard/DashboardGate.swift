import EfferentCore
import EfferentCrypto
import EfferentHTTP
import Foundation

/// Who may read the dashboard, checked on every request's head before its route: the Host header
/// must name the address the dashboard listens on (a page of another site whose name was pointed
/// at 127.0.0.1 — DNS rebinding — sends its own name and is refused), only GET and HEAD are taken,
/// and everything but the page's own code and icon needs the access token: from the address
/// printed at start (`?token=`, once, on a page), then from an HttpOnly, SameSite=Strict cookie,
/// or for a script or notebook as `Authorization: Bearer <token>`.
public struct DashboardGate: Sendable {
    public let token: String
    public let port: Int
    /// The Host values taken, lower case: `127.0.0.1:8765`, `localhost:8765`, `[::1]:8765`.
    let hosts: Set<String>
    /// Listening on every interface: any numeric address is a Host this machine may be reached by,
    /// but no name, since names are what rebinding abuses.
    let anyNumericHost: Bool

    public init(token: String, host: String, port: Int) {
        self.token = token
        self.port = port
        let loopback = Self.isLoopback(host)
        var names: Set<String> = loopback ? ["127.0.0.1", "localhost", "[::1]"] : [host.contains(":") ? "[\(host.lowercased())]" : host.lowercased()]
        if !loopback { names.formUnion(["127.0.0.1", "localhost", "[::1]"]) }
        var hosts = Set(names.map { "\($0):\(port)" })
        if port == 80 { hosts.formUnion(names) }
        self.hosts = hosts
        anyNumericHost = host == "0.0.0.0" || host == "::"
    }

    /// 32 random bytes from libsodium as base64url: unguessable, safe in a URL and a cookie, and
    /// never starting with `-` (`BearerToken`).
    public static func newToken() -> String { BearerToken.make() }

    public static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// The cookie's name: one per port, so two dashboards on one machine do not overwrite each other's.
    public var cookieName: String { "efferent_dashboard_\(port)" }

    /// `Set-Cookie` for a browser that came with the token: HttpOnly (no script reads it),
    /// SameSite=Strict (no other site's page sends it), for the whole dashboard, until the browser closes.
    public var cookie: String { "\(cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict" }

    /// Paths anyone who reaches the dashboard may load: its code, styles and icon, which hold no value.
    static func isOpen(_ path: Substring) -> Bool {
        path.hasPrefix("/assets/") || path == "/favicon.ico" || path == "/favicon.svg"
    }

    /// Pages (not the API) take the token in the query, once, to set the cookie.
    static func isPage(_ path: Substring) -> Bool { !path.hasPrefix("/api/") && !isOpen(path) }

    /// Where MCP's Streamable HTTP transport is served (issue 30): POST only, the token only as
    /// `Authorization: Bearer`, never from the cookie, so no page a browser shows can post to it.
    public static let mcpPath = "/mcp"

    /// Refuses a foreign Host, a method other than GET or HEAD, and a request without the token.
    public func admit(_ head: HTTPRequestHead) throws {
        let page = Self.isPage(head.path) && !(head.header("accept")?.contains("application/json") ?? false)
        guard let host = head.header("host")?.lowercased(), hosts.contains(host) || (anyNumericHost && Self.isNumeric(host)) else {
            throw DashboardRefusal(403, "this dashboard answers only for the address it printed (such as http://127.0.0.1:\(port)/); "
                                   + "a request for another host name is refused, so a web page cannot reach it through its own name",
                                   page: page)
        }
        if head.path == Self.mcpPath { return try admitMCP(head) }
        guard head.method == "GET" || head.method == "HEAD" else {
            throw DashboardRefusal(405, "the dashboard only reads; it answers GET and HEAD", page: page, headers: [("Allow", "GET, HEAD")])
        }
        guard !Self.isOpen(head.path) else { return }
        if let presented = presentedToken(head), Sodium.constantTimeEqual(Array(presented.utf8), Array(token.utf8)) { return }
        throw DashboardRefusal(401, "this dashboard needs the access token: open the address `efferent dashboard` printed "
                               + "(it ends in ?token=…), or send Authorization: Bearer <token>",
                               page: page, headers: [("WWW-Authenticate", "Bearer realm=\"efferent dashboard\"")])
    }

    /// `/mcp` (MCP's Streamable HTTP, 2025-06-18): messages are POSTed; the server opens no stream
    /// of its own, so GET is 405 as the transport allows. The token comes as a bearer header only,
    /// and a request a web page made (its `Origin` another site's) is refused, as the transport
    /// asks of a local server.
    private func admitMCP(_ head: HTTPRequestHead) throws {
        guard head.method == "POST" else {
            throw DashboardRefusal(405, "\(Self.mcpPath) takes MCP messages as POST (Streamable HTTP); this server opens no event stream",
                                   headers: [("Allow", "POST")])
        }
        if let origin = head.header("origin")?.lowercased(), !isOwnOrigin(origin) {
            throw DashboardRefusal(403, "\(Self.mcpPath) does not answer requests a web page of another site makes (its Origin is not this address)")
        }
        guard let authorization = head.header("authorization"), authorization.lowercased().hasPrefix("bearer "),
              Sodium.constantTimeEqual(Array(authorization.dropFirst(7).trimmingCharacters(in: .whitespaces).utf8), Array(token.utf8)) else {
            throw DashboardRefusal(401, "\(Self.mcpPath) needs the dashboard's access token as Authorization: Bearer <token> "
                                   + "(the token is the end of the address `efferent dashboard` printed)",
                                   headers: [("WWW-Authenticate", "Bearer realm=\"efferent dashboard\"")])
        }
    }

    /// Whether a request's `Origin` is a page of this dashboard: any of the names it answers to
    /// with its port (a page loaded from `localhost:8765` may post to `127.0.0.1:8765`), as the
    /// Host check takes them; any other site's origin, and `null`, is not.
    func isOwnOrigin(_ origin: String) -> Bool {
        let authority: Substring
        if origin.hasPrefix("http://") { authority = origin.dropFirst(7) } else if origin.hasPrefix("https://") { authority = origin.dropFirst(8) } else { return false }
        return hosts.contains(String(authority)) || (anyNumericHost && Self.isNumeric(String(authority)))
    }

    /// The token a request carries: the bearer header, the cookie, or on a page the query.
    func presentedToken(_ head: HTTPRequestHead) -> String? {
        if let authorization = head.header("authorization"), authorization.lowercased().hasPrefix("bearer ") {
            return String(authorization.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        }
        if Self.isPage(head.path), let query = loginToken(head.target) { return query }
        if let cookies = head.header("cookie") {
            for pair in cookies.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == cookieName {
                    return String(parts[1]).trimmingCharacters(in: .whitespaces)
                }
            }
        }
        return nil
    }

    /// `?token=` of a page's address, when it has one.
    func loginToken(_ target: String) -> String? {
        guard let mark = target.firstIndex(of: "?"), let query = try? HTTPQuery(target[target.index(after: mark)...]) else { return nil }
        return try? query.value("token")
    }

    /// Whether a Host value is a numeric address (with its port): `192.168.1.5:8765`, `[fe80::1]:8765`.
    static func isNumeric(_ host: String) -> Bool {
        if host.hasPrefix("[") { return host.contains("]") && host.dropFirst().prefix { $0 != "]" }.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." } }
        let name = host.split(separator: ":").first ?? ""
        return !name.isEmpty && name.allSatisfy { $0.isNumber || $0 == "." }
    }

    /// Headers on every answer: a Content-Security-Policy that lets the page run only its own
    /// script and style from this address and talk to nothing else; nothing kept by the browser's
    /// cache; no sniffing, framing or referrer.
    public static let headers: [(String, String)] = [
        ("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
            + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
        ("Cache-Control", "no-store"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("X-Frame-Options", "DENY"),
        ("Cross-Origin-Opener-Policy", "same-origin"),
        ("Cross-Origin-Resource-Policy", "same-origin"),
    ]
}
