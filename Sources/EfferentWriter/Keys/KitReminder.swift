import EfferentClient
import EfferentCore
import EfferentRecovery
import Foundation

/// Whether a kit of the archive's current keys has been verified (`kit.json` in the profile:
/// which keys, when, and when the owner was last reminded). `status` shows it; `status` and
/// `push` remind the owner once a day until a kit of the current keys is verified — after a
/// key rotation too, since the old kit then holds keys the archive no longer takes.
public struct KitReminder: Sendable {
    public static let fileName = "kit.json"

    /// `KitContents.keysFingerprint` of the kit last verified.
    public var keys: String?
    public var verified: Int64?
    public var reminded: Int64?

    public static func load(_ profile: Profile) -> KitReminder {
        guard let bytes = try? profile.read(fileName), let json = try? JSONParser.parse(bytes) else { return KitReminder() }
        return KitReminder(keys: json["keys"]?.stringValue, verified: json["verified"]?.integerValue, reminded: json["reminded"]?.integerValue)
    }

    func save(_ profile: Profile) throws {
        var members = [String: JSONValue]()
        if let keys { members["keys"] = .string(keys) }
        if let verified { members["verified"] = .number(Double(verified)) }
        if let reminded { members["reminded"] = .number(Double(reminded)) }
        try profile.write(Self.fileName, ((try? JSONValue.object(members).canonicalBytes()) ?? []) + [0x0A])
    }

    /// Notes that a kit holding `keys` was verified end to end.
    public static func recordVerified(_ profile: Profile, keys: String, at now: Date = Date()) throws {
        var state = load(profile)
        state.keys = keys
        state.verified = Int64(now.timeIntervalSince1970)
        try state.save(profile)
    }

    /// The fingerprint of the keys this profile uses now (a rotation's new ones while under way).
    public static func currentKeys(_ profile: Profile) throws -> String {
        let (reading, _) = try profile.readingKeys()
        let editor = try profile.rotationJournal()?.editor ?? profile.editorKey()
        return KitContents.fingerprint(writer: try profile.writerKey().publicKey, reading: reading.publicKey, editor: editor.publicKey)
    }

    /// Whether a kit of the current keys has been verified.
    public static func isCurrent(_ profile: Profile) throws -> Bool {
        load(profile).keys == (try currentKeys(profile))
    }

    /// The line `status` prints about the kit.
    public static func statusLine(_ profile: Profile) throws -> String {
        let state = load(profile)
        if try isCurrent(profile), let verified = state.verified {
            return "verified \(Self.day(verified)) for the current keys"
        }
        if state.verified != nil {
            return "the kit verified last holds keys this archive no longer uses (they were rotated): efferent keys backup, then efferent keys verify FILE"
        }
        return "none verified yet: efferent keys backup writes one, efferent keys verify FILE proves it opens this archive"
    }

    /// The reminder `status` and `push` give, at most once a day, until a kit of the current keys
    /// is verified; nil when one is, or when the owner was reminded in the last day.
    public static func dailyReminder(_ profile: Profile, now: Date = Date()) throws -> String? {
        guard try !isCurrent(profile) else { return nil }
        var state = load(profile)
        let seconds = Int64(now.timeIntervalSince1970)
        if let reminded = state.reminded, seconds - reminded < 86_400 { return nil }
        state.reminded = seconds
        try state.save(profile)
        let what = state.verified == nil ? "No recovery kit of this archive has been verified" : "No kit of this archive's current keys has been verified (they were rotated after the last one)"
        return "\(what): if this machine is lost, so is every day. Write one with `efferent keys backup` and prove it with `efferent keys verify FILE`."
    }

    public static func day(_ seconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return formatter.string(from: Date(timeIntervalSince1970: Double(seconds)))
    }
}
