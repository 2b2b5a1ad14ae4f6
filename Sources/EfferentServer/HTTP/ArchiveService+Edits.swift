import EfferentCore
import EfferentHTTP
import Foundation

/// The edit queue (§8): an agent posts sealed edits, the writer fetches and answers them.
extension ArchiveHandlers {
    /// `POST /b/<b>/edits`: a sealed edit signed by the registered editor key.
    func postEdit(_ id: BucketID, _ request: HTTPRequest) throws -> HTTPResponse {
        try rateLimit(.edits, request)
        guard request.body.first == SealedEnvelope.version2, request.body.count > SealedEnvelope.overhead else {
            throw ServiceError(400, "an edit is sealed in envelope version 2")
        }
        let headers = try verify(.editor, request) { SignedMessage.edit(bucket: id, timestamp: $0, sealed: request.body) }
        let edit = IncomingEdit(sealed: request.body, editor: headers.key, signature: headers.signature, timestamp: headers.timestamp)
        switch try store.enqueueEdit(id, edit: edit, quota: configuration.quota, now: now) {
        case let .queued(name, at):
            return Self.json(201, .object(["name": .string(name.rawValue), "at": .string(ISOTime.milliseconds(at)),
                                           "bytes": .number(Double(request.body.count))]))
        case .noEditor: throw ServiceError(403, "no editor is registered for this bucket")
        case .notTheEditor: throw ServiceError(403, "that is not this bucket's editor")
        case let .queueFull(pending):
            throw ServiceError(429, "\(pending) edits are waiting for this phone, and 500 is all the queue holds", retryAfter: 60)
        case .bucketFull: throw ServiceError.bucketFull(configuration.quota)
        case .serviceFull: throw ServiceError.serviceFull
        }
    }

    /// `GET /b/<b>/edits?after=&limit=&status=pending|all`.
    func listEdits(_ id: BucketID, _ request: HTTPRequest) throws -> HTTPResponse {
        let query = try Query(request.query)
        let limit = try query.integer("limit", in: 1...ProtocolLimits.maxEditsPage, default: ProtocolLimits.maxEditsPage)
        let status = query["status"] ?? "pending"
        guard status == "pending" || status == "all" else { throw ServiceError(400, "status must be pending or all") }
        var after: EditName?
        if let text = query["after"] {
            guard let name = try? EditName(text) else { throw ServiceError(400, "after must be an edit name") }
            after = name
        }
        try authorizeRead(id, request)
        let rows = try store.listEdits(id, after: after, limit: limit + 1, includeAnswered: status == "all")
        let page = rows.prefix(limit)
        let edits = page.map { entry -> JSONValue in
            var object: [String: JSONValue] = ["name": .string(entry.name.rawValue), "bytes": .number(Double(entry.bytes)),
                                               "at": .string(ISOTime.milliseconds(entry.at))]
            if let applied = entry.applied, let failed = entry.failed {
                object["status"] = .string(failed == 0 ? "applied" : applied == 0 ? "failed" : "partial")
                object["applied"] = .number(Double(applied))
                object["failed"] = .number(Double(failed))
            } else {
                object["status"] = .string("pending")
            }
            return .object(object)
        }
        let next: JSONValue = rows.count > limit ? .string(page.last!.name.rawValue) : .null
        return Self.json(200, .object(["edits": .array(edits), "next": next]))
    }

    /// `GET /b/<b>/e/<name>`: the writer fetches a queued edit with the editor's own signature.
    func fetchEdit(_ id: BucketID, _ name: EditName, _ request: HTTPRequest) throws -> HTTPResponse {
        let headers = try verify(.writer, request) { SignedMessage.fetch(bucket: id, name: name, timestamp: $0) }
        guard let bucket = try store.bucket(id) else { throw ServiceError.noSuchEdit }
        guard bucket.writer == headers.key else { throw ServiceError.anotherWriter }
        switch try store.edit(id, name: name) {
        case .unknown: throw ServiceError.noSuchEdit
        case .answered: throw ServiceError.editApplied
        case let .pending(sealed, editor, signature, timestamp, at):
            return HTTPResponse(status: 200, headers: [
                ("Content-Type", "application/octet-stream"),
                ("x-efferent-editor", Base64URL.encode(editor.rawRepresentation)),
                ("x-efferent-signature", Base64URL.encode(signature)),
                ("x-efferent-timestamp", String(timestamp)),
                ("Last-Modified", ISOTime.httpDate(at)),
            ], body: sealed)
        }
    }

    /// `PUT /b/<b>/e/<name>/outcome`: records the writer's answer and drops the sealed edit.
    func answerEdit(_ id: BucketID, _ name: EditName, _ request: HTTPRequest) throws -> HTTPResponse {
        try rateLimit(.writes, request)
        let headers = try verify(.writer, request) { SignedMessage.outcome(bucket: id, name: name, timestamp: $0, body: request.body) }
        let outcome: EditOutcome
        do {
            outcome = try EditOutcome(decoding: request.body)
        } catch {
            throw ServiceError(400, "malformed outcome: \(error.description)")
        }
        guard let bucket = try store.bucket(id) else { throw ServiceError(404, "this edit was never queued here") }
        guard bucket.writer == headers.key else { throw ServiceError.anotherWriter }
        switch try store.answerEdit(id, name: name, outcome: outcome, outcomeBytes: request.body, now: now) {
        case .recorded:
            return Self.json(200, .object(["name": .string(name.rawValue), "applied": .number(Double(outcome.applied)),
                                           "failed": .number(Double(outcome.failed.count))]))
        case .unknown: throw ServiceError(404, "this edit was never queued here")
        }
    }

    /// `GET /b/<b>/o/<name>`: the recorded outcome, with the edit's size and when it was answered.
    func outcome(_ id: BucketID, _ name: EditName, _ request: HTTPRequest) throws -> HTTPResponse {
        try authorizeRead(id, request)
        guard let stored = try store.outcome(id, name: name) else { throw ServiceError.noSuchOutcome }
        let failed = stored.outcome.failed.map { JSONValue.object(["item": .number(Double($0.item)), "code": .string($0.code.rawValue)]) }
        return Self.json(200, .object(["applied": .number(Double(stored.outcome.applied)), "failed": .array(failed),
                                       "bytes": .number(Double(stored.bytes)), "at": .string(ISOTime.milliseconds(stored.at))]))
    }
}
