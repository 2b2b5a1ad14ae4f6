import EfferentCore
import EfferentHTTP
@testable import EfferentReceiver
import EfferentTestSupport
@testable import EfferentWriter
import Foundation
import Testing

/// The refusals a request's head decides, before a byte of its body is read (Puls Sync Protocol
/// v1 §2.2, §2.4, §7.2, §7.3): token, user, protocol version, encoding; and the failed-token limit
/// that never holds back the right token.
@Suite struct HeadRefusalTests {
    static let probe = PulsBatchText.batch(type: "probe", reason: "manual")
    static let fixedBody = #"{"error":"unsupported protocol version","supportedVersions":[1]}"#

    @Test func tokensDecideWhoMaySend() async throws {
        let harness = try await ReceiverHarness()
        #expect(try harness.post(Self.probe).status == 200)
        let missing = try harness.post(Self.probe, headers: ["Authorization": nil])
        #expect(missing.status == 401 && missing.header("WWW-Authenticate") == "Bearer" && missing.error?.contains("bearer token") == true)
        let wrong = try harness.post(Self.probe, headers: ["Authorization": "Bearer \(String(harness.token.reversed()))"])
        #expect(wrong.status == 401 && wrong.error?.contains("not one this receiver issued") == true)
        let scheme = try harness.post(Self.probe, headers: ["Authorization": "Basic \(harness.token)"])
        #expect(scheme.status == 401)
        #expect(try harness.post(Self.probe, headers: ["Authorization": "bearer \(harness.token)"]).status == 200, "the scheme's case is free")
        #expect(try harness.phones.revokePhone(harness.phoneID))
        let revoked = try harness.post(Self.probe)
        #expect(revoked.status == 401, "a revoked token is refused at once, by a receiver already running")
        #expect(harness.get("/v1/capabilities").status == 401)
        #expect(!harness.log.all.joined().contains(harness.token), "no token in any log line")
    }

    @Test func theUserIDSelectsTheArchiveAndMustBeTheTokens() async throws {
        let harness = try await ReceiverHarness()
        #expect(try harness.post(Self.probe, headers: ["X-User-ID": nil]).status == 200, "absent: the token's own user")
        #expect(try harness.post(Self.probe, headers: ["X-User-ID": harness.user.description.uppercased()]).status == 200)
        let other = try harness.post(Self.probe, headers: ["X-User-ID": "5ea4d000-0000-4000-8000-000000000001"])
        #expect(other.status == 403 && other.error?.contains("another user") == true)
        let malformed = try harness.post(Self.probe, headers: ["X-User-ID": "not-a-uuid"])
        #expect(malformed.status == 400 && malformed.error == "X-User-ID is not a UUID")
        let wake = try harness.post(Self.probe, headers: ["X-Wake-ID": "12345"])
        #expect(wake.status == 400 && wake.error == "X-Wake-ID is not a UUID")
        #expect(try harness.post(Self.probe, headers: ["X-Wake-ID": UUID().uuidString, "X-Wake-Trigger": "anything"]).status == 200)
        #expect(harness.get("/v1/stats", headers: ["X-User-ID": "5ea4d000-0000-4000-8000-000000000001"]).status == 403, "reads too")
    }

    /// §7.3: the fixed body, byte for byte, for any version other than 1 in either place, and when
    /// the two disagree; absent means 1.
    @Test func anUnsupportedVersionGetsTheFixedBody() async throws {
        let harness = try await ReceiverHarness()
        #expect(try harness.post(Self.probe, headers: ["X-Puls-Protocol": nil]).status == 200)
        for version in ["2", "0", "one", "1.0", "", "-1"] {
            let answer = try harness.post(Self.probe, headers: ["X-Puls-Protocol": version])
            #expect(answer.status == 400 && answer.body == Self.fixedBody, "X-Puls-Protocol \(version)")
        }
        for version: JSONValue in [.number(2), .string("1"), .number(1.5), .bool(true)] {
            let batch = Lines.editedHeader(Self.probe) { $0["schemaVersion"] = version }
            let answer = try harness.post(batch)
            #expect(answer.status == 400 && answer.body == Self.fixedBody, "schemaVersion \(version)")
            // Checked before any other header field: a header otherwise broken still gets this body.
            let broken = Lines.editedHeader(batch) { $0["batchID"] = .string("nope") }
            #expect(try harness.post(broken).body == Self.fixedBody)
        }
        let null = Lines.editedHeader(Self.probe) { $0["schemaVersion"] = .null }
        #expect(try harness.post(null).status == 200, "null reads as a client from before versions")
        #expect(harness.get("/v1/capabilities", headers: ["X-Puls-Protocol": "2"]).body == Self.fixedBody, "reads carry it too")
    }

    /// Over a socket: the head alone is answered, with a body declared far over every ceiling and
    /// never sent — the receiver did not wait for a byte of it.
    @Test func headRefusalsComeBeforeTheBody() async throws {
        let harness = try await ReceiverHarness()
        let port = try harness.listen()
        func headOnly(_ headers: String) throws -> RawHTTPConnection.Response {
            let connection = try RawHTTPConnection(port: port)
            connection.send("POST /v1/batches HTTP/1.1\r\nHost: t\r\nContent-Encoding: gzip\r\nContent-Length: 900000000\r\n\(headers)\r\n")
            return try connection.readResponse()
        }
        let version = try headOnly("Authorization: Bearer \(harness.token)\r\nX-Puls-Protocol: 7\r\n")
        #expect(version.status == 400 && version.body == Self.fixedBody)
        #expect(try headOnly("Authorization: Bearer wrong\r\n").status == 401)
        #expect(try headOnly("Authorization: Bearer \(harness.token)\r\nX-User-ID: 5ea4d000-0000-4000-8000-000000000001\r\n").status == 403)
        let encoding = try headOnly("Authorization: Bearer \(harness.token)\r\nContent-Encoding: br\r\n")
        #expect(encoding.status == 400, "Content-Encoding br is malformed input (§7.2), not 415")
        let tooBig = try headOnly("Authorization: Bearer \(harness.token)\r\n")
        #expect(tooBig.status == 413 && tooBig.body.contains("256 MiB"))
    }

    @Test func anUnsupportedEncodingIsMalformed() async throws {
        let harness = try await ReceiverHarness()
        let answer = try harness.post(Self.probe, gzip: false, headers: ["Content-Encoding": "br"])
        #expect(answer.status == 400 && answer.error == ReceiverRefusal.encoding.message)
        #expect(try harness.post(Self.probe, gzip: false, headers: ["Content-Encoding": "identity"]).status == 200)
        #expect(try harness.post(Self.probe, gzip: false).status == 200, "a plain body without Content-Encoding")
    }

    /// Wrong tokens from one address are held back after the limit with 429 and Retry-After; the
    /// right token from that same address is never held back, and other addresses are not touched.
    @Test func wrongTokensAreLimitedPerAddressAndTheRightOneNever() async throws {
        let harness = try await ReceiverHarness(failedAuthentications: 3)
        func request(token: String, from address: String) -> ReceiverHarness.Answer {
            var request = HTTPRequest(method: "GET", target: "/v1/capabilities", headers: ["Authorization": "Bearer \(token)"])
            request.clientAddress = address
            return ReceiverHarness.Answer(harness.receiver.respond(to: request))
        }
        for _ in 0..<3 { #expect(request(token: "guess", from: "198.51.100.7").status == 401) }
        let limited = request(token: "guess", from: "198.51.100.7")
        #expect(limited.status == 429 && Int(limited.header("Retry-After") ?? "") ?? 0 > 0 && limited.error?.contains("wrong token") == true)
        #expect(request(token: harness.token, from: "198.51.100.7").status == 200, "the right token passes while the address is held back")
        #expect(request(token: "guess", from: "198.51.100.8").status == 401, "another address is judged on its own")
        let batch = try harness.post(Self.probe)
        #expect(batch.status == 200)
    }
}
