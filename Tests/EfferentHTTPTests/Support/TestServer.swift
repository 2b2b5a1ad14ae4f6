import EfferentCore
import EfferentHTTP
import EfferentTestSupport
import EfferentSystem
import Foundation

/// How a test reaches the router: straight into `respond(to:)`, or through the real daemon on
/// loopback with exact bytes on the wire. The route tests run over both.
enum Transport: String, CaseIterable, CustomStringConvertible, Sendable {
    case inProcess, loopback
    var description: String { rawValue }
}

/// What a test reads of an answer, the same whichever way it came.
struct Answer {
    let status: Int
    let headers: [String: String]
    let body: String

    var error: String? { (try? JSONParser.parse(Array(body.utf8)))?["error"]?.stringValue }
}

/// A router with one route per behaviour under test, its log lines kept, served both ways.
final class TestServer: Sendable {
    let router: RoutedResponder
    let daemon: HTTPDaemon?
    let transport: Transport
    let log = LogLines()

    init(_ transport: Transport, trustProxy: Bool = false, tls: TLSCredentials? = nil,
         admit: (@Sendable (HTTPRequestHead) throws -> Void)? = nil, headers: [(String, String)] = []) throws {
        let lines = log
        let router = Router(configuration: Router.Configuration(log: { lines.append($0) }, trustProxy: trustProxy, recover: { error in
            (error as? Unreachable) != nil ? HTTPError(503, "the database cannot be reached just now; try again shortly") : nil
        }, admit: admit, headers: headers))
        Self.addRoutes(to: router)
        self.router = router.responder()
        self.transport = transport
        daemon = transport == .loopback ? try HTTPDaemon(configuration: .init(port: 0, tls: tls), responder: self.router) : nil
    }

    deinit { daemon?.stop() }

    static func addRoutes(to router: Router) {
        router.parameter("id") { text in
            guard let id = Int(text) else { throw HTTPError(400, "an item id is a whole number") }
            return id
        }
        router.get("/health") { _, _ in HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: Array(#"{"ok":true}"#.utf8)) }
        router.get("/items/:id") { _, p in
            let id: Int = try p.get("id")
            return HTTPResponse(status: 200, body: Array("item \(id)".utf8))
        }
        router.put("/items/:id", body: BodyLimit(bytes: 100)) { request, p in
            let id: Int = try p.get("id")
            return HTTPResponse(status: 200, body: Array("item \(id) took \(request.body.count)".utf8))
        }
        router.on("POST", "/lines", body: BodyLimit(bytes: 20_000, gzip: .init(inflatedBytes: 100_000)),
                  sink: { _, _ in LineCounter() }) { request, _, counter in
            HTTPResponse(status: 200, body: Array("\(counter.lines) lines, \(request.body.count) kept".utf8))
        }
        router.on("POST", "/pieces", body: BodyLimit(bytes: 20_000, gzip: .init(inflatedBytes: 1_000_000)),
                  sink: { _, _ in LineCounter() }) { _, _, counter in
            HTTPResponse(status: 200, body: Array("\(counter.lines) lines, largest piece \(counter.largestPiece)".utf8))
        }
        router.on("POST", "/guarded", body: BodyLimit(bytes: 10_000_000), sink: { head, _ in
            guard head.header("authorization") == "Bearer right" else {
                throw HTTPError(401, "this route needs the right token", headers: [("WWW-Authenticate", "Bearer")])
            }
            return LineCounter()
        }) { _, _, counter in HTTPResponse(status: 200, body: Array("\(counter.lines) lines".utf8)) }
        router.get("/secret") { _, _ in throw Leaky() }
        router.get("/own-cache") { _, _ in HTTPResponse(status: 200, headers: [("Cache-Control", "max-age=60")], body: Array("cached".utf8)) }
        router.get("/unreachable") { _, _ in throw Unreachable() }
        router.get("/export") { _, _ in
            HTTPResponse(status: 200, headers: [("Content-Type", "text/csv")], stream: Rows(count: 10_000))
        }
    }

    var port: Int { daemon?.port ?? 0 }

    /// Sends `request`; over loopback, as the exact bytes of an HTTP/1.1 request with its body.
    func send(_ request: HTTPRequest) throws -> Answer {
        guard daemon != nil else {
            let response = router.respond(to: request)
            return Answer(status: response.status, headers: Dictionary(response.headers.map { ($0.0.lowercased(), $0.1) }, uniquingKeysWith: { a, _ in a }),
                          body: String(decoding: try response.collectedBody(), as: UTF8.self))
        }
        var head = "\(request.method) \(request.target) HTTP/1.1\r\nHost: t\r\nConnection: close\r\n"
        for (name, value) in request.headers { head += "\(name): \(value)\r\n" }
        if !request.body.isEmpty || request.method == "PUT" || request.method == "POST" { head += "Content-Length: \(request.body.count)\r\n" }
        return try raw(Array((head + "\r\n").utf8) + request.body, bodiless: request.method == "HEAD")
    }

    /// Sends bytes as they are and reads one answer (to the close when it is chunked).
    func raw(_ bytes: [UInt8], bodiless: Bool = false) throws -> Answer {
        let connection = try RawHTTPConnection(port: port)
        connection.send(bytes)
        let response = try connection.readResponse(bodiless: bodiless)
        let body = response.headers["transfer-encoding"] == "chunked" ? RawHTTPConnection.dechunked(response.body) : response.body
        return Answer(status: response.status, headers: response.headers, body: body)
    }
}

/// Counts the lines of a streamed body as they pass; keeps none of them.
final class LineCounter: HTTPBodySink {
    var lines = 0
    /// The most bytes one `take` was handed.
    var largestPiece = 0
    func take(_ bytes: [UInt8]) throws {
        lines += bytes.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        largestPiece = max(largestPiece, bytes.count)
    }
}

/// An error whose description must never reach a client.
struct Leaky: Error, CustomStringConvertible {
    var description: String { "table record, constraint on secret-column" }
}

struct Unreachable: Error {}

/// `count` CSV rows, made as they are pulled.
final class Rows: HTTPResponseStream {
    let count: Int
    private let made = Mutex(0)
    init(count: Int) { self.count = count }
    func next() throws -> [UInt8]? {
        made.withLock { made in
            guard made < count else { return nil }
            made += 1
            return Array("\(made),row \(made)\n".utf8)
        }
    }
}

