import EfferentClient
import EfferentCore
import EfferentCrypto
import EfferentSystem

/// The links this profile made, kept in `links.json` beside its keys (0600, refused when others
/// can read it): each link's key and what it shares, so a long-term link can be sealed again
/// with the same key as the IG asks ("Update Shared Files": updates use the key of the first
/// version), and so `share list` can name links the service only knows by id. The service never
/// sees this file; losing it loses the labels and the re-sealing, not the links.
public final class LinkShelf: Sendable {
    public static let fileName = "links.json"

    /// One link as made here.
    public struct Record: Sendable, Equatable {
        public let id: LinkID
        public let link: SHLink
        public let viewer: String
        public let created: Int64
        public let request: ShareRequest
        /// The files last published, and their version.
        public var version: Int
        public var files: Int
        public var bytes: Int
        /// What the days it covers looked like when it was last sealed (`ShareKeeper.fingerprint`).
        public var fingerprint: String
        public var sealedThrough: CalendarDay
        /// Set once the service says the link has ended: it is sealed no more.
        public var ended: Bool

        public var longTerm: Bool { link.flags.contains(.longTerm) }
    }

    private let profile: Profile
    private let records: Mutex<[Record]?> = Mutex(nil)

    public init(profile: Profile) { self.profile = profile }

    /// The records, read once.
    public func all() throws -> [Record] {
        if let loaded = records.withLock({ $0 }) { return loaded }
        let loaded: [Record]
        if profile.exists(Self.fileName) {
            let bytes = try profile.read(Self.fileName, secret: true)
            guard let json = try? JSONParser.parse(bytes), let list = json["links"]?.arrayValue else {
                throw ShelfError.unreadable(profile.path(Self.fileName))
            }
            loaded = try list.map { entry in
                guard let record = Self.record(entry) else { throw ShelfError.unreadable(profile.path(Self.fileName)) }
                return record
            }
        } else {
            loaded = []
        }
        records.withLock { $0 = loaded }
        return loaded
    }

    /// Adds or replaces a record (by id) and writes the file.
    public func save(_ record: Record) throws {
        var list = try all().filter { $0.id != record.id }
        list.append(record)
        list.sort { $0.created < $1.created }
        try profile.write(Self.fileName, try JSONValue.object(["links": .array(list.map(Self.json))]).canonicalBytes())
        records.withLock { $0 = list }
    }

    public func record(_ id: LinkID) throws -> Record? { try all().first { $0.id == id } }

    static func json(_ record: Record) -> JSONValue {
        var request: [String: JSONValue] = ["metrics": .array(record.request.metrics.map(JSONValue.string)), "raw": .bool(record.request.raw)]
        if let since = record.request.since { request["since"] = .string(since.description) }
        if let until = record.request.until { request["until"] = .string(until.description) }
        if let name = record.request.name { request["name"] = .string(name) }
        if let label = record.request.label { request["label"] = .string(label) }
        return .object([
            "id": .string(record.id.rawValue), "link": .string(record.link.text), "viewer": .string(record.viewer),
            "created": .number(Double(record.created)), "request": .object(request), "version": .number(Double(record.version)),
            "files": .number(Double(record.files)), "bytes": .number(Double(record.bytes)), "fingerprint": .string(record.fingerprint),
            "sealedThrough": .string(record.sealedThrough.description), "ended": .bool(record.ended),
        ])
    }

    static func record(_ json: JSONValue) -> Record? {
        guard let idText = json["id"]?.stringValue, let id = try? LinkID(idText), let text = json["link"]?.stringValue,
              let link = try? SHLink(parsing: text), let viewer = json["viewer"]?.stringValue, let created = json["created"]?.integerValue,
              let request = json["request"], let version = json["version"]?.integerValue, let files = json["files"]?.integerValue,
              let bytes = json["bytes"]?.integerValue, let fingerprint = json["fingerprint"]?.stringValue,
              let through = json["sealedThrough"]?.stringValue.flatMap({ CalendarDay($0) }) else { return nil }
        let asked = ShareRequest(since: request["since"]?.stringValue.flatMap { CalendarDay($0) }, until: request["until"]?.stringValue.flatMap { CalendarDay($0) },
                                 metrics: (request["metrics"]?.arrayValue ?? []).compactMap(\.stringValue), raw: request["raw"] == .bool(true),
                                 name: request["name"]?.stringValue, label: request["label"]?.stringValue)
        return Record(id: id, link: link, viewer: viewer, created: created, request: asked, version: Int(version), files: Int(files),
                      bytes: Int(bytes), fingerprint: fingerprint, sealedThrough: through, ended: json["ended"] == .bool(true))
    }
}

public enum ShelfError: Error, Equatable, CustomStringConvertible {
    case unreadable(String)

    public var description: String {
        switch self {
        case let .unreadable(path): "\(path) is not a list of links this tool wrote; move it aside and efferent share list reads the service's list."
        }
    }
}
