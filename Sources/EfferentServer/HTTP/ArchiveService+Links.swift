import EfferentCore
import EfferentCrypto
import EfferentHTTP
import Foundation

/// The owner's side of shared links (decision A.15): make a link, upload its encrypted files,
/// publish them, list and revoke — each signed by the archive's read key, as reads are, over
/// `SignedMessage.link` (method, target and body), on routes off Efferent's own (`/shl/b/…`).
extension ArchiveHandlers {
    /// Only a request signed by the bucket's registered read key manages its links.
    func authorizeLinks(_ id: BucketID, _ request: HTTPRequest) throws {
        guard let reader = try store.bucket(id)?.reader else {
            throw ServiceError(403, "this archive has no read key registered, which signs its shared links; efferent init registers one")
        }
        let headers = try verify(.reader, request) {
            SignedMessage.link(bucket: id, method: request.method, target: request.target, timestamp: $0, body: request.body)
        }
        guard headers.key == reader else { throw ServiceError.foreignReadKey }
    }

    /// `PUT /shl/b/<b>/l/<link>` `{"expires": <unix s>, "longTerm": bool, "passcode": "…"}`: makes the link
    /// (201), or finds it again (200, changing nothing: a retry after a lost answer).
    func createLink(_ bucket: BucketID, _ link: LinkID, _ request: HTTPRequest) throws -> HTTPResponse {
        try rateLimit(.writes, request)
        let body = try Self.jsonObject(request.body, what: "a link's settings")
        guard let expires = body["expires"]?.integerValue else {
            throw ServiceError(400, "a link needs expires, its end in Unix seconds")
        }
        let seconds = nowSeconds
        guard expires > seconds, expires - seconds <= LinkLimits.maxLifetimeSeconds else {
            throw ServiceError(400, "expires must be in the future and at most \(LinkLimits.maxLifetimeSeconds / 86_400) days away")
        }
        var longTerm = false
        if let member = body["longTerm"] {
            guard case let .bool(value) = member else { throw ServiceError(400, "longTerm is true or false") }
            longTerm = value
        }
        var passcode: String?
        if let member = body["passcode"] {
            guard let text = member.stringValue, LinkLimits.passcodeBytes.contains(text.utf8.count) else {
                throw ServiceError(400, "a passcode is text of \(LinkLimits.passcodeBytes.lowerBound) to \(LinkLimits.passcodeBytes.upperBound) bytes")
            }
            passcode = text
        }
        try authorizeLinks(bucket, request)
        // Only its Argon2id string is kept; the passcode itself goes no further than this.
        let hash = try passcode.map { text in try passcodes.run { try Sodium.passwordHash(text) } }
        switch try store.createLink(link, bucket: bucket, link: NewLink(expires: expires * 1000, longTerm: longTerm, passcodeHash: hash), now: now) {
        case .created:
            sweeper.nudge()
            return Self.json(201, .object(["link": .string(link.rawValue), "created": .bool(true)]))
        case .exists: return Self.json(200, .object(["link": .string(link.rawValue), "created": .bool(false)]))
        case .noReader: throw ServiceError(403, "this archive has no read key registered, which signs its shared links; efferent init registers one")
        case .takenByAnother: throw ServiceError(409, "another archive's link has this id; draw a new random one")
        case let .tooMany(live):
            throw ServiceError(409, "this archive has \(live) live links, the most it may hold; revoke some first (efferent share revoke)")
        }
    }

    /// `PUT /shl/b/<b>/l/<link>/f/<version>/<n>`: one encrypted file, compact JWE text.
    func uploadLinkFile(_ bucket: BucketID, _ link: LinkID, _ version: Int, _ index: Int, _ request: HTTPRequest) throws -> HTTPResponse {
        try rateLimit(.writes, request)
        try Self.checkCompactJWE(request.body)
        try authorizeLinks(bucket, request)
        switch try store.storeLinkFile(link, bucket: bucket, file: UploadedLinkFile(version: version, index: index, jwe: request.body),
                                       quota: configuration.quota, now: now) {
        case .stored: return Self.json(200, .object(["bytes": .number(Double(request.body.count))]))
        case .noSuchLink: throw ServiceError(404, "this archive has no such link")
        case let .ended(end): throw Self.ownerEnded(end)
        case .published: throw ServiceError(409, "version \(version) is the one published; upload new files under a new version")
        case .bucketFull: throw ServiceError.bucketFull(configuration.quota)
        case .serviceFull: throw ServiceError.serviceFull
        }
    }

    /// `POST /shl/b/<b>/l/<link>/publish` `{"version": v, "files": n}`: the manifest lists files
    /// `0..<n` of version `v` from now on; every other version's files are deleted.
    func publishLink(_ bucket: BucketID, _ link: LinkID, _ request: HTTPRequest) throws -> HTTPResponse {
        try rateLimit(.writes, request)
        let body = try Self.jsonObject(request.body, what: "a publish request")
        guard let version = body["version"]?.integerValue, version >= 1, version <= Int64(Int32.max),
              let files = body["files"]?.integerValue, files >= 1, files <= Int64(LinkLimits.maxFiles) else {
            throw ServiceError(400, "publish takes version (a whole number from 1) and files (1 to \(LinkLimits.maxFiles))")
        }
        try authorizeLinks(bucket, request)
        switch try store.publishLink(link, bucket: bucket, version: Int(version), files: Int(files), now: now) {
        case let .published(count, bytes):
            return Self.json(200, .object(["version": .number(Double(version)), "files": .number(Double(count)), "bytes": .number(Double(bytes))]))
        case .noSuchLink: throw ServiceError(404, "this archive has no such link")
        case let .ended(end): throw Self.ownerEnded(end)
        case let .missing(index): throw ServiceError(409, "file \(index) of version \(version) has not been uploaded; upload it, then publish")
        case .final: throw ServiceError(409, "only a long-term link's files may be replaced; make a new link instead")
        }
    }

    /// `DELETE /shl/b/<b>/l/<link>`: the link ends now and its files are deleted.
    func revokeLink(_ bucket: BucketID, _ link: LinkID, _ request: HTTPRequest) throws -> HTTPResponse {
        try rateLimit(.writes, request)
        try authorizeLinks(bucket, request)
        switch try store.revokeLink(link, bucket: bucket, now: now) {
        case .revoked: return Self.json(200, .object(["link": .string(link.rawValue), "revoked": .bool(true)]))
        case .alreadyEnded: return Self.json(200, .object(["link": .string(link.rawValue), "revoked": .bool(false)]))
        case .noSuchLink: throw ServiceError(404, "this archive has no such link")
        }
    }

    /// `GET /shl/b/<b>/links`: every link of the archive with what the service knows of it.
    func listLinks(_ bucket: BucketID, _ request: HTTPRequest) throws -> HTTPResponse {
        try authorizeLinks(bucket, request)
        let nowMs = Int64((now.timeIntervalSince1970 * 1000).rounded(.down))
        let links = try store.links(of: bucket).map { link -> JSONValue in
            var object: [String: JSONValue] = [
                "link": .string(link.id.rawValue), "created": .string(ISOTime.milliseconds(link.created)),
                "expires": .string(ISOTime.milliseconds(link.expires)), "longTerm": .bool(link.longTerm), "passcode": .bool(link.passcode),
                "failures": .number(Double(link.failures)), "files": .number(Double(link.files)), "bytes": .number(Double(link.bytes)),
                "opened": .number(Double(link.opened)),
                "accesses": .array(link.accesses.map { .object(["at": .string(ISOTime.milliseconds($0.at)), "recipient": .string($0.recipient)]) }),
            ]
            object["version"] = link.version.map { .number(Double($0)) } ?? .null
            object["published"] = link.published.map { .string(ISOTime.milliseconds($0)) } ?? .null
            switch link.ended ?? (link.expires <= nowMs ? .expired(at: link.expires) : nil) {
            case let .revoked(at)?: object["status"] = .string("revoked"); object["ended"] = .string(ISOTime.milliseconds(at))
            case let .locked(at)?: object["status"] = .string("locked"); object["ended"] = .string(ISOTime.milliseconds(at))
            case let .expired(at)?: object["status"] = .string("expired"); object["ended"] = .string(ISOTime.milliseconds(at))
            case nil: object["status"] = .string(link.version == nil ? "preparing" : "active")
            }
            return .object(object)
        }
        return Self.json(200, .object(["links": .array(links)]))
    }

    static func ownerEnded(_ end: LinkEnd) -> ServiceError {
        switch end {
        case .revoked: ServiceError(410, "this link has been revoked; make a new one")
        case .locked: ServiceError(410, "this link was locked after \(LinkLimits.passcodeAttempts) wrong passcodes; make a new one")
        case .expired: ServiceError(410, "this link has expired; make a new one")
        }
    }

    /// A JSON object body, or a 400 naming what it should have been.
    static func jsonObject(_ body: [UInt8], what: String) throws -> [String: JSONValue] {
        guard let value = try? JSONParser.parse(body), case let .object(members) = value else {
            throw ServiceError(400, "\(what) is a JSON object")
        }
        return members
    }

    /// The service cannot open a file, but it can see that it is compact JWE with a direct key and
    /// AES-256-GCM, as the IG says every file is: anything else is refused before it is stored.
    static func checkCompactJWE(_ body: [UInt8]) throws {
        let refusal = ServiceError(400, "a link's file is compact JWE text with alg dir and enc A256GCM")
        guard !body.isEmpty, body.allSatisfy({ $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
            || ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) }) else { throw refusal }
        let parts = body.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 5, parts[1].isEmpty, let header = Base64URL.decode(String(decoding: parts[0], as: UTF8.self)),
              let json = try? JSONParser.parse(header), json["alg"]?.stringValue == JWE.algorithm,
              json["enc"]?.stringValue == JWE.encryption else { throw refusal }
    }
}
