import EfferentClient
import EfferentCore
import Foundation

/// The reader's local copy of the archive (§10.2): `mirror.json` records, for each mirrored day, the
/// upload time the listing gave when it was fetched; `days/<day>.json` holds the day's opened body
/// (layout 2, as the writer built it). A day is recorded only after its file is written, and the
/// record is saved every second and at the end, so an interrupted sync costs only what it had
/// not reached.
public final class Mirror {
    public static let fileName = "mirror.json"
    public static let directoryName = "days"

    public let profile: Profile
    public private(set) var uploaded: [CalendarDay: String] = [:]
    public private(set) var syncedAt: String?
    public let endpoint: String

    public init(profile: Profile, endpoint: String) throws {
        self.profile = profile
        self.endpoint = endpoint
        guard profile.exists(Self.fileName) else { return }
        let bytes = try profile.read(Self.fileName)
        guard let json = try? JSONParser.parse(bytes), let days = json["days"]?.objectValue else {
            throw MirrorError.corrupt(profile.path(Self.fileName))
        }
        // A mirror of another service is not this one's: start over rather than mix them.
        if let other = json["endpoint"]?.stringValue, other != endpoint { return }
        for (text, value) in days {
            guard let day = CalendarDay(text), let stamp = value.stringValue else { continue }
            uploaded[day] = stamp
        }
        syncedAt = json["syncedAt"]?.stringValue
    }

    public var days: [CalendarDay] { uploaded.keys.sorted() }

    func file(_ day: CalendarDay) -> String { Self.directoryName + "/" + day.description + ".json" }

    /// Writes a day's opened body, then records it as mirrored at `stamp`.
    func store(_ day: CalendarDay, body: [UInt8], uploaded stamp: String) throws {
        try prepareDirectory()
        try profile.write(file(day), body, durable: false)
        uploaded[day] = stamp
    }

    func forget(_ day: CalendarDay) { uploaded[day] = nil }

    public func body(_ day: CalendarDay) throws -> [UInt8]? {
        guard uploaded[day] != nil, profile.exists(file(day)) else { return nil }
        return try profile.read(file(day))
    }

    func hasFile(_ day: CalendarDay) -> Bool { profile.exists(file(day)) }

    func markSynced(at date: Date) { syncedAt = ISO8601DateFormatter().string(from: date) }

    /// Saves the record atomically.
    public func save() throws {
        var days = [String: JSONValue]()
        for (day, stamp) in uploaded { days[day.description] = .string(stamp) }
        var object: [String: JSONValue] = ["endpoint": .string(endpoint), "days": .object(days)]
        if let syncedAt { object["syncedAt"] = .string(syncedAt) }
        try profile.write(Self.fileName, try JSONValue.object(object).canonicalBytes() + [0x0A])
    }

    private func prepareDirectory() throws {
        let path = profile.path(Self.directoryName)
        if !FileManager.default.fileExists(atPath: path) {
            try profile.prepare()
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
    }
}

public enum MirrorError: Error, Equatable, CustomStringConvertible {
    case corrupt(String)
    case dayDoesNotOpen(CalendarDay, String)
    case notReturned(CalendarDay)
    case unreadableDay(CalendarDay, String)

    public var description: String {
        switch self {
        case let .corrupt(path): "\(path) is not a mirror record; move it away and run `efferent sync` again."
        case let .dayDoesNotOpen(day, reason): "The archive's \(day) does not open with this reading key (\(reason)); the handoff may belong to another archive, or the day was changed on the service."
        case let .notReturned(day): "The archive listed \(day) but did not return it; run `efferent sync` again, and tell the service's operator if it persists."
        case let .unreadableDay(day, reason): "The mirrored \(day) cannot be read (\(reason)); run `efferent sync` again."
        }
    }
}
