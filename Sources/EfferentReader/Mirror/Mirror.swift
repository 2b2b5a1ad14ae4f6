import EfferentClient
import EfferentCore
import Foundation
import EfferentSystem

/// The reader's local copy of the archive (§10.2): `mirror.json` records, for each mirrored day, the
/// upload time the listing gave when it was fetched and the checksum of the opened body written
/// for it (BLAKE2b in 16 bytes, as hex); `days/<day>.json` holds the day's opened body (layout 2,
/// as the writer built it). A day is recorded only after its file is written, and the record is
/// saved every second and at the end, so an interrupted sync costs only what it had not reached.
/// A day whose file is missing or is not what was fetched is fetched again by the next sync, and
/// named by answers until then (`damagedDays`).
///
/// Safe to share between threads: the record sits behind a lock, and each day file is replaced
/// whole, so an answer reading while a sync writes sees every day as it was or as it is.
public final class Mirror: Sendable {
    public static let fileName = "mirror.json"
    public static let directoryName = "days"

    private struct Record {
        var uploaded: [CalendarDay: String] = [:] {
            didSet { revision += 1 }
        }
        /// The checksum of each day's opened body as written (days fetched before checksums were kept have none).
        var checksums: [CalendarDay: Checksum] = [:] {
            didSet { revision += 1 }
        }
        var syncedAt: String?
        /// Counts the changes of `uploaded` in this process: the index re-checks the day files when it moved.
        var revision = 0
        /// `uploaded`'s days ascending, until a day is added or removed (every answer asks for them).
        var sortedDays: [CalendarDay]?
    }

    public let profile: Profile
    public let endpoint: String
    private let record: Mutex<Record>
    /// What each held day holds, per metric, kept in step with the days (`index.bin`).
    let index: MirrorIndex

    public init(profile: Profile, endpoint: String) throws {
        self.profile = profile
        self.endpoint = endpoint
        record = Mutex(try Self.load(profile, endpoint: endpoint))
        index = MirrorIndex(profile: profile) { Self.directoryName + "/" + $0.description + ".json" }
    }

    private static func load(_ profile: Profile, endpoint: String) throws -> Record {
        var loaded = Record()
        guard profile.exists(fileName) else { return loaded }
        let bytes = try profile.read(fileName)
        guard let json = try? JSONParser.parse(bytes), let days = json["days"]?.objectValue else {
            throw MirrorError.corrupt(profile.path(fileName))
        }
        // A mirror of another service is not this one's: start over rather than mix them.
        if let other = json["endpoint"]?.stringValue, other != endpoint { return loaded }
        for (text, value) in days {
            guard let day = CalendarDay(text), let stamp = value.stringValue else { continue }
            loaded.uploaded[day] = stamp
        }
        // Only for recorded days: a checksum without its day is a record edited by hand, and not believed.
        for (text, value) in json["checksums"]?.objectValue ?? [:] {
            guard let day = CalendarDay(text), loaded.uploaded[day] != nil, let checksum = value.stringValue.flatMap(Checksum.init(hex:)) else { continue }
            loaded.checksums[day] = checksum
        }
        loaded.syncedAt = json["syncedAt"]?.stringValue
        return loaded
    }

    /// Every mirrored day with the upload time it was fetched at.
    public var uploaded: [CalendarDay: String] { record.withLock { $0.uploaded } }
    /// When the last whole sync finished (ISO 8601), if one has.
    public var syncedAt: String? { record.withLock { $0.syncedAt } }
    public var days: [CalendarDay] {
        record.withLock { record in
            if let sorted = record.sortedDays { return sorted }
            let sorted = record.uploaded.keys.sorted()
            record.sortedDays = sorted
            return sorted
        }
    }

    /// The upload time `day` was fetched at, if it is mirrored.
    public func uploaded(_ day: CalendarDay) -> String? { record.withLock { $0.uploaded[day] } }

    func file(_ day: CalendarDay) -> String { index.name(day) }

    /// Writes a day's opened body and its entry in the index (as `digest` gives it: sync digests
    /// each day as it is fetched), then records it as mirrored at `stamp`, with its body's checksum.
    func store(_ day: CalendarDay, body: [UInt8], uploaded stamp: String, digest: () throws -> MirrorDigest.Day) throws {
        try prepareDirectory()
        try profile.write(file(day), body, durable: false)
        let checksum = Checksum(of: body)
        index.record(day, digest: try digest(), body: checksum, name: file(day))
        record.withLock { record in
            if record.uploaded.updateValue(stamp, forKey: day) == nil { record.sortedDays = nil }
            record.checksums[day] = checksum
        }
    }

    /// Forgets a day and deletes its opened body and its entry in the index: a forgotten day
    /// leaves no plaintext behind.
    func forget(_ day: CalendarDay) throws {
        record.withLock { record in
            if record.uploaded.removeValue(forKey: day) != nil { record.sortedDays = nil }
            record.checksums[day] = nil
        }
        index.forget(day)
        try removeFile(file(day))
    }

    /// The index of every held day, brought in step with the record and the day files first
    /// (a day whose entry does not match is read again).
    public func indexSnapshot() throws -> DigestSnapshot {
        let (uploaded, checksums, revision) = record.withLock { ($0.uploaded, $0.checksums, $0.revision) }
        return index.snapshot(record: MirrorRecord(uploaded: uploaded, checksums: checksums), revision: revision)
    }

    /// What a person should hear about the index, once per process: that it did not read and was
    /// rebuilt from the days, or could not be saved. The CLI says it on stderr; answers stay right.
    public func takeIndexNotice() -> String? { index.takeNotice() }

    /// Deletes the opened bodies of days the record does not hold (left by a forgetting before
    /// files were deleted with their day, or by a sync killed between a file and its record);
    /// returns how many were deleted. A `.partial` file is another writer's, mid-rename.
    @discardableResult
    func sweepUnrecorded() throws -> Int {
        let folder = profile.path(Self.directoryName)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return 0 }
        let held = uploaded
        var removed = 0
        for name in names {
            if name.hasSuffix(".partial") { continue }
            if name.hasSuffix(".json"), let day = CalendarDay(String(name.dropLast(5))), held[day] != nil { continue }
            try removeFile(Self.directoryName + "/" + name)
            removed += 1
        }
        return removed
    }

    private func removeFile(_ name: String) throws {
        let path = profile.path(name)
        guard FileManager.default.fileExists(atPath: path) else { return }
        do { try FileManager.default.removeItem(atPath: path) } catch { throw MirrorError.cannotRemove(path) }
    }

    /// The opened body of `day`: nil when the mirror does not hold it, or its file is missing or is
    /// not the body that was fetched (its checksum differs from the record's), which answers name
    /// (`damagedDays`) and sync fetches again.
    public func body(_ day: CalendarDay) throws -> [UInt8]? {
        guard uploaded(day) != nil, profile.exists(file(day)) else { return nil }
        let bytes = try profile.read(file(day))
        if let expected = record.withLock({ $0.checksums[day] }), Checksum(of: bytes) != expected { return nil }
        return bytes
    }

    /// The opened body of `day` for a copy that must be what was fetched (the SQL export): nil when
    /// the mirror does not hold it or its file is gone; a file that is not the body that was fetched
    /// is refused rather than skipped, so the copy is never built without the day and without a word.
    func fetchedBody(_ day: CalendarDay) throws -> [UInt8]? {
        guard uploaded(day) != nil, profile.exists(file(day)) else { return nil }
        let bytes = try profile.read(file(day))
        if let expected = record.withLock({ $0.checksums[day] }), Checksum(of: bytes) != expected {
            throw MirrorError.unreadableDay(day, DayDamage.changed.phrase)
        }
        return bytes
    }

    func hasFile(_ day: CalendarDay) -> Bool { profile.exists(file(day)) }

    /// The held days whose files cannot be used — missing, not what was fetched, or unreadable —
    /// as the index's check finds them (a `stat` of each day's file, and a read of any that changed).
    public func damagedDays() throws -> [CalendarDay: DayDamage] {
        _ = try indexSnapshot()
        return index.damaged
    }

    /// Records, for each held day the record has no checksum for (fetched before they were kept),
    /// the checksum of its file as the index last read it: from then on a change to the file is seen.
    func adoptChecksums() {
        let missing = record.withLock { record in record.uploaded.keys.filter { record.checksums[$0] == nil } }
        guard !missing.isEmpty else { return }
        let found = index.bodyChecksums(of: missing)
        record.withLock { record in
            for (day, checksum) in found where record.checksums[day] == nil && record.uploaded[day] != nil { record.checksums[day] = checksum }
        }
    }

    func markSynced(at date: Date) { record.withLock { $0.syncedAt = ISO8601DateFormatter().string(from: date) } }

    /// Saves the index (when it changed and `index` is true), then the record atomically.
    public func save(index saveIndex: Bool = true) throws {
        if saveIndex { try index.save() }
        let snapshot = record.withLock { $0 }
        var days = [String: JSONValue](), checksums = [String: JSONValue]()
        for (day, stamp) in snapshot.uploaded { days[day.description] = .string(stamp) }
        for (day, checksum) in snapshot.checksums { checksums[day.description] = .string(checksum.hex) }
        var object: [String: JSONValue] = ["endpoint": .string(endpoint), "days": .object(days), "checksums": .object(checksums)]
        if let syncedAt = snapshot.syncedAt { object["syncedAt"] = .string(syncedAt) }
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
    case cannotRemove(String)

    public var description: String {
        switch self {
        case let .corrupt(path): "\(path) is not a mirror record; move it away and run `efferent sync` again."
        case let .dayDoesNotOpen(day, reason): "The archive's \(day) does not open with this reading key (\(reason)); the handoff may belong to another archive, or the day was changed on the service."
        case let .notReturned(day): "The archive listed \(day) but did not return it; run `efferent sync` again, and tell the service's operator if it persists."
        case let .unreadableDay(day, reason): "The mirrored \(day) cannot be read (\(reason)); run `efferent sync` again."
        case let .cannotRemove(path): "\(path) could not be deleted; delete it by hand (it holds an opened day) and run `efferent sync --accept-removals` again."
        }
    }
}
