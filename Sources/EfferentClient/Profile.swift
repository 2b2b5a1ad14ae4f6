import EfferentSystem
import EfferentCore
import Foundation

/// The profile directory (`EFFERENT_HOME`, default `~/.efferent`): keys, settings, the writer's
/// database and the reader's mirror. Directories are 0700 and files 0600; a key file anybody else
/// can read is refused with the command that fixes it. Every write goes through `<name>.partial`
/// and a rename, so a crash leaves the old file or the new one, never half of either.
public struct Profile: Sendable {
    public let directory: String

    public static let settingsName = "profile.json"
    public static let handoffName = "handoff.txt"

    public init(directory: String) { self.directory = directory }

    /// `EFFERENT_HOME`, or `~/.efferent`.
    public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment) -> Profile {
        if let home = environment["EFFERENT_HOME"], !home.isEmpty { return Profile(directory: home) }
        let base = environment["HOME"] ?? NSHomeDirectory()
        return Profile(directory: (base as NSString).appendingPathComponent(".efferent"))
    }

    public func path(_ name: String) -> String { (directory as NSString).appendingPathComponent(name) }

    public func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: path(name)) }

    /// Creates the directory with mode 0700 if it does not exist yet.
    public func prepare() throws(ProfileError) {
        if let isDirectory = FileKind.isDirectory(directory) {
            guard isDirectory else { throw .notADirectory(directory) }
            return
        } else {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
            } catch {
                throw .cannotWrite(directory, reason: "it cannot be created")
            }
        }
        do {
            try FileMode.set(0o700, on: directory)
        } catch {
            throw .cannotWrite(directory, reason: error.reason)
        }
    }

    /// Writes `bytes` to `name` atomically with mode 0600. `durable` also flushes the file and its
    /// directory to disk (keys, settings, records); a mirror's day files skip it, since a day lost
    /// to a power cut is fetched again.
    public func write(_ name: String, _ bytes: [UInt8], durable: Bool = true) throws(ProfileError) {
        try prepare()
        let target = path(name)
        do {
            try DurableFile.write(bytes, to: target, mode: 0o600, durable: durable)
        } catch {
            throw .cannotWrite(target, reason: error.reason)
        }
    }

    /// Removes the files `names`, in order (one that is not there is passed over): what a command
    /// that wrote them undoes when what they were for failed.
    public func remove(_ names: [String]) throws(ProfileError) {
        for name in names where exists(name) {
            do { try FileManager.default.removeItem(atPath: path(name)) } catch {
                throw .cannotWrite(path(name), reason: "it cannot be removed")
            }
        }
    }

    /// Reads `name`; with `secret`, refuses a file that group or others can read.
    public func read(_ name: String, secret: Bool = false) throws(ProfileError) -> [UInt8] {
        let target = path(name)
        guard let mode = FileMode.permissions(of: target) else { throw .missing(target) }
        if secret && mode & 0o077 != 0 { throw .readableByOthers(target) }
        guard let data = FileManager.default.contents(atPath: target) else { throw .cannotRead(target) }
        return Array(data)
    }

    // MARK: Keys and settings

    public func readingKey() throws -> ReadingKey { try KeyFile.decodeReadingKey(read(KeyFile.readingName, secret: true)) }
    public func writerKey() throws -> Ed25519PrivateKey { try KeyFile.decodeWriterKey(read(KeyFile.writerName, secret: true)) }
    public func editorKey() throws -> EditorKey { try KeyFile.decodeEditorKey(read(KeyFile.editorName, secret: true)) }

    public func settings() throws -> ProfileSettings {
        let bytes = try read(Self.settingsName)
        guard let settings = ProfileSettings(json: bytes) else { throw ProfileError.corrupt(path(Self.settingsName)) }
        return settings
    }

    public func save(_ settings: ProfileSettings) throws(ProfileError) { try write(Self.settingsName, settings.json) }
}

/// What a profile remembers besides its keys: where the archive is, which bucket, which zone.
public struct ProfileSettings: Sendable, Equatable {
    /// `scheme://host[:port][/prefix]`, no trailing slash.
    public var endpoint: String
    public var bucket: BucketID
    /// The IANA zone days are cut in (decision A.4), pinned when the archive was created or by its
    /// first import, and changed only by `efferent zone set`.
    public var timeZone: String
    /// False from an `init` without `--time-zone` until the first import shows the zone (absent
    /// from older profiles, whose zone was pinned at init).
    public var timeZonePinned: Bool
    /// The first day written with hour buckets (§4.1: hours only from the writer's first day on).
    public var hourlyFrom: CalendarDay?
    /// `writer` for the profile that owns the archive, `reader` for one made from a handoff.
    public var role: String

    public init(endpoint: String, bucket: BucketID, timeZone: String, hourlyFrom: CalendarDay?, role: String, timeZonePinned: Bool = true) {
        self.endpoint = endpoint
        self.bucket = bucket
        self.timeZone = timeZone
        self.timeZonePinned = timeZonePinned
        self.hourlyFrom = hourlyFrom
        self.role = role
    }

    init?(json bytes: [UInt8]) {
        guard let json = try? JSONParser.parse(bytes), let endpoint = json["endpoint"]?.stringValue,
              let bucket = json["bucket"]?.stringValue.flatMap({ try? BucketID($0) }),
              let zone = json["timeZone"]?.stringValue, let role = json["role"]?.stringValue else { return nil }
        self.endpoint = endpoint
        self.bucket = bucket
        self.timeZone = zone
        timeZonePinned = json["timeZonePinned"] != .bool(false)
        self.hourlyFrom = json["hourlyFrom"]?.stringValue.flatMap { CalendarDay($0) }
        self.role = role
    }

    var json: [UInt8] {
        var object: [String: JSONValue] = ["endpoint": .string(endpoint), "bucket": .string(bucket.rawValue),
                                           "timeZone": .string(timeZone), "role": .string(role)]
        if let hourlyFrom { object["hourlyFrom"] = .string(hourlyFrom.description) }
        if !timeZonePinned { object["timeZonePinned"] = .bool(false) }
        return ((try? JSONValue.object(object).canonicalBytes()) ?? []) + [0x0A]
    }
}

public enum ProfileError: Error, Equatable, CustomStringConvertible {
    case notADirectory(String)
    case cannotWrite(String, reason: String)
    case cannotRead(String)
    case missing(String)
    case readableByOthers(String)
    case corrupt(String)

    public var description: String {
        switch self {
        case let .notADirectory(path): "\(path) is a file, not a profile directory; set EFFERENT_HOME to a directory."
        case let .cannotWrite(path, reason): "Cannot write \(path): \(reason)."
        case let .cannotRead(path): "Cannot read \(path); check its permissions."
        case let .missing(path): "\(path) does not exist: run `efferent init` (writer) or `efferent connect` (reader) first."
        case let .readableByOthers(path): "\(path) holds a secret and others can read it; run `chmod 600 \(path)` and try again."
        case let .corrupt(path): "\(path) is not a profile this version understands; move it away and run `efferent init` or `connect` again."
        }
    }
}
