import EfferentHTTP
import EfferentTestSupport
import Foundation
import Testing

/// One budget for every body in flight on a server, over loopback: a body kept whole counts its
/// declared length from its head, so a second one past the budget is refused with 503 and
/// Retry-After while the first is still arriving, and is taken once the first is done; a gzip
/// body handed to a sink counts what it inflates to, so a bomb that each route's own ceiling
/// would let through whole is refused at the budget. Either way, the budget is given back.
@Suite(.serialized) struct BodyBudgetTests {
    final class Discard: HTTPBodySink {
        func take(_ bytes: [UInt8]) throws {}
    }

    static func daemon(budget: Int) throws -> (HTTPDaemon, RoutedResponder) {
        let router = Router(configuration: Router.Configuration(bodyBudgetBytes: budget))
        router.put("/keep", body: BodyLimit(bytes: 4 << 20)) { request, _ in
            HTTPResponse(status: 200, body: Array("kept \(request.body.count)".utf8))
        }
        router.on("POST", "/inflate", body: BodyLimit(bytes: 1 << 20, gzip: .init(inflatedBytes: 64 << 20)),
                  sink: { _, _ in Discard() }) { _, _, _ in HTTPResponse(status: 200, body: Array("inflated".utf8)) }
        let responder = router.responder()
        return (try HTTPDaemon(configuration: .init(port: 0), responder: responder), responder)
    }

    @Test func aWholeBodyPastTheBudgetIsRefusedWhileAnotherIsInFlight() throws {
        let (daemon, router) = try Self.daemon(budget: 1 << 20)
        defer { daemon.stop() }
        let budget = try #require(router.bodyBudget)
        let size = 700_000
        let first = try RawHTTPConnection(port: daemon.port)
        first.send("PUT /keep HTTP/1.1\r\nHost: x\r\nContent-Length: \(size)\r\n\r\n")
        first.send([UInt8](repeating: 97, count: 1000))
        #expect(eventually { budget.inUse >= size }, "the first body counts whole from its head")

        let second = try RawHTTPConnection(port: daemon.port)
        second.send("PUT /keep HTTP/1.1\r\nHost: x\r\nContent-Length: \(size)\r\n\r\n")
        second.send([UInt8](repeating: 98, count: size))
        let refused = try second.readResponse()
        #expect(refused.status == 503, "\(refused.body)")
        #expect(refused.headers["retry-after"] != nil)
        #expect(refused.body.contains("send this request again in a few seconds"), "\(refused.body)")

        first.send([UInt8](repeating: 97, count: size - 1000))
        #expect(try first.readResponse().body == "kept \(size)")
        let third = try RawHTTPConnection(port: daemon.port)
        third.send("PUT /keep HTTP/1.1\r\nHost: x\r\nContent-Length: \(size)\r\n\r\n")
        third.send([UInt8](repeating: 99, count: size))
        #expect(try third.readResponse().body == "kept \(size)", "the budget was given back")
        #expect(eventually { budget.inUse == 0 })
    }

    @Test func aGzipBombPastTheBudgetIsRefusedThoughTheRouteWouldTakeIt() throws {
        let (daemon, router) = try Self.daemon(budget: 1 << 20)
        defer { daemon.stop() }
        let budget = try #require(router.bodyBudget)
        // 8 MiB of zeros: under the route's 64 MiB inflated ceiling, over the 1 MiB budget.
        let bomb = try gzipped([UInt8](repeating: 0, count: 8 << 20))
        let connection = try RawHTTPConnection(port: daemon.port)
        connection.send("POST /inflate HTTP/1.1\r\nHost: x\r\nContent-Encoding: gzip\r\nContent-Length: \(bomb.count)\r\n\r\n")
        connection.send(bomb)
        let answer = try connection.readResponse()
        #expect(answer.status == 503 && answer.headers["retry-after"] != nil, "\(answer.status) \(answer.body)")
        #expect(eventually { budget.inUse == 0 }, "a refused body gives its share back")
        // A body within the budget passes, alone.
        let small = try gzipped([UInt8](repeating: 0, count: 512 << 10))
        let again = try RawHTTPConnection(port: daemon.port)
        again.send("POST /inflate HTTP/1.1\r\nHost: x\r\nContent-Encoding: gzip\r\nContent-Length: \(small.count)\r\n\r\n")
        again.send(small)
        #expect(try again.readResponse().body == "inflated")
    }
}
