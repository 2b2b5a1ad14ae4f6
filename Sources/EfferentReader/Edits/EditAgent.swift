import EfferentClient
import EfferentCore
import Foundation

/// The agent's side of edits (§8): validate every item, pack, seal to the owner's reading key with
/// the edit AAD, sign with the editor key and post; then follow what the writer answered.
///
/// A copy of each sent edit's items stays in the profile (`sent-edits/<name>.json`, mode 0600)
/// so that a failed item can be named by its id later; the service only ever holds sealed bytes.
public struct EditAgent: Sendable {
    public let client: ArchiveClient
    public let reading: ReadingKey
    public let editor: Ed25519PrivateKey
    public let profile: Profile?

    public init(client: ArchiveClient, reading: ReadingKey, editor: Ed25519PrivateKey, profile: Profile?) {
        self.client = client
        self.reading = reading
        self.editor = editor
        self.profile = profile
    }

    static let sentDirectory = "sent-edits"

    /// Items from an agent's JSON: a list of §8 items, or `{"items": […]}`.
    public static func items(json bytes: [UInt8]) throws(EditAgentError) -> [EditItem] {
        guard let json = try? JSONParser.parse(bytes) else { throw .notJSON }
        let list: [JSONValue]
        if let array = json.arrayValue {
            list = array
        } else if let object = json.objectValue, let array = object["items"]?.arrayValue {
            list = array
        } else {
            throw .notAList
        }
        do { return try EditPack.items(fromList: list) } catch { throw .edit(error) }
    }

    /// Seals, signs and posts `items` once every one passes §8 at `now`; nothing is sent otherwise.
    public func write(_ items: [EditItem], now: Int64 = Int64(Date().timeIntervalSince1970)) async throws -> QueuedEdit {
        let edit: SealedEdit
        do {
            edit = try SealedEdit.make(items, bucket: client.bucket, readingPublic: reading.publicKey, editor: editor, now: now)
        } catch { throw EditAgentError.edit(error) }
        let queued = try await client.post(sealed: edit.sealed, editor: editor)
        if let profile {
            let plaintext = (try? EditPack.plaintext(items, now: now)) ?? []
            let directory = profile.path(Self.sentDirectory)
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                     attributes: [.posixPermissions: 0o700])
            try? profile.write(Self.sentDirectory + "/\(queued.name).json", plaintext, durable: false)
        }
        return queued
    }

    /// The queue as the service lists it, with each answered edit's failed items named (index,
    /// the item's id when this machine sent it, and the word).
    public func status(all: Bool, after: EditName? = nil) async throws -> [EditStatus] {
        var result = [EditStatus]()
        for listed in try await client.edits(all: all, after: after, readKey: reading.readKey) {
            var failures = [EditStatus.Failure]()
            if (listed.failed ?? 0) > 0, let outcome = try await client.outcome(of: listed.name, readKey: reading.readKey) {
                let sent = sentItems(listed.name)
                failures = outcome.failed.map { failure in
                    EditStatus.Failure(item: failure.item, id: sent.flatMap { failure.item < $0.count ? $0[failure.item].id : nil },
                                       code: failure.code.rawValue)
                }
            }
            result.append(EditStatus(name: listed.name.rawValue, status: listed.status, at: listed.at, bytes: listed.bytes,
                                     applied: listed.applied, failed: failures))
        }
        return result
    }

    func sentItems(_ name: EditName) -> [EditItem]? {
        guard let profile, let bytes = try? profile.read(Self.sentDirectory + "/\(name).json") else { return nil }
        return try? EditPack.items(fromPlaintext: bytes)
    }
}

/// One edit as the agent sees it after the writer's answer.
public struct EditStatus: Sendable, Equatable {
    public struct Failure: Sendable, Equatable {
        public let item: Int
        public let id: String?
        public let code: String
    }

    public let name: String
    public let status: String
    public let at: String
    public let bytes: Int
    public let applied: Int?
    public let failed: [Failure]

    public var json: JSONValue {
        var object: [String: JSONValue] = ["name": .string(name), "status": .string(status), "at": .string(at),
                                           "bytes": .number(Double(bytes))]
        if let applied { object["applied"] = .number(Double(applied)) }
        if !failed.isEmpty {
            object["failed"] = .array(failed.map { failure in
                var entry: [String: JSONValue] = ["item": .number(Double(failure.item)), "code": .string(failure.code)]
                if let id = failure.id { entry["id"] = .string(id) }
                return .object(entry)
            })
        }
        return .object(object)
    }
}

public enum EditAgentError: Error, Equatable, CustomStringConvertible {
    case notJSON
    case notAList
    case edit(EditError)

    public var description: String {
        switch self {
        case .notJSON: "The items are not JSON; give a list of items such as [{\"op\":\"put\",\"id\":\"agent:meal:1\",…}]."
        case .notAList: "The items must be a JSON list, or an object with an items list."
        case let .edit(error): "Nothing was sent: \(error.description)."
        }
    }
}
