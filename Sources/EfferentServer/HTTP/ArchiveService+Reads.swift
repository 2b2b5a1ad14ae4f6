import EfferentCore
import EfferentHTTP
import Foundation

/// Listings, days, ranges and stats: closed by a signed read once a read key exists (§6, §7).
extension ArchiveHandlers {
    /// Once the bucket has a read key, only reads signed with it are answered; before that the
    /// headers are ignored (so readers always sign).
    func authorizeRead(_ id: BucketID, _ request: HTTPRequest) throws {
        guard let reader = try store.bucket(id)?.reader else { return }
        guard request.header(SignedHeaders.Role.reader.keyHeader) != nil, request.header(SignedHeaders.signatureHeader) != nil else {
            throw ServiceError.unsignedRead
        }
        let headers: SignedHeaders
        do {
            headers = try SignedHeaders(parsing: { request.header($0) }, role: .reader, now: nowSeconds)
        } catch {
            throw ServiceError.signedHeaders(error)
        }
        guard headers.key == reader else { throw ServiceError.foreignReadKey }
        guard headers.isValid(for: SignedMessage.read(bucket: id, target: request.target, timestamp: headers.timestamp)) else {
            throw ServiceError.badSignature
        }
    }

    /// `GET /b/<b>/days?from=&to=&after=&limit=`: pages of at most 1000, `next` to follow.
    func listing(_ id: BucketID, _ request: HTTPRequest) throws -> HTTPResponse {
        let query = try Query(request.query)
        let from = try query.day("from"), to = try query.day("to"), after = try query.day("after")
        let limit = try query.integer("limit", in: 1...ProtocolLimits.maxListingPage, default: ProtocolLimits.maxListingPage)
        if let from, let to, from > to { throw ServiceError(400, "from must not be after to") }
        try authorizeRead(id, request)
        let start = after ?? from?.previous
        let rows = try store.listDays(id, after: start, through: to, limit: limit + 1)
        let page = rows.prefix(limit)
        // Written member by member (keys sorted, as every answer): a page is up to 1000 entries.
        var writer = JSONWriter(reservingCapacity: 64 + page.count * 72)
        writer.raw("{\"days\":[")
        for (index, entry) in page.enumerated() {
            if index > 0 { writer.raw(byte: UInt8(ascii: ",")) }
            writer.raw("{\"bytes\":")
            writer.integer(Int64(entry.bytes))
            writer.raw(",\"day\":\"")
            for byte in entry.day.ascii { writer.raw(byte: byte) }
            writer.raw("\",\"uploaded\":")
            writer.string(ISOTime.milliseconds(entry.uploaded))
            writer.raw(byte: UInt8(ascii: "}"))
        }
        writer.raw("],\"next\":")
        if rows.count > limit, let last = page.last {
            writer.string(last.day.description)
        } else {
            writer.raw("null")
        }
        writer.raw(byte: UInt8(ascii: "}"))
        return HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: writer.bytes)
    }

    /// `GET /b/<b>/d/<day>`: one sealed day, verbatim.
    func oneDay(_ id: BucketID, _ day: CalendarDay, _ request: HTTPRequest) throws -> HTTPResponse {
        try authorizeRead(id, request)
        guard let stored = try store.day(id, day) else { throw ServiceError.noSuchDay }
        return HTTPResponse(status: 200, headers: [("Content-Type", "application/octet-stream"),
                                                   ("Last-Modified", ISOTime.httpDate(stored.uploaded))], body: stored.sealed)
    }

    /// `GET /b/<b>/d?from=&to=&after=`: a frame of at most 92 days and 8 MiB; `x-efferent-next`
    /// names the last day sent while more remain.
    func range(_ id: BucketID, _ request: HTTPRequest) throws -> HTTPResponse {
        let query = try Query(request.query)
        guard let from = try query.day("from"), let to = try query.day("to") else {
            throw ServiceError(400, "a range needs both from and to, as YYYY-MM-DD")
        }
        guard from <= to else { throw ServiceError(400, "the range runs backwards: from \(from) is after to \(to)") }
        let after = try query.day("after")
        try authorizeRead(id, request)
        let start = max(after ?? from.previous, from.previous)
        let result = try store.range(id, after: start, through: to, maxDays: ProtocolLimits.maxRangeDays,
                                     maxBytes: ProtocolLimits.maxRangeBytes)
        var headers = [("Content-Type", "application/octet-stream")]
        if result.more, let last = result.lastDay { headers.append(("x-efferent-next", last.description)) }
        return HTTPResponse(status: 200, headers: headers, body: result.frame)
    }

    /// `GET /b/<b>/stats`: open to anyone (§7).
    func stats(_ id: BucketID) throws -> HTTPResponse {
        Self.json(200, statsValue(try store.stats(id)))
    }

    func statsValue(_ stats: BucketStats) -> JSONValue {
        .object(["exists": .bool(stats.exists), "days": .number(Double(stats.days)), "bytes": .number(Double(stats.bytes)),
                 "firstDay": stats.firstDay.map { .string($0.description) } ?? .null,
                 "lastDay": stats.lastDay.map { .string($0.description) } ?? .null,
                 "complete": .bool(true)])
    }
}
