import EfferentCore
import EfferentSystem
import Foundation

/// A key rotation under way (`efferent keys rotate`), on disk beside the keys it replaces
/// (`rotation.json`, owner only, written before the service hears of the new keys). While it is
/// there, every writer and reader on this profile seals and signs with its new reading key and
/// opens days with either: a rotation killed at any moment leaves every day readable by the
/// owner, and the next `efferent keys rotate` finishes it.
public struct RotationJournal: Sendable {
    public static let fileName = "rotation.json"

    public let reading: ReadingKey
    public let editor: EditorKey
    /// The reading key the rotation replaces (what `reading-key.json` held when it began).
    public let previousReading: ReadingKey
    /// Unix seconds when it began.
    public let started: Int64

    public init(reading: ReadingKey, editor: EditorKey, previousReading: ReadingKey, started: Int64) {
        self.reading = reading
        self.editor = editor
        self.previousReading = previousReading
        self.started = started
    }

    var encoded: [UInt8] {
        let object = JSONValue.object([
            "editor": .string(Base64URL.encode(editor.privateKey.rawRepresentation.revealed())),
            "previousReading": .string(Base64URL.encode(previousReading.privateKey.rawRepresentation.revealed())),
            "reading": .string(Base64URL.encode(reading.privateKey.rawRepresentation.revealed())),
            "started": .number(Double(started)),
            "v": .number(1),
        ])
        return ((try? object.canonicalBytes()) ?? []) + [0x0A]
    }

    init?(decoding bytes: [UInt8]) {
        guard let json = try? JSONParser.parse(bytes), json["v"]?.integerValue == 1, let started = json["started"]?.integerValue else { return nil }
        func raw(_ name: String) -> [UInt8]? {
            guard let text = json[name]?.stringValue, let raw = Base64URL.decode(text), raw.count == 32 else { return nil }
            return raw
        }
        guard let reading = raw("reading").flatMap({ try? X25519PrivateKey(rawRepresentation: $0) }),
              let previous = raw("previousReading").flatMap({ try? X25519PrivateKey(rawRepresentation: $0) }),
              let editor = raw("editor").flatMap({ try? Ed25519PrivateKey(rawRepresentation: $0) }) else { return nil }
        self.reading = ReadingKey(privateKey: reading)
        self.previousReading = ReadingKey(privateKey: previous)
        self.editor = EditorKey(privateKey: editor)
        self.started = started
    }
}

extension Profile {
    /// The rotation under way on this profile, or nil.
    public func rotationJournal() throws -> RotationJournal? {
        guard exists(RotationJournal.fileName) else { return nil }
        guard let journal = RotationJournal(decoding: try read(RotationJournal.fileName, secret: true)) else {
            throw ProfileError.corrupt(path(RotationJournal.fileName))
        }
        return journal
    }

    public func saveRotationJournal(_ journal: RotationJournal) throws(ProfileError) {
        try write(RotationJournal.fileName, journal.encoded)
    }

    /// Ends a rotation: the journal goes once the new keys are in their files.
    public func removeRotationJournal() throws {
        let target = path(RotationJournal.fileName)
        guard FileManager.default.fileExists(atPath: target) else { return }
        FileDurability.remove(target)
        try FileDurability.synchronize(directory)
    }

    /// The reading keys of this profile: the one that seals and signs reads (a rotation's new
    /// key while one is under way), and the one days not re-sealed yet may still need.
    public func readingKeys() throws -> (current: ReadingKey, previous: ReadingKey?) {
        if let journal = try rotationJournal() { return (journal.reading, journal.previousReading) }
        return (try readingKey(), nil)
    }
}
