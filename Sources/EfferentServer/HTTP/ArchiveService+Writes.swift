import EfferentCore
import EfferentCrypto
import EfferentHTTP
import Foundation

/// Claims, uploads and key registrations: everything the writer key signs (§5, §6).
extension ArchiveHandlers {
    /// `PUT /b/<b>`: the first correctly signed claim keeps the bucket (decision A.2 admits it).
    func claim(_ id: BucketID, _ request: HTTPRequest) throws -> HTTPResponse {
        try rateLimit(.claims, request)
        guard request.body.isEmpty else { throw ServiceError(400, "a claim carries no body") }
        let headers = try verify(.writer, request) { SignedMessage.claim(bucket: id, timestamp: $0) }
        var invite: InviteCode?
        if configuration.admission == .invite, try store.bucket(id) == nil {
            guard let code = request.header("x-efferent-invite"), !code.isEmpty else {
                throw ServiceError(403, "this service creates archives by invitation: ask its operator for an invite code and send it as x-efferent-invite")
            }
            invite = InviteCode(hash: Invites.hash(code))
        }
        switch try store.claim(id, writer: headers.key, invite: invite, now: now) {
        case .created: return Self.json(201, .object(["bucket": .string(id.rawValue), "created": .bool(true)]))
        case .alreadyYours: return Self.json(200, .object(["bucket": .string(id.rawValue), "created": .bool(false)]))
        case .anotherWriter: throw ServiceError.anotherWriter
        case .inviteMissing: throw ServiceError(403, "this service creates archives by invitation: send an invite code as x-efferent-invite")
        case .inviteUnknown: throw ServiceError(403, "that invite code is not one this service issued; check it, or ask the operator for another")
        case .inviteUsed: throw ServiceError(403, "that invite code has been used already; ask the operator for a new one")
        case .inviteExpired: throw ServiceError(403, "that invite code has expired; ask the operator for a new one")
        }
    }

    /// `PUT /b/<b>/days`: a signed frame of whole sealed days (§5).
    func upload(_ id: BucketID, _ request: HTTPRequest) throws -> HTTPResponse {
        try rateLimit(.writes, request)
        guard !request.body.isEmpty else { throw ServiceError(400, "the request carries no days; send a frame of at least one") }
        let days: [Frame.Day]
        do {
            days = try Frame.unpack(request.body)
        } catch {
            throw ServiceError(400, "malformed batch: \(error.description)")
        }
        guard days.count <= ProtocolLimits.maxDaysPerRequest else {
            throw ServiceError(413, "a request may carry at most 31 days, and this one carries \(days.count)")
        }
        if let big = days.first(where: { $0.sealed.count > ProtocolLimits.maxDayBytes }) {
            throw ServiceError(413, "\(big.day) is \(big.sealed.count) bytes, and a day may be at most 1 MiB")
        }
        let tomorrow = CalendarDay(unixSeconds: nowSeconds + 86_400)
        if let outside = days.first(where: { $0.day < ProtocolLimits.earliestDay || $0.day > tomorrow }) {
            throw ServiceError(400, "\(outside.day) is outside 1900-01-01 … \(tomorrow)")
        }
        let headers = try verify(.writer, request) {
            SignedMessage.upload(bucket: id, days: days.map(\.day), timestamp: $0, body: request.body)
        }
        switch try store.storeDays(id, writer: headers.key, days: days, requestBytes: request.body.count,
                                   quota: configuration.quota, now: now) {
        case let .stored(stored):
            return Self.json(200, .object(["stored": .array(stored.map { .string($0.description) }),
                                           "bytes": .number(Double(request.body.count))]))
        case .notClaimed: throw ServiceError.notClaimed
        case .anotherWriter: throw ServiceError.anotherWriter
        case .bucketFull: throw ServiceError.bucketFull(configuration.quota)
        case .serviceFull: throw ServiceError.serviceFull
        }
    }

    /// `PUT /b/<b>/reader` and `/editor`: the owner registers the read key or the editor key.
    func register(_ role: RegisteredRole, _ id: BucketID, _ request: HTTPRequest) throws -> HTTPResponse {
        try rateLimit(.claims, request)
        let what = role == .reader ? "read key" : "editor key"
        guard request.body.count == 32 else { throw ServiceError(400, "the body must be the 32 raw bytes of the \(what)'s public half") }
        guard let key = try? Ed25519PublicKey(rawRepresentation: request.body) else {
            throw ServiceError(400, "that \(role == .reader ? "read" : "editor") key is not a key anybody holds")
        }
        let headers = try verify(.writer, request) { timestamp in
            role == .reader ? SignedMessage.reader(bucket: id, timestamp: timestamp, body: request.body)
                            : SignedMessage.editor(bucket: id, timestamp: timestamp, body: request.body)
        }
        switch try store.register(role, key: key, bucket: id, writer: headers.key) {
        case .registered: return Self.json(201, .object(["bucket": .string(id.rawValue), "registered": .bool(true)]))
        case .unchanged: return Self.json(200, .object(["bucket": .string(id.rawValue), "registered": .bool(false)]))
        case .notClaimed: throw ServiceError.claimFirst
        case .notOwner: throw ServiceError(403, "only the owner may register \(role == .reader ? "a" : "an") \(what)")
        }
    }
}

/// Invite codes (decision A.2): shown once, stored only as a hash.
public enum Invites {
    /// A fresh code: 80 random bits as four groups of four base32 letters (`abcd-efgh-ijkl-mnop`).
    public static func newCode() -> String {
        let text = Base32.encodeLower(Sodium.randomBytes(10))
        return stride(from: 0, to: 16, by: 4).map { start in
            String(text.dropFirst(start).prefix(4))
        }.joined(separator: "-")
    }

    /// SHA-256 of the code with dashes, spaces and case ignored, so a retyped code still matches.
    public static func hash(_ code: String) -> [UInt8] {
        let normalised = code.lowercased().filter { $0 != "-" && $0 != " " }
        return Sodium.sha256(Array(normalised.utf8))
    }
}
