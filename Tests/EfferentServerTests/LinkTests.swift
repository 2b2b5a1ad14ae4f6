import EfferentCore
import EfferentCrypto
import EfferentHTTP
@testable import EfferentServer
import EfferentSQLite
import EfferentTestSupport
import Foundation
import Testing

/// Shared links on the service (decision A.15): the owner's routes signed by the read key, the
/// SMART Health Links IG's manifest and file routes, expiry, revocation and the passcode count,
/// on both stores, in process and over loopback.
@Suite struct LinkTests {
    /// A claimed archive with its read key registered, and a link's worth of requests.
    struct Owner {
        var writer: StandInWriter
        var bucket: BucketID { writer.bucket }

        init(clock: Double) { writer = StandInWriter(clock: Int64(clock)) }

        func signed(_ method: String, _ target: String, body: [UInt8] = [], key: Ed25519PrivateKey? = nil) -> HTTPRequest {
            writer.signed(method, target, body: body, role: .reader, key: key ?? writer.reading.readKey) {
                SignedMessage.link(bucket: bucket, method: method, target: target, timestamp: $0, body: body)
            }
        }

        func create(_ id: LinkID, expires: Int64, longTerm: Bool = false, passcode: String? = nil) -> HTTPRequest {
            var members: [String: JSONValue] = ["expires": .number(Double(expires)), "longTerm": .bool(longTerm)]
            if let passcode { members["passcode"] = .string(passcode) }
            return signed("PUT", "/shl/b/\(bucket)/l/\(id)", body: try! JSONValue.object(members).canonicalBytes())
        }

        func upload(_ id: LinkID, version: Int = 1, index: Int = 0, jwe: String) -> HTTPRequest {
            signed("PUT", "/shl/b/\(bucket)/l/\(id)/f/\(version)/\(index)", body: Array(jwe.utf8))
        }

        func publish(_ id: LinkID, version: Int = 1, files: Int = 1) -> HTTPRequest {
            signed("POST", "/shl/b/\(bucket)/l/\(id)/publish",
                   body: try! JSONValue.object(["version": .number(Double(version)), "files": .number(Double(files))]).canonicalBytes())
        }
    }

    static func setUp(_ service: TestService) async throws -> Owner {
        let owner = Owner(clock: service.clockSeconds)
        #expect(try await service.send(owner.writer.claim()).status == 201)
        #expect(try await service.send(owner.writer.registerReader()).status == 201)
        return owner
    }

    static func manifest(_ id: LinkID, recipient: String? = "Dr Test", passcode: String? = nil, embeddedLengthMax: Int? = nil) -> HTTPRequest {
        var members = [String: JSONValue]()
        if let recipient { members["recipient"] = .string(recipient) }
        if let passcode { members["passcode"] = .string(passcode) }
        if let embeddedLengthMax { members["embeddedLengthMax"] = .number(Double(embeddedLengthMax)) }
        return HTTPRequest(method: "POST", target: "/shl/\(id)", headers: ["content-type": "application/json"],
                           body: try! JSONValue.object(members).canonicalBytes())
    }

    static let key = SHLink.newKey()
    static let plaintext = Array(#"{"resourceType":"Bundle","type":"collection","entry":[]}"#.utf8)
    static func sealed() throws -> String { try JWE.seal(plaintext, key: key, contentType: "application/fhir+json") }

    /// A published link of one file; returns its id and the file's compact JWE.
    static func publishedLink(_ service: TestService, _ owner: Owner, passcode: String? = nil, longTerm: Bool = false,
                              lifetime: Int64 = 86_400) async throws -> (LinkID, String) {
        let id = LinkID.make()
        let jwe = try sealed()
        #expect(try await service.send(owner.create(id, expires: Int64(service.clockSeconds) + lifetime, longTerm: longTerm,
                                                    passcode: passcode)).status == 201)
        #expect(try await service.send(owner.upload(id, jwe: jwe)).status == 200)
        #expect(try await service.send(owner.publish(id)).status == 200)
        return (id, jwe)
    }

    @Test(arguments: ServiceKind.allCases)
    func aLinkIsMadeUploadedPublishedAndOpened(_ kind: ServiceKind) async throws {
        let service = try TestService(kind)
        var owner = try await Self.setUp(service)
        let id = LinkID.make()
        let expires = Int64(service.clockSeconds) + 86_400
        // Before a publish the manifest answers, as the IG asks of a link not active, 404.
        #expect(try await service.send(owner.create(id, expires: expires)).status == 201)
        #expect(try await service.send(owner.create(id, expires: expires)).status == 200, "a retry finds the link made")
        #expect(try await service.send(Self.manifest(id)).status == 404)
        let jwe = try Self.sealed()
        #expect(try await service.send(owner.upload(id, jwe: jwe)).status == 200)
        let missing = try await service.send(owner.publish(id, files: 2))
        #expect(missing.status == 409 && missing.error == "file 1 of version 1 has not been uploaded; upload it, then publish")
        #expect(try await service.send(owner.publish(id)).status == 200)

        // Embedded by default (a small file), as the IG's manifest says.
        let answer = try await service.send(Self.manifest(id))
        #expect(answer.status == 200 && answer.header("content-type") == "application/json")
        #expect(answer.header("access-control-allow-origin") == "*")
        let manifest = try JSONParser.parse(answer.body)
        #expect(manifest["status"]?.stringValue == "finalized")
        let file = try #require(manifest["files"]?.arrayValue?.first)
        #expect(file["contentType"]?.stringValue == "application/fhir+json")
        #expect(file["embedded"]?.stringValue == jwe && file["location"] == nil)
        #expect(try JWE.open(jwe, key: Self.key).plaintext == Self.plaintext)

        // With embeddedLengthMax 0, a location that answers application/jose for an hour.
        let located = try JSONParser.parse(try await service.send(Self.manifest(id, embeddedLengthMax: 0)).body)
        let location = try #require(located["files"]?.arrayValue?.first?["location"]?.stringValue)
        #expect(located["files"]?.arrayValue?.first?["embedded"] == nil)
        let path = try #require(location.range(of: "/shl/f/").map { String(location[$0.lowerBound...]) })
        let fetched = try await service.send(HTTPRequest(method: "GET", target: path))
        #expect(fetched.status == 200 && fetched.header("content-type") == "application/jose" && fetched.body == Array(jwe.utf8))
        service.advanceClock(by: Double(LinkLimits.locationSeconds) + 1)
        owner.writer.clock += LinkLimits.locationSeconds + 1
        let lapsed = try await service.send(HTTPRequest(method: "GET", target: path))
        #expect(lapsed.status == 404 && lapsed.error?.contains("an address lasts an hour") == true)

        // The owner's list: what the service learned, and who opened it.
        let list = try JSONParser.parse(try await service.send(owner.signed("GET", "/shl/b/\(owner.bucket)/links")).body)
        let entry = try #require(list["links"]?.arrayValue?.first)
        #expect(entry["link"]?.stringValue == id.rawValue && entry["status"]?.stringValue == "active")
        #expect(entry["opened"]?.integerValue == 2 && entry["accesses"]?.arrayValue?.first?["recipient"]?.stringValue == "Dr Test")
        #expect(entry["bytes"]?.integerValue == Int64(jwe.utf8.count) && entry["files"]?.integerValue == 1)
    }

    @Test(arguments: ServiceKind.inProcessCases)
    func theOwnersRoutesTakeOnlyItsReadKey(_ kind: ServiceKind) async throws {
        let service = try TestService(kind)
        let owner = try await Self.setUp(service)
        let id = LinkID.make()
        let expires = Int64(service.clockSeconds) + 3600
        let stranger = Ed25519PrivateKey()
        let foreign = try await service.send(owner.signed("PUT", "/shl/b/\(owner.bucket)/l/\(id)",
                                                          body: Array(#"{"expires":\#(expires)}"#.utf8), key: stranger))
        #expect(foreign.status == 403 && foreign.error == "that is not this archive's read key")
        // A read signature (`efferent/v1 read`) does not stand in for a link one.
        let read = owner.writer.read("/shl/b/\(owner.bucket)/links")
        #expect(try await service.send(read).status == 403)
        let unsigned = try await service.send(HTTPRequest(method: "GET", target: "/shl/b/\(owner.bucket)/links"))
        #expect(unsigned.status == 400 && unsigned.error?.contains("missing reader key or signature") == true)
        // An archive with no read key has no links.
        let bare = StandInWriter(clock: Int64(service.clockSeconds))
        #expect(try await service.send(bare.claim()).status == 201)
        let noReader = try await service.send(Owner(clock: service.clockSeconds).signed("GET", "/shl/b/\(bare.bucket)/links"))
        #expect(noReader.status == 403 && noReader.error?.contains("no read key registered") == true)
        // Bad input: each a 4xx with a sentence.
        let past = try await service.send(owner.create(id, expires: expires - 7200))
        #expect(past.status == 400 && past.error?.hasPrefix("expires must be in the future") == true)
        let shortCode = try await service.send(owner.create(id, expires: expires, passcode: "12"))
        #expect(shortCode.status == 400 && shortCode.error?.hasPrefix("a passcode is text of 4 to 256 bytes") == true)
        #expect(try await service.send(owner.create(id, expires: expires)).status == 201)
        let notJWE = try await service.send(owner.upload(id, jwe: "{\"resourceType\":\"Bundle\"}"))
        #expect(notJWE.status == 400 && notJWE.error == "a link's file is compact JWE text with alg dir and enc A256GCM")
        let wrongAlgorithm = try await service.send(owner.upload(id, jwe: Base64URL.encode(Array(#"{"alg":"RSA-OAEP","enc":"A256GCM"}"#.utf8)) + "..a.b.c"))
        #expect(wrongAlgorithm.status == 400)
        let noRecipient = try await service.send(Self.manifest(id, recipient: nil))
        #expect(noRecipient.status == 400 && noRecipient.error?.contains("names its recipient") == true)
        let garbage = try await service.send(HTTPRequest(method: "POST", target: "/shl/\(id)", body: Array("recipient=me".utf8)))
        #expect(garbage.status == 400)
        #expect(try await service.send(Self.manifest(LinkID.make())).status == 404)
        let malformed = try await service.send(HTTPRequest(method: "POST", target: "/shl/not-an-id", body: Array("{}".utf8)))
        #expect(malformed.status == 404 && malformed.error?.hasPrefix("there is no such link") == true)
        // Another archive cannot take an id, nor touch this archive's link.
        let other = try await Self.setUp(service)
        #expect(try await service.send(other.create(id, expires: expires)).status == 409)
        #expect(try await service.send(other.signed("DELETE", "/shl/b/\(other.bucket)/l/\(id)")).status == 404)
    }

    /// The IG: a wrong passcode is 401 with `remainingAttempts`, counted for the link's whole
    /// life; the tenth locks it, and from then on even the right passcode gets the 404 of a link
    /// no longer active. Its files are deleted when it locks.
    @Test(arguments: ServiceKind.allCases)
    func wrongPasscodesCountDownAndTheEleventhFindsTheLinkLocked(_ kind: ServiceKind) async throws {
        let service = try TestService(kind)
        let owner = try await Self.setUp(service)
        let (id, _) = try await Self.publishedLink(service, owner, passcode: "correct horse")
        let none = try await service.send(Self.manifest(id))
        #expect(try none.status == 401 && JSONParser.parse(none.body)["remainingAttempts"]?.integerValue == 10)
        #expect(try await service.send(Self.manifest(id, passcode: "correct horse")).status == 200)
        for attempt in 1...LinkLimits.passcodeAttempts {
            let wrong = try await service.send(Self.manifest(id, passcode: "guess \(attempt)"))
            #expect(wrong.status == 401, "attempt \(attempt)")
            #expect(try JSONParser.parse(wrong.body)["remainingAttempts"]?.integerValue == Int64(LinkLimits.passcodeAttempts - attempt))
            if attempt == 5 {
                #expect(try await service.send(Self.manifest(id, passcode: "correct horse")).status == 200, "a right passcode gives its try back")
            }
        }
        let eleventh = try await service.send(Self.manifest(id, passcode: "correct horse"))
        #expect(eleventh.status == 404 && eleventh.error?.contains("locked after 10 wrong passcodes") == true)
        let list = try JSONParser.parse(try await service.send(owner.signed("GET", "/shl/b/\(owner.bucket)/links")).body)
        #expect(list["links"]?.arrayValue?.first?["status"]?.stringValue == "locked")
        #expect(list["links"]?.arrayValue?.first?["failures"]?.integerValue == 10)
        #expect(try Self.fileCount(service, id) == 0, "a locked link's files are deleted")
    }

    /// Parallel tries are counted before they are checked: however many arrive at once, no more
    /// than ten are ever checked, and the count lands exactly on the limit.
    @Test(arguments: ServiceKind.loopbackCases)
    func parallelWrongPasscodesNeverPassTheLifetimeCount(_ kind: ServiceKind) async throws {
        let service = try TestService(kind)
        let owner = try await Self.setUp(service)
        let (id, _) = try await Self.publishedLink(service, owner, passcode: "1234")
        let statuses = try await withThrowingTaskGroup(of: (Int, Int64?).self) { group in
            for attempt in 0..<24 {
                group.addTask {
                    let answer = try await service.send(Self.manifest(id, passcode: "wrong \(attempt)"))
                    return (answer.status, try? JSONParser.parse(answer.body)["remainingAttempts"]?.integerValue)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.filter { $0.0 == 401 }.count == LinkLimits.passcodeAttempts)
        #expect(statuses.filter { $0.0 == 404 }.count == 24 - LinkLimits.passcodeAttempts)
        #expect(Set(statuses.compactMap(\.1)) == Set((0..<Int64(LinkLimits.passcodeAttempts)).map { $0 }), "each count is answered once")
    }

    /// Expiry is the service's: past `exp` the manifest and every file address answer 404 whatever
    /// the client believes, and the sweep deletes the files.
    @Test(arguments: ServiceKind.allCases)
    func anExpiredLinkAnswersNothingAndItsFilesAreDeleted(_ kind: ServiceKind) async throws {
        let service = try TestService(kind)
        var owner = try await Self.setUp(service)
        let (id, _) = try await Self.publishedLink(service, owner, lifetime: 600)
        let located = try JSONParser.parse(try await service.send(Self.manifest(id, embeddedLengthMax: 0)).body)
        let location = try #require(located["files"]?.arrayValue?.first?["location"]?.stringValue)
        let path = String(location[location.range(of: "/shl/f/")!.lowerBound...])
        service.advanceClock(by: 601)
        owner.writer.clock += 601
        let expired = try await service.send(Self.manifest(id))
        #expect(expired.status == 404 && expired.error?.contains("this link expired on") == true)
        #expect(try await service.send(HTTPRequest(method: "GET", target: path)).status == 404, "its address died with it")
        #expect(try Self.fileCount(service, id) == 1, "before the sweep the file is still stored")
        let sweep = try #require(service.service.linkSweeper.sweep())
        #expect(sweep.expired == 1 && sweep.files == 1)
        #expect(try Self.fileCount(service, id) == 0)
        #expect(try await service.send(owner.upload(id, version: 2, jwe: try Self.sealed())).status == 410)
    }

    @Test(arguments: ServiceKind.allCases)
    func aRevokedLinkAnswersNothing(_ kind: ServiceKind) async throws {
        let service = try TestService(kind)
        let owner = try await Self.setUp(service)
        let (id, _) = try await Self.publishedLink(service, owner)
        let revoked = try await service.send(owner.signed("DELETE", "/shl/b/\(owner.bucket)/l/\(id)"))
        #expect(try revoked.status == 200 && JSONParser.parse(revoked.body)["revoked"] == .bool(true))
        let again = try await service.send(owner.signed("DELETE", "/shl/b/\(owner.bucket)/l/\(id)"))
        #expect(try again.status == 200 && JSONParser.parse(again.body)["revoked"] == .bool(false))
        let manifest = try await service.send(Self.manifest(id))
        #expect(manifest.status == 404 && manifest.error?.contains("revoked it on") == true)
        #expect(try Self.fileCount(service, id) == 0)
    }

    /// A long-term link's files are replaced by a new version, published whole; any other link
    /// is published once.
    @Test(arguments: ServiceKind.inProcessCases)
    func aLongTermLinkIsReplacedByVersions(_ kind: ServiceKind) async throws {
        let service = try TestService(kind)
        let owner = try await Self.setUp(service)
        let (fixed, _) = try await Self.publishedLink(service, owner)
        #expect(try await service.send(owner.upload(fixed, version: 2, jwe: try Self.sealed())).status == 200)
        #expect(try await service.send(owner.publish(fixed, version: 2)).status == 409)
        let (id, first) = try await Self.publishedLink(service, owner, longTerm: true)
        #expect(try JSONParser.parse(try await service.send(Self.manifest(id)).body)["status"]?.stringValue == "can-change")
        #expect(try await service.send(owner.upload(id, version: 1, jwe: first)).status == 409, "the published version stays as it is")
        let second = try Self.sealed(), third = try Self.sealed()
        #expect(try await service.send(owner.upload(id, version: 2, index: 0, jwe: second)).status == 200)
        #expect(try await service.send(owner.upload(id, version: 2, index: 1, jwe: third)).status == 200)
        // Until version 2 is published the manifest lists version 1.
        #expect(try JSONParser.parse(try await service.send(Self.manifest(id)).body)["files"]?.arrayValue?.first?["embedded"]?.stringValue == first)
        #expect(try await service.send(owner.publish(id, version: 2, files: 2)).status == 200)
        let files = try JSONParser.parse(try await service.send(Self.manifest(id)).body)["files"]?.arrayValue ?? []
        #expect(files.map { $0["embedded"]?.stringValue } == [second, third])
        #expect(try Self.fileCount(service, id) == 2, "version 1's file was deleted")
    }

    /// Link files count against the archive's tally like any upload; a full one is 507.
    @Test(arguments: ServiceKind.inProcessCases)
    func filesCountAgainstTheTally(_ kind: ServiceKind) async throws {
        let service = try TestService(kind, quota: Quota(bucketBytes: 1000))
        let owner = try await Self.setUp(service)
        let id = LinkID.make()
        #expect(try await service.send(owner.create(id, expires: Int64(service.clockSeconds) + 3600)).status == 201)
        let big = try JWE.seal(Sodium.randomBytes(2000), key: Self.key, contentType: "application/fhir+json")
        let refused = try await service.send(owner.upload(id, jwe: big))
        #expect(refused.status == 507)
    }

    @Test(arguments: ServiceKind.inProcessCases)
    func manifestRequestsAreRateLimited(_ kind: ServiceKind) async throws {
        let service = try TestService(kind, rateLimits: RateLimits(links: 3))
        let owner = try await Self.setUp(service)
        let (id, _) = try await Self.publishedLink(service, owner)
        for _ in 0..<3 { #expect(try await service.send(Self.manifest(id)).status == 200) }
        let limited = try await service.send(Self.manifest(id))
        #expect(limited.status == 429 && limited.header("retry-after") != nil)
    }

    /// The viewer: the embedded page, script and styles, served with a CSP that lets it run only
    /// its own code and talk only to this service.
    @Test func theViewerIsServedWithAStrictPolicy() async throws {
        let service = try TestService(.inProcess)
        for path in ["/share", "/share/", "/share/viewer.js", "/share/viewer.css", "/share/favicon.svg"] {
            let answer = try await service.send(HTTPRequest(method: "GET", target: path))
            #expect(answer.status == 200, "\(path)")
            #expect(answer.header("content-security-policy")?.contains("default-src 'none'; script-src 'self'") == true)
            #expect(answer.header("referrer-policy") == "no-referrer")
        }
        let page = String(decoding: try await service.send(HTTPRequest(method: "GET", target: "/share")).body, as: UTF8.self)
        #expect(page.contains("/share/viewer.js") && !page.contains("<script>") && !page.contains("style="))
    }

    /// Every embedded file is the one in Assets/viewer (scripts/embed-viewer writes them).
    @Test func embeddedViewerFilesMatchTheirSources() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/EfferentServer/Assets/viewer")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names == ViewerAssets.sources.keys.sorted())
        for name in names {
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            #expect(text == ViewerAssets.sources[name], "\(name) differs from its embedded copy: run scripts/embed-viewer")
        }
    }

    /// After a link ends and the sweep has run, the SQLite folder holds none of its ciphertext:
    /// not in the database, not in a free page (secure_delete), not in the write-ahead log.
    @Test func anEndedLinksCiphertextLeavesTheFolder() async throws {
        let service = try TestService(.inProcess)
        let owner = try await Self.setUp(service)
        let (expiring, first) = try await Self.publishedLink(service, owner, lifetime: 60)
        let (revoked, second) = try await Self.publishedLink(service, owner)
        func folderHolds(_ jwe: String) throws -> Bool {
            let marker = Data(jwe.utf8.suffix(64))
            return try FileManager.default.contentsOfDirectory(atPath: service.directory).contains { name in
                (try? Data(contentsOf: URL(fileURLWithPath: service.directory + "/" + name)))?.range(of: marker) != nil
            }
        }
        #expect(try folderHolds(first) && folderHolds(second), "the files were stored")
        #expect(try await service.send(owner.signed("DELETE", "/shl/b/\(owner.bucket)/l/\(revoked)")).status == 200)
        service.advanceClock(by: 61)
        #expect(service.service.linkSweeper.sweep()?.expired == 1)
        _ = expiring
        #expect(try !folderHolds(first) && !folderHolds(second))
    }

    static func fileCount(_ service: TestService, _ id: LinkID) throws -> Int {
        if let sqlite = service.store as? SQLiteArchiveStore {
            return try sqlite.read { db in
                Int(try db.statement("SELECT count(*) FROM link_file WHERE link = ?").first([.text(id.rawValue)]) { $0.int64(0) } ?? 0)
            }
        }
        let postgres = try #require(service.store as? PostgresArchiveStore)
        return try postgres.use { db in Int(try db.query("SELECT count(*) FROM link_file WHERE link = $1::text", [.text(id.rawValue)]).int64(0, 0)) }
    }
}
