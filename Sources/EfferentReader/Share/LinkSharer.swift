import EfferentClient
import EfferentCompression
import EfferentCore
import EfferentCrypto
import Foundation

/// Shares a slice of the archive as a SMART Health Link (decision A.15): builds its FHIR files
/// from the mirror, seals each as compact JWE under a fresh key, uploads them to the service
/// signed by the read key, publishes them, and keeps the link in `LinkShelf`. A long-term link is
/// sealed again, under its own key, when the days it covers change (`refresh`).
public final class LinkSharer: Sendable {
    public let context: ReaderContext
    public let shelf: LinkShelf
    /// Plaintext bytes of a file of raw readings.
    let rawFileBytes: Int

    public init(context: ReaderContext, rawFileBytes: Int = RawReadingFiles.defaultFileBytes) {
        self.context = context
        shelf = LinkShelf(profile: context.profile)
        self.rawFileBytes = rawFileBytes
    }

    /// What a share made: the link, and what went into it.
    public struct Made: Sendable {
        public let record: LinkShelf.Record
        /// Observations of the document, and raw readings after it.
        public let readings: Int
        public let notes: [String]
        /// The viewer's address with the link after `#`.
        public var viewerLink: String { record.link.viewerLink(viewer: record.viewer) }
    }

    /// Makes a link of `request` from `source`, ending at `expires` (Unix seconds). `base` is the
    /// address people reach the service at (the profile's endpoint when nil).
    public func share(_ request: ShareRequest, source: EventSource, expires: Int64, passcode: String?, longTerm: Bool,
                      base: String? = nil) async throws -> Made {
        let today = context.today
        let content = try ShareContent(request, source: source, today: today)
        let client = context.client()
        let root = Self.trimmed(base ?? client.endpoint)
        let id = LinkID.make()
        var flags = SHLink.Flags()
        if longTerm { flags.insert(.longTerm) }
        if passcode != nil { flags.insert(.passcode) }
        let link = try SHLink(url: root + LinkLimits.routePrefix + "/" + id.rawValue, key: SHLink.newKey(), expires: expires, flags: flags,
                              label: request.label)
        let readKey = context.reading.readKey
        try await client.createLink(id, expires: expires, longTerm: longTerm, passcode: passcode, readKey: readKey)
        let sealed = try await seal(link, id: id, version: 1, content: content, request: request, source: source, client: client)
        let record = LinkShelf.Record(id: id, link: link, viewer: root + LinkLimits.viewerPath, created: Int64(Date().timeIntervalSince1970),
                                      request: request, version: 1, files: sealed.files, bytes: sealed.bytes,
                                      fingerprint: fingerprint(of: content.range, longTerm: longTerm), sealedThrough: content.range.until, ended: false)
        try shelf.save(record)
        return Made(record: record, readings: sealed.readings, notes: content.notes)
    }

    /// Builds, seals and uploads every file of `content` as `version` of link `id`, then
    /// publishes them: the manifest lists the new files only once all of them are in.
    func seal(_ link: SHLink, id: LinkID, version: Int, content: ShareContent, request: ShareRequest, source: EventSource,
              client: ArchiveClient) async throws -> (files: Int, bytes: Int, readings: Int) {
        let bundle = ShareBundle(content: content, name: request.name, title: request.label ?? "Health data shared from Efferent",
                                 generated: Int64(Date().timeIntervalSince1970), zone: context.settings.timeZone)
        let readKey = context.reading.readKey
        let deflater = try Deflater(level: 9)
        var files = 0, bytes = 0
        func upload(_ plaintext: [UInt8]) async throws {
            guard files < LinkLimits.maxFiles else { throw ShareError.tooManyFiles(LinkLimits.maxFiles) }
            let jwe = try JWE.seal(plaintext, key: link.key, contentType: "application/fhir+json", deflater: deflater)
            try await client.uploadLinkFile(id, version: version, index: files, jwe: jwe, readKey: readKey)
            files += 1
            bytes += jwe.utf8.count
        }
        try await upload(try bundle.document(source: source, today: context.today))
        let raw = RawReadingFiles(bundle: bundle, source: source, maxBytes: rawFileBytes)
        while let file = try raw.nextFile() { try await upload(file) }
        try await client.publishLink(id, version: version, files: files, readKey: readKey)
        return (files, bytes, raw.readings)
    }

    /// What a long-term link's refresh did.
    public struct Refreshed: Sendable {
        public let id: LinkID
        public let label: String?
        /// The new version, or nil when the link was left as it was.
        public let version: Int?
        public let note: String?
    }

    /// Seals again every long-term link of this profile whose days changed since it was last
    /// sealed (all of them with `force`; only `only` when given): its files then run through the
    /// newest day the mirror holds, under the same key, as a new version.
    public func refresh(source: EventSource, only: LinkID? = nil, force: Bool = false) async throws -> [Refreshed] {
        var done = [Refreshed]()
        let client = context.client()
        for var record in try shelf.all() where record.longTerm && !record.ended && (only == nil || record.id == only) {
            if let expires = record.link.expires, expires <= Int64(Date().timeIntervalSince1970) {
                record.ended = true
                try shelf.save(record)
                done.append(Refreshed(id: record.id, label: record.request.label, version: nil, note: "expired; nothing sealed"))
                continue
            }
            let content = try ShareContent(record.request, source: source, today: context.today)
            let print = fingerprint(of: content.range, longTerm: true)
            guard force || print != record.fingerprint else {
                done.append(Refreshed(id: record.id, label: record.request.label, version: nil, note: nil))
                continue
            }
            do {
                let sealed = try await seal(record.link, id: record.id, version: record.version + 1, content: content, request: record.request,
                                            source: source, client: client)
                record.version += 1
                record.files = sealed.files
                record.bytes = sealed.bytes
                record.fingerprint = print
                record.sealedThrough = content.range.until
                try shelf.save(record)
                done.append(Refreshed(id: record.id, label: record.request.label, version: record.version, note: nil))
            } catch let error as ArchiveError where error.status == 410 {
                record.ended = true
                try shelf.save(record)
                done.append(Refreshed(id: record.id, label: record.request.label, version: nil, note: "it has ended on the service; nothing sealed"))
            }
        }
        return done
    }

    /// What the days of `range` look like in the mirror: SHA-256 over each day's upload time,
    /// from the day before `since` (a night or a reading of it may belong to `since`) on — through
    /// the newest day for a long-term link, whose range grows.
    func fingerprint(of range: DayRange, longTerm: Bool) -> String {
        let uploaded = context.mirror.uploaded
        let from = range.since.previous, through = longTerm ? CalendarDay(year: 9999, month: 12, day: 31)! : range.until.next
        var text = ""
        for day in uploaded.keys.sorted() where day >= from && day <= through { text += "\(day)=\(uploaded[day] ?? "")\n" }
        return Hex.encode(Sodium.sha256(Array(text.utf8)))
    }

    /// A link of this archive as `share list` shows it: the service's facts, and this profile's
    /// record when it made the link.
    public struct Listing: Sendable {
        public let listed: ListedLink
        public let record: LinkShelf.Record?
    }

    public func list() async throws -> [Listing] {
        let listed = try await context.client().links(readKey: context.reading.readKey)
        let records = try shelf.all()
        return listed.map { link in Listing(listed: link, record: records.first { $0.id == link.id }) }
    }

    /// Revokes the link `asked` names: its whole id, the first characters of one (at least 6),
    /// or the link itself (`shlink:/…` or a viewer address).
    public func revoke(_ asked: String) async throws -> (id: LinkID, revoked: Bool) {
        let client = context.client()
        let readKey = context.reading.readKey
        let id = try await resolve(asked, client: client)
        let revoked = try await client.revokeLink(id, readKey: readKey)
        if var record = try shelf.record(id) {
            record.ended = true
            try shelf.save(record)
        }
        return (id, revoked)
    }

    func resolve(_ asked: String, client: ArchiveClient) async throws -> LinkID {
        if asked.contains("shlink:/") {
            guard let id = try SHLink(parsing: asked).linkID else { throw ShareError.unknownShare(asked) }
            return id
        }
        if let id = try? LinkID(asked) { return id }
        let known = try await client.links(readKey: context.reading.readKey).map(\.id)
        guard asked.count >= 6 else { throw ShareError.unknownShare(asked) }
        let matches = known.filter { $0.rawValue.hasPrefix(asked) }
        guard let first = matches.first else { throw ShareError.unknownShare(asked) }
        guard matches.count == 1 else { throw ShareError.ambiguousShare(asked, matches.map { String($0.rawValue.prefix(10)) }) }
        return first
    }

    static func trimmed(_ url: String) -> String { url.hasSuffix("/") ? String(url.dropLast()) : url }
}
