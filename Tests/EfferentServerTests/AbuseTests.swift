import EfferentHTTP
import EfferentCore
@testable import EfferentServer
import EfferentTestSupport
import Foundation
import Testing

/// Careless and hostile clients: rate limits, oversized and half-sent bodies, log hygiene.
@Suite struct AbuseTests {
    @Test(arguments: ServiceKind.allCases)
    func rateLimitsAnswer429WithRetryAfter(_ kind: ServiceKind) async throws {
        let service = try TestService(kind, rateLimits: RateLimits(claims: 2, writes: 3, edits: 1))
        var writers = (0..<3).map { _ in StandInWriter(clock: Int64(service.clockSeconds)) }
        #expect(try await service.send(writers[0].claim()).status == 201)
        #expect(try await service.send(writers[1].claim()).status == 201)
        let third = try await service.send(writers[2].claim())
        #expect(third.status == 429 && third.error == "too many claims and registrations from here just now")
        let wait = try #require(third.header("retry-after").flatMap { Int($0) })
        #expect((1...60).contains(wait))
        for _ in 0..<3 { #expect(try await service.send(try writers[0].upload([day("2026-01-01")])).status == 200) }
        #expect(try await service.send(try writers[0].upload([day("2026-01-01")])).status == 429)
        service.advanceClock(by: 61)
        for index in writers.indices { writers[index].clock += 61 }
        #expect(try await service.send(writers[2].claim()).status == 201, "a new minute, a new allowance")
    }

    @Test func forwardedAddressesCountOnlyBehindATrustedProxy() throws {
        let directory = NSTemporaryDirectory() + "efferent-proxy-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try SQLiteArchiveStore(directory: directory)
        let trusting = ArchiveService(store: store, configuration: ServiceConfiguration(trustProxy: true, log: nil))
        let plain = ArchiveService(store: store, configuration: ServiceConfiguration(trustProxy: false, log: nil))
        let request = HTTPRequest(method: "GET", target: "/health", headers: ["x-forwarded-for": "198.51.100.7, 203.0.113.9"],
                                  clientAddress: "127.0.0.1")
        #expect(trusting.handlers.clientAddress(request) == "203.0.113.9")
        #expect(plain.handlers.clientAddress(request) == "127.0.0.1")
    }

    @Test(arguments: ServiceKind.allCases)
    func logLinesNameNoSecrets(_ kind: ServiceKind) async throws {
        let service = try TestService(kind, admission: .invite)
        let writer = StandInWriter(clock: Int64(service.clockSeconds))
        let code = Invites.newCode()
        try service.store.addInvite(hash: Invites.hash(code), expires: Date(timeIntervalSince1970: service.clockSeconds + 60),
                                    now: Date(timeIntervalSince1970: service.clockSeconds))
        let claim = writer.claim(invite: code)
        #expect(try await service.send(claim).status == 201)
        let upload = try writer.upload([day("2026-02-01")])
        #expect(try await service.send(upload).status == 200)
        _ = try await service.send(writer.read("/b/\(writer.bucket)/days"))
        let lines = service.logLines.all
        #expect(lines.count == 3)
        let secrets = [code, claim.header("x-efferent-signature")!, claim.header("x-efferent-writer")!,
                       upload.header("x-efferent-signature")!, writer.bucket.rawValue]
        for line in lines {
            let object = try JSONParser.parse(line)
            #expect(object["route"]?.stringValue?.contains(":bucket") == true)
            #expect(object["status"]?.integerValue != nil && object["ms"]?.numberValue != nil && object["client"]?.stringValue != nil)
            for secret in secrets { #expect(!line.contains(secret)) }
        }
    }

    /// A 6 MiB body is refused as soon as its declared length passes 5 MiB, and the service keeps
    /// answering everyone else meanwhile.
    @Test func oversizedBodyIsRefusedWhileOthersAreServed() async throws {
        let service = try TestService(.loopback)
        let port = try #require(service.daemon?.port)
        let connection = try RawHTTPConnection(port: port)
        let head = "PUT /b/\(StandInWriter().bucket)/days HTTP/1.1\r\nHost: t\r\nContent-Length: \(6 * 1024 * 1024)\r\n\r\n"
        let refused = try connection.exchange(head)
        #expect(refused.status == 413)
        #expect(try await service.send(HTTPRequest(method: "GET", target: "/health")).status == 200)

        // Without a declared length (chunked), the refusal comes when the body passes the ceiling,
        // and what passed it is dropped, not kept.
        let chunked = try RawHTTPConnection(port: port)
        chunked.send("PUT /b/\(StandInWriter().bucket)/days HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n")
        let chunk = [UInt8](repeating: 0x41, count: 1024 * 1024)
        for _ in 0..<6 { chunked.send(Array("100000\r\n".utf8) + chunk + Array("\r\n".utf8)) }
        chunked.send("0\r\n\r\n")
        #expect(try chunked.readResponse().status == 413)
        #expect(try await service.send(HTTPRequest(method: "GET", target: "/health")).status == 200)
    }

    /// What once overflowed libmicrohttpd's 32 KiB per-connection pool: a 100 KB chunk extension
    /// got its HTML 500 and a query of 600 parameters no answer at all; both are answered now.
    @Test func aLongChunkExtensionAndManyParametersAreAnswered() async throws {
        let service = try TestService(.loopback)
        let port = try #require(service.daemon?.port)
        let chunked = try RawHTTPConnection(port: port)
        chunked.send("PUT /b/\(StandInWriter().bucket)/days HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5;"
                     + String(repeating: "a", count: 100_000) + "\r\nhello\r\n0\r\n\r\n")
        let answer = try chunked.readResponse()
        #expect(answer.status == 400 && answer.headers["content-type"] == "application/json", "\(answer.status) \(answer.body.prefix(80))")
        let query = (0..<600).map { "p\($0)=1" }.joined(separator: "&")
        let many = try RawHTTPConnection(port: port)
        many.send("GET /health?\(query) HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try many.readResponse().status == 200)
    }

    /// A client that sends half a request and stalls holds only its own connection.
    @Test func halfSentRequestsDoNotBlockOthers() async throws {
        let service = try TestService(.loopback)
        let port = try #require(service.daemon?.port)
        var stalled = [RawHTTPConnection]()
        for _ in 0..<20 {
            let connection = try RawHTTPConnection(port: port)
            connection.send("PUT /b/\(StandInWriter().bucket)/days HTTP/1.1\r\nHost: t\r\nContent-Length: 1000\r\n\r\nhalf")
            stalled.append(connection)
        }
        let half = try RawHTTPConnection(port: port)
        half.send("GET /hea")
        stalled.append(half)
        for _ in 0..<10 {
            #expect(try await service.send(HTTPRequest(method: "GET", target: "/health")).status == 200)
        }
        _ = stalled
    }
}
