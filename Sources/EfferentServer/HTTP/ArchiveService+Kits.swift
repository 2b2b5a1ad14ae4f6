import EfferentCore
import EfferentHTTP

/// The recovery-kit extension (documents/protocol.md, "Recovery kits"): sealed records kept for a
/// bucket's owner and handed to whoever names their locator. Off Efferent's own routes (`/kit/…`,
/// never `/b/…`), signed with its own tag; what the service learns is each record's archive, size
/// and times, and who fetched it when: never a key, a word or a passphrase.
extension ArchiveHandlers {
    /// Records kept per archive: each `efferent keys backup` adds one, a rotation keeps one.
    static let maxKitsPerBucket = 16

    /// `PUT /kit/<locator>` with `x-efferent-bucket`: the owner keeps a sealed record there.
    func putKit(_ locator: KitLocator, _ request: HTTPRequest) throws -> HTTPResponse {
        try rateLimit(.kits, request)
        guard let text = request.header("x-efferent-bucket") else {
            throw ServiceError(400, "a kit is put for an archive: name it in x-efferent-bucket")
        }
        guard let id = try? BucketID(text) else { throw ServiceError.malformedBucket }
        guard request.body.count >= 64 else { throw ServiceError(400, "that is too short to be a sealed recovery record") }
        let headers = try verify(.writer, request) { SignedMessage.kit(bucket: id, locator: locator, timestamp: $0, body: request.body) }
        switch try store.putKit(locator, bucket: id, writer: headers.key, sealed: request.body, quota: configuration.quota,
                                maxKits: Self.maxKitsPerBucket, now: now) {
        case let .stored(replaced, dropped):
            return Self.json(replaced ? 200 : 201, .object(["locator": .string(locator.rawValue), "replaced": .bool(replaced),
                                                            "dropped": .number(Double(dropped))]))
        case .notClaimed: throw ServiceError.notClaimed
        case .anotherWriter: throw ServiceError(403, "only this archive's owner may keep a recovery kit for it")
        case .otherArchive: throw ServiceError(409, "that kit locator is another archive's")
        case .bucketFull: throw ServiceError.bucketFull(configuration.quota)
        case .serviceFull: throw ServiceError.serviceFull
        }
    }

    /// `GET /kit/<locator>`: the sealed record, to whoever knows where it is (it opens for no one
    /// without the kit's secret and passphrase, or the writer key for a rotation's record).
    func getKit(_ locator: KitLocator, _ request: HTTPRequest) throws -> HTTPResponse {
        try rateLimit(.kits, request)
        guard let kit = try store.kit(locator) else {
            throw ServiceError(404, "this service keeps no recovery record under that locator")
        }
        return HTTPResponse(status: 200, headers: [("Content-Type", "application/octet-stream"), ("x-efferent-bucket", kit.bucket.rawValue)],
                            body: kit.sealed)
    }
}
