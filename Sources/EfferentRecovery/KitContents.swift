import EfferentCore
import EfferentCrypto

/// What a recovery kit holds, once opened: every key of the archive and what a writer needs to
/// carry on where the lost machine stopped. No health data, no token, nothing the service keeps.
///
/// Sealed as canonical JSON (`KitRecord`): `{"bucket", "editor", "endpoint", "hourlyFrom"?,
/// "previousReading"?, "reading", "timeZone", "timeZonePinned", "v": 1, "writer", "written"}`,
/// the keys as base64url of their 32 raw private bytes.
public struct KitContents: Sendable {
    public static let version = 1

    public let writer: Ed25519PrivateKey
    public let reading: ReadingKey
    public let editor: EditorKey
    /// The reading key a rotation replaces, while days sealed to it may remain (`RotationRecord`).
    public let previousReading: ReadingKey?
    public let bucket: BucketID
    /// The service, `scheme://host[:port][/prefix]`.
    public let endpoint: String
    /// The IANA zone days are cut in, and whether an input or the owner pinned it (decision A.4).
    public let timeZone: String
    public let timeZonePinned: Bool
    /// The first day written with hour totals (§4.1): rebuilt days keep their hours from it on.
    public let hourlyFrom: CalendarDay?
    /// Unix seconds when the kit was written.
    public let written: Int64

    public init(writer: Ed25519PrivateKey, reading: ReadingKey, editor: EditorKey, previousReading: ReadingKey? = nil, bucket: BucketID,
                endpoint: String, timeZone: String, timeZonePinned: Bool, hourlyFrom: CalendarDay?, written: Int64) {
        self.writer = writer
        self.reading = reading
        self.editor = editor
        self.previousReading = previousReading
        self.bucket = bucket
        self.endpoint = endpoint
        self.timeZone = timeZone
        self.timeZonePinned = timeZonePinned
        self.hourlyFrom = hourlyFrom
        self.written = written
    }

    /// Which keys a kit holds, as 16 hex characters: what `status` compares to say whether a kit
    /// of the current keys was verified. A digest of the public halves, so it reveals nothing.
    public var keysFingerprint: String { Self.fingerprint(writer: writer.publicKey, reading: reading.publicKey, editor: editor.publicKey) }

    public static func fingerprint(writer: Ed25519PublicKey, reading: X25519PublicKey, editor: Ed25519PublicKey) -> String {
        Hex.encode(Sodium.sha256(writer.rawRepresentation + reading.rawRepresentation + editor.rawRepresentation).prefix(8))
    }

    /// The plaintext a kit record seals.
    func encoded() -> [UInt8] {
        var members: [String: JSONValue] = [
            "bucket": .string(bucket.rawValue),
            "editor": .string(Base64URL.encode(editor.privateKey.rawRepresentation.revealed())),
            "endpoint": .string(endpoint),
            "reading": .string(Base64URL.encode(reading.privateKey.rawRepresentation.revealed())),
            "timeZone": .string(timeZone),
            "timeZonePinned": .bool(timeZonePinned),
            "v": .number(Double(Self.version)),
            "writer": .string(Base64URL.encode(writer.rawRepresentation.revealed())),
            "written": .number(Double(written)),
        ]
        if let hourlyFrom { members["hourlyFrom"] = .string(hourlyFrom.description) }
        if let previousReading { members["previousReading"] = .string(Base64URL.encode(previousReading.privateKey.rawRepresentation.revealed())) }
        // Strings, booleans and whole numbers only: canonical encoding cannot fail.
        return (try? JSONValue.object(members).canonicalBytes()) ?? []
    }

    /// Reads an opened record's plaintext; strict, as every reader of outside bytes here.
    init(decoding plaintext: SecretBytes) throws(KitError) {
        guard let json = try? JSONParser.parse(plaintext.revealed()), let members = json.objectValue else { throw .unreadableContents }
        let known: Set<String> = ["bucket", "editor", "endpoint", "hourlyFrom", "previousReading", "reading", "timeZone", "timeZonePinned", "v",
                                  "writer", "written"]
        guard members.keys.allSatisfy(known.contains), json["v"]?.integerValue == Int64(Self.version) else { throw .unreadableContents }
        func key(_ name: String) throws(KitError) -> SecretBytes {
            guard let text = json[name]?.stringValue, let raw = Base64URL.decode(text), raw.count == 32 else { throw .unreadableContents }
            return SecretBytes(raw)
        }
        guard let bucketText = json["bucket"]?.stringValue, let bucket = try? BucketID(bucketText),
              let endpoint = json["endpoint"]?.stringValue, !endpoint.isEmpty,
              let zone = json["timeZone"]?.stringValue, case let .bool(pinned)? = json["timeZonePinned"],
              let written = json["written"]?.integerValue else { throw .unreadableContents }
        var hourlyFrom: CalendarDay?
        if let text = json["hourlyFrom"]?.stringValue {
            guard let day = CalendarDay(text) else { throw .unreadableContents }
            hourlyFrom = day
        }
        do {
            writer = try Ed25519PrivateKey(rawRepresentation: try key("writer"))
            reading = ReadingKey(privateKey: try X25519PrivateKey(rawRepresentation: try key("reading")))
            editor = EditorKey(privateKey: try Ed25519PrivateKey(rawRepresentation: try key("editor")))
            previousReading = json["previousReading"] == nil ? nil
                : ReadingKey(privateKey: try X25519PrivateKey(rawRepresentation: try key("previousReading")))
        } catch {
            throw .unreadableContents
        }
        self.bucket = bucket
        self.endpoint = endpoint
        timeZone = zone
        timeZonePinned = pinned
        self.hourlyFrom = hourlyFrom
        self.written = written
    }
}
