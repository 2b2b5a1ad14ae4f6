import EfferentCore
import Foundation

/// The edit queue from both ends (§6, §8): the agent posts and lists, the writer fetches and answers.
extension ArchiveClient {
    /// `POST /b/<b>/edits`: queues sealed edit bytes, signed with the editor key on the service's
    /// clock (and signed again if the service corrects that clock). The answer names the edit.
    public func post(sealed: [UInt8], editor: Ed25519PrivateKey) async throws(ArchiveError) -> QueuedEdit {
        let answer = try await send("POST", base + "/edits", body: sealed, contentType: "application/octet-stream") { now in
            (SealedEdit.sign(sealed, bucket: self.bucket, editor: editor, at: now).headers, [])
        }
        guard let json = try? JSONParser.parse(answer.body), let text = json["name"]?.stringValue, let name = try? EditName(text) else {
            throw .unexpectedAnswer("an edit answer without a name")
        }
        return QueuedEdit(name: name, at: json["at"]?.stringValue ?? "", bytes: Int(json["bytes"]?.integerValue ?? 0))
    }

    /// Every edit after `after` (pending only, or with `all` the answered ones too), following `next`.
    public func edits(all: Bool = false, after: EditName? = nil, readKey: Ed25519PrivateKey,
                      maxPages: Int = 100) async throws(ArchiveError) -> [ListedEdit] {
        var result = [ListedEdit]()
        var cursor = after
        for _ in 0..<maxPages {
            var target = base + "/edits?status=" + (all ? "all" : "pending")
            if let cursor { target += "&after=\(cursor)" }
            let answer = try await read(target, readKey: readKey)
            guard let json = try? JSONParser.parse(answer.body), let list = json["edits"]?.arrayValue else {
                throw .unexpectedAnswer("an edit listing without an edits list")
            }
            for entry in list {
                guard let text = entry["name"]?.stringValue, let name = try? EditName(text),
                      let status = entry["status"]?.stringValue else {
                    throw .unexpectedAnswer("an edit listing entry without name and status")
                }
                if let last = result.last, last.name >= name { throw .unexpectedAnswer("an edit listing whose names do not ascend") }
                result.append(ListedEdit(name: name, status: status, at: entry["at"]?.stringValue ?? "",
                                         bytes: Int(entry["bytes"]?.integerValue ?? 0),
                                         applied: entry["applied"]?.integerValue.map(Int.init),
                                         failed: (entry["failed"] ?? entry["refused"])?.integerValue.map(Int.init)))
            }
            guard let next = json["next"]?.stringValue else { return result }
            guard let name = try? EditName(next), cursor.map({ name > $0 }) ?? true else {
                throw .unexpectedAnswer("an edit listing whose next does not move forward")
            }
            cursor = name
        }
        throw .unexpectedAnswer("an edit listing longer than \(maxPages) pages")
    }

    /// `GET /b/<b>/o/<name>`: what the writer answered for an edit, or nil if it has not yet.
    public func outcome(of name: EditName, readKey: Ed25519PrivateKey) async throws(ArchiveError) -> EditOutcome? {
        do throws(ArchiveError) {
            let answer = try await read(base + "/o/\(name)", readKey: readKey)
            do { return try EditOutcome(decoding: answer.body, allowingServiceMembers: true) } catch {
                throw .unexpectedAnswer("an outcome the service should not have stored (\(error.description))")
            }
        } catch where error.status == 404 {
            return nil
        }
    }

    /// `GET /b/<b>/e/<name>` signed by the writer: the sealed edit with its editor's headers, or
    /// nil when it was answered meanwhile (410) or is gone (404). Headers that do not parse come
    /// back as nil `headers`, to be answered `badSignature`.
    public func fetchEdit(_ name: EditName, writer: Ed25519PrivateKey) async throws(ArchiveError) -> FetchedEdit? {
        let target = base + "/e/\(name)"
        let answer: ClientResponse
        do throws(ArchiveError) {
            answer = try await send("GET", target) { now in
                (SignedHeaders(signing: SignedMessage.fetch(bucket: self.bucket, name: name, timestamp: now), with: writer,
                               role: .writer, timestamp: now), [])
            }
        } catch where error.status == 404 || error.status == 410 {
            return nil
        }
        var headers: SignedHeaders?
        if let keyText = answer.headers["x-efferent-editor"], let raw = Base64URL.decode(keyText),
           let key = try? Ed25519PublicKey(rawRepresentation: raw),
           let signatureText = answer.headers["x-efferent-signature"], let signature = Base64URL.decode(signatureText),
           signature.count == 64, let timestamp = answer.headers["x-efferent-timestamp"].flatMap({ Int64($0) }) {
            headers = SignedHeaders(role: .editor, key: key, signature: signature, timestamp: timestamp)
        }
        return FetchedEdit(name: name, sealed: answer.body, headers: headers)
    }

    /// `PUT /b/<b>/e/<name>/outcome`: the writer's answer; the service then drops the sealed edit.
    public func answer(_ name: EditName, with outcome: EditOutcome, writer: Ed25519PrivateKey) async throws(ArchiveError) {
        let body = outcome.encoded
        _ = try await send("PUT", base + "/e/\(name)/outcome", body: body, contentType: "application/json") { now in
            (SignedHeaders(signing: SignedMessage.outcome(bucket: self.bucket, name: name, timestamp: now, body: body),
                           with: writer, role: .writer, timestamp: now), [])
        }
    }
}

/// `201 {"name","at","bytes"}`.
public struct QueuedEdit: Sendable, Equatable {
    public let name: EditName
    public let at: String
    public let bytes: Int
}

/// One entry of `GET /edits`: `pending`, or `applied` / `partial` / `failed` with the counts.
public struct ListedEdit: Sendable, Equatable {
    public let name: EditName
    public let status: String
    public let at: String
    public let bytes: Int
    public let applied: Int?
    public let failed: Int?
}

/// A queued edit as the writer fetched it.
public struct FetchedEdit: Sendable {
    public let name: EditName
    public let sealed: [UInt8]
    public let headers: SignedHeaders?

    public init(name: EditName, sealed: [UInt8], headers: SignedHeaders?) {
        self.name = name
        self.sealed = sealed
        self.headers = headers
    }
}
