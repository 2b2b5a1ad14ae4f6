import EfferentCore
import Foundation

/// The archive's shared links from the owner's side (decision A.15): every request signed with
/// the read key over `SignedMessage.link`, on the service's link routes (`/shl/b/<bucket>/…`).
extension ArchiveClient {
    var linkBase: String { LinkLimits.routePrefix + "/b/\(bucket)" }

    /// The manifest URL of link `id` on this service: what a SMART Health Link's `url` names.
    public func manifestURL(_ id: LinkID) -> String { endpoint + LinkLimits.routePrefix + "/" + id.rawValue }

    /// The viewer's address on this service (a link goes after it as `#shlink:/…`).
    public var viewerURL: String { endpoint + LinkLimits.viewerPath }

    func linkRequest(_ method: String, _ target: String, body: [UInt8] = [], contentType: String? = nil,
                     readKey: Ed25519PrivateKey) async throws(ArchiveError) -> ClientResponse {
        try await send(method, target, body: body, contentType: contentType) { now in
            (SignedHeaders(signing: SignedMessage.link(bucket: self.bucket, method: method, target: target, timestamp: now, body: body),
                           with: readKey, role: .reader, timestamp: now), [])
        }
    }

    /// `PUT /shl/b/<b>/l/<id>`: makes the link (true) or finds it made by an earlier try (false).
    @discardableResult
    public func createLink(_ id: LinkID, expires: Int64, longTerm: Bool, passcode: String?,
                           readKey: Ed25519PrivateKey) async throws(ArchiveError) -> Bool {
        var members: [String: JSONValue] = ["expires": .number(Double(expires)), "longTerm": .bool(longTerm)]
        if let passcode { members["passcode"] = .string(passcode) }
        let body = (try? JSONValue.object(members).canonicalBytes()) ?? []
        let answer = try await linkRequest("PUT", linkBase + "/l/\(id)", body: body, contentType: "application/json", readKey: readKey)
        return answer.status == 201
    }

    /// `PUT /shl/b/<b>/l/<id>/f/<version>/<n>`: one encrypted file (compact JWE).
    public func uploadLinkFile(_ id: LinkID, version: Int, index: Int, jwe: String, readKey: Ed25519PrivateKey) async throws(ArchiveError) {
        _ = try await linkRequest("PUT", linkBase + "/l/\(id)/f/\(version)/\(index)", body: Array(jwe.utf8),
                                  contentType: "application/jose", readKey: readKey)
    }

    /// `POST /shl/b/<b>/l/<id>/publish`: the manifest lists files `0..<files` of `version` from now on.
    public func publishLink(_ id: LinkID, version: Int, files: Int, readKey: Ed25519PrivateKey) async throws(ArchiveError) {
        let body = (try? JSONValue.object(["version": .number(Double(version)), "files": .number(Double(files))]).canonicalBytes()) ?? []
        _ = try await linkRequest("POST", linkBase + "/l/\(id)/publish", body: body, contentType: "application/json", readKey: readKey)
    }

    /// `DELETE /shl/b/<b>/l/<id>`: true when this revoked it, false when it had ended already.
    @discardableResult
    public func revokeLink(_ id: LinkID, readKey: Ed25519PrivateKey) async throws(ArchiveError) -> Bool {
        let answer = try await linkRequest("DELETE", linkBase + "/l/\(id)", readKey: readKey)
        return (try? JSONParser.parse(answer.body))?["revoked"] == .bool(true)
    }

    /// `GET /shl/b/<b>/links`: every link of the archive as the service knows it.
    public func links(readKey: Ed25519PrivateKey) async throws(ArchiveError) -> [ListedLink] {
        let answer = try await linkRequest("GET", linkBase + "/links", readKey: readKey)
        guard let json = try? JSONParser.parse(answer.body), let list = json["links"]?.arrayValue else {
            throw .unexpectedAnswer("a link listing without a links list")
        }
        return try list.map { entry throws(ArchiveError) in
            guard let text = entry["link"]?.stringValue, let id = try? LinkID(text), let status = entry["status"]?.stringValue else {
                throw .unexpectedAnswer("a link listing entry without a link id and status")
            }
            return ListedLink(id: id, status: status, created: entry["created"]?.stringValue ?? "", expires: entry["expires"]?.stringValue ?? "",
                              ended: entry["ended"]?.stringValue, longTerm: entry["longTerm"] == .bool(true), passcode: entry["passcode"] == .bool(true),
                              failures: Int(entry["failures"]?.integerValue ?? 0), files: Int(entry["files"]?.integerValue ?? 0),
                              bytes: Int(entry["bytes"]?.integerValue ?? 0), published: entry["published"]?.stringValue,
                              opened: Int(entry["opened"]?.integerValue ?? 0),
                              accesses: (entry["accesses"]?.arrayValue ?? []).map { ($0["at"]?.stringValue ?? "", $0["recipient"]?.stringValue ?? "") })
        }
    }
}

/// A link as the service lists it: its times and state, who opened it; never its key or label.
public struct ListedLink: Sendable {
    public let id: LinkID
    /// `preparing`, `active`, `expired`, `revoked` or `locked`.
    public let status: String
    public let created: String
    public let expires: String
    public let ended: String?
    public let longTerm: Bool
    public let passcode: Bool
    public let failures: Int
    public let files: Int
    public let bytes: Int
    public let published: String?
    public let opened: Int
    /// The latest openings, newest first: when, and the recipient the viewer named.
    public let accesses: [(at: String, recipient: String)]
}
