import EfferentCore
import EfferentHTTP
import EfferentTestSupport
import Foundation
import Testing

/// The route table, ceilings, gzip, error rendering and the access log, each in process and over
/// loopback, so what a handler answers is checked on the wire too.
@Suite struct RouterTests {
    @Test(arguments: Transport.allCases)
    func routesByPatternAndMethod(_ transport: Transport) throws {
        let server = try TestServer(transport)
        let health = try server.send(HTTPRequest(method: "GET", target: "/health"))
        #expect(health.status == 200 && health.body == #"{"ok":true}"#)
        #expect(try server.send(HTTPRequest(method: "GET", target: "/items/42?x=1")).body == "item 42")
        let unknown = try server.send(HTTPRequest(method: "GET", target: "/nothing/here"))
        #expect(unknown.status == 404 && unknown.error == "unknown path")
        #expect(unknown.headers["content-type"] == "application/json")
        let method = try server.send(HTTPRequest(method: "DELETE", target: "/items/42"))
        #expect(method.status == 405 && method.error == "DELETE is not allowed here")
        let malformed = try server.send(HTTPRequest(method: "GET", target: "/items/forty-two"))
        #expect(malformed.status == 400 && malformed.error == "an item id is a whole number", "the parameter's parser answers")
        let head = try server.send(HTTPRequest(method: "HEAD", target: "/health"))
        #expect(head.status == 200 && head.headers["content-type"] == "application/json", "HEAD is answered by GET")
        if transport == .loopback { #expect(head.body.isEmpty) }
    }

    @Test(arguments: Transport.allCases)
    func bodiesStayUnderTheirRoutesCeiling(_ transport: Transport) throws {
        let server = try TestServer(transport)
        #expect(try server.send(HTTPRequest(method: "PUT", target: "/items/7", body: [UInt8](repeating: 1, count: 100))).body == "item 7 took 100")
        let over = try server.send(HTTPRequest(method: "PUT", target: "/items/7", body: [UInt8](repeating: 1, count: 101)))
        #expect(over.status == 413 && over.error == "this route takes a body of at most 100 bytes")
        let small = try server.send(HTTPRequest(method: "GET", target: "/health", body: [UInt8](repeating: 1, count: 4097)))
        #expect(small.status == 413 && small.error == "this route takes a body of at most 4096 bytes", "a route that names no ceiling takes 4 KiB")
    }

    /// Over the wire: a declared length past the ceiling is refused before a byte is sent, a
    /// chunked body as it passes the ceiling.
    @Test func declaredAndChunkedBodiesAreCut() throws {
        let server = try TestServer(.loopback)
        let declared = try server.raw(Array("PUT /items/1 HTTP/1.1\r\nHost: t\r\nContent-Length: 1000000000\r\n\r\n".utf8))
        #expect(declared.status == 413 && declared.error == "this route takes a body of at most 100 bytes")
        let chunk = "3e8\r\n" + String(repeating: "a", count: 1000) + "\r\n"
        let chunked = try server.raw(Array(("PUT /items/1 HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                                            + chunk + chunk + "0\r\n\r\n").utf8))
        #expect(chunked.status == 413)
        // The token is checked from the head: a guarded route refuses before the body is read.
        let guarded = try server.raw(Array("POST /guarded HTTP/1.1\r\nHost: t\r\nContent-Length: 9000000\r\n\r\n".utf8))
        #expect(guarded.status == 401 && guarded.headers["www-authenticate"] == "Bearer")
    }

    @Test(arguments: Transport.allCases)
    func gzipBodiesAreInflatedUnderACeiling(_ transport: Transport) throws {
        let server = try TestServer(transport)
        let lines = Array(String(repeating: "{\"kind\":\"quantity\",\"value\":1}\n", count: 500).utf8)
        let plain = try server.send(HTTPRequest(method: "POST", target: "/lines", body: lines))
        #expect(plain.body == "500 lines, 0 kept", "a streaming route's body goes to its sink, not the request")
        let packed = try gzipped(lines)
        #expect(packed.count < lines.count / 10)
        let inflated = try server.send(HTTPRequest(method: "POST", target: "/lines", headers: ["Content-Encoding": "gzip"], body: packed))
        #expect(inflated.status == 200 && inflated.body == "500 lines, 0 kept")

        let bomb = try gzipped([UInt8](repeating: 0x0A, count: 5_000_000))
        #expect(bomb.count < 20_000, "small on the wire")
        let refused = try server.send(HTTPRequest(method: "POST", target: "/lines", headers: ["Content-Encoding": "gzip"], body: bomb))
        #expect(refused.status == 413 && refused.error == "this route takes a body of at most 100000 bytes once inflated")

        // A sink is handed an inflating body 64 KiB at a time, never a chunk's whole output: 900 KB
        // of line breaks arrive in one compressed piece of under a kilobyte.
        let dense = try gzipped([UInt8](repeating: 0x0A, count: 900_000))
        let pieces = try server.send(HTTPRequest(method: "POST", target: "/pieces", headers: ["Content-Encoding": "gzip"], body: dense))
        #expect(pieces.status == 200 && pieces.body == "900000 lines, largest piece 65536", "\(pieces.body)")

        let corrupt = try server.send(HTTPRequest(method: "POST", target: "/lines", headers: ["Content-Encoding": "gzip"], body: Array(packed.dropLast(8))))
        #expect(corrupt.status == 400 && corrupt.error == "the gzip body ends before its gzip stream does")
        let garbage = try server.send(HTTPRequest(method: "POST", target: "/lines", headers: ["Content-Encoding": "gzip"], body: lines))
        #expect(garbage.status == 400 && garbage.error == "the body is not valid gzip (Content-Encoding: gzip)")
        let other = try server.send(HTTPRequest(method: "POST", target: "/lines", headers: ["Content-Encoding": "br"], body: lines))
        #expect(other.status == 415)
    }

    @Test(arguments: Transport.allCases)
    func errorsRenderThemselvesAndNothingPrivateLeaks(_ transport: Transport) throws {
        let server = try TestServer(transport)
        let secret = try server.send(HTTPRequest(method: "GET", target: "/secret"))
        #expect(secret.status == 500)
        let id = try #require(secret.error?.firstMatch(of: /\(error ([0-9a-f]+) in its log\)/)?.1, "the 500 names its error id: \(secret.body)")
        #expect(secret.error == "the service failed to answer this request (error \(id) in its log); try again, and tell its operator if it keeps failing")
        #expect(!secret.body.contains("secret-column"))
        #expect(server.log.all.contains { $0.contains("\"level\":\"error\"") && $0.contains("secret-column") && $0.contains("\"route\":\"/secret\"")
                    && $0.contains("\"errorId\":\"\(id)\"") },
                "the operator's log says what failed, under the id the client saw")
        let unreachable = try server.send(HTTPRequest(method: "GET", target: "/unreachable"))
        #expect(unreachable.status == 503 && unreachable.error == "the database cannot be reached just now; try again shortly")
    }

    /// One line per request naming the route's pattern, never its path, a header or the body.
    @Test(arguments: Transport.allCases)
    func theAccessLogNamesThePatternOnly(_ transport: Transport) throws {
        let server = try TestServer(transport, trustProxy: true)
        _ = try server.send(HTTPRequest(method: "PUT", target: "/items/31337?token=hunter2",
                                        headers: ["Authorization": "Bearer hunter2", "X-Forwarded-For": "198.51.100.7, 203.0.113.9"],
                                        body: Array("body-bytes".utf8)))
        _ = try server.send(HTTPRequest(method: "GET", target: "/nothing"))
        let lines = server.log.all
        #expect(lines.count == 2)
        let object = try JSONParser.parse(Array(lines[0].utf8))
        #expect(object["route"]?.stringValue == "/items/:id" && object["method"]?.stringValue == "PUT")
        #expect(object["status"]?.integerValue == 200 && object["in"]?.integerValue == 10 && object["ms"]?.numberValue != nil)
        #expect(object["client"]?.stringValue == "203.0.113.9", "behind a trusted proxy, the address it appended")
        for line in lines { #expect(!line.contains("31337") && !line.contains("hunter2") && !line.contains("body-bytes")) }
        #expect(try JSONParser.parse(Array(lines[1].utf8))["route"]?.stringValue == "-")
    }

    @Test(arguments: Transport.allCases)
    func aStreamedAnswerHasNoRowLimit(_ transport: Transport) throws {
        let server = try TestServer(transport)
        let export = try server.send(HTTPRequest(method: "GET", target: "/export"))
        #expect(export.status == 200 && export.headers["content-type"] == "text/csv")
        let rows = export.body.split(separator: "\n")
        #expect(rows.count == 10_000 && rows.first == "1,row 1" && rows.last == "10000,row 10000")
        if transport == .loopback { #expect(export.headers["transfer-encoding"] == "chunked") }
    }

    /// RFC 9112 §3.2: an HTTP/1.1 request without Host is refused as JSON; HTTP/1.0 needs none.
    @Test func anHTTP11RequestMustNameItsHost() throws {
        let server = try TestServer(.loopback)
        let missing = try server.raw(Array("GET /health HTTP/1.1\r\nConnection: close\r\n\r\n".utf8))
        #expect(missing.status == 400 && missing.error == "an HTTP/1.1 request must carry a Host header")
        #expect(try server.raw(Array("GET /health HTTP/1.0\r\n\r\n".utf8)).status == 200)
    }
}
