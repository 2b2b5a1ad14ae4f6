import EfferentCrypto

/// An edit as it travels (protocol §8): packed items sealed to the owner's reading public key
/// with the edit AAD, and the editor's signature over the sealed bytes.
///
/// The agent side seals and signs; the writer verifies and opens. Neither step touches the network.
public struct SealedEdit: Sendable, Equatable {
    /// `0x02 || enc || ct||tag`.
    public let sealed: [UInt8]
    public let headers: SignedHeaders

    public init(sealed: [UInt8], headers: SignedHeaders) {
        self.sealed = sealed
        self.headers = headers
    }

    /// Validates every item at `now` (Unix seconds), packs, seals to `readingPublic` and signs
    /// with `editor` at `now`. Nothing is sealed unless every item passes.
    public static func make(_ items: [EditItem], bucket: BucketID, readingPublic: X25519PublicKey, editor: Ed25519PrivateKey,
                            now: Int64) throws(EditError) -> SealedEdit {
        let packed = try EditPack.pack(items, now: now)
        let sealed: [UInt8]
        do { sealed = try SealedEnvelope.seal(packed, to: readingPublic, aad: .edit(bucket: bucket.rawValue)) } catch {
            throw .sealing
        }
        return sign(sealed, bucket: bucket, editor: editor, at: now)
    }

    /// The editor's signature over already-sealed bytes at `timestamp`.
    public static func sign(_ sealed: [UInt8], bucket: BucketID, editor: Ed25519PrivateKey, at timestamp: Int64) -> SealedEdit {
        let message = SignedMessage.edit(bucket: bucket, timestamp: timestamp, sealed: sealed)
        return SealedEdit(sealed: sealed, headers: SignedHeaders(signing: message, with: editor, role: .editor, timestamp: timestamp))
    }

    /// SHA-256 of the sealed bytes including the leading `0x02`: the replay rule's digest.
    public var digest: [UInt8] { Sodium.sha256(sealed) }

    /// The writer's first check (§8): the signer is `registeredEditor` and the signature holds
    /// over this bucket's edit string.
    public func verify(bucket: BucketID, registeredEditor: Ed25519PublicKey) throws(SealedEditError) {
        guard headers.key == registeredEditor,
              headers.isValid(for: SignedMessage.edit(bucket: bucket, timestamp: headers.timestamp, sealed: sealed)) else {
            throw .badSignature
        }
    }

    /// Opens the envelope with the reading key and unpacks the items (shape only; each item is
    /// validated when applied). The error's `code` is the word to answer for the whole edit.
    public func open(bucket: BucketID, reading: X25519PrivateKey) throws(SealedEditError) -> [EditItem] {
        let packed: [UInt8]
        do { packed = try SealedEnvelope.open(sealed, with: reading, aad: .edit(bucket: bucket.rawValue)) } catch {
            throw .cannotOpen
        }
        do { return try EditPack.unpack(packed) } catch { throw .malformed(error) }
    }
}

/// Why the writer refuses a whole edit (§8: answered as one failed item 0 with this word).
public enum SealedEditError: Error, Equatable, Sendable, CustomStringConvertible {
    case badSignature
    case cannotOpen
    case malformed(EditError)

    public var code: OutcomeCode {
        switch self {
        case .badSignature: .badSignature
        case .cannotOpen: .cannotOpen
        case .malformed: .malformed
        }
    }

    public var description: String {
        switch self {
        case .badSignature: "the edit is not signed by this archive's editor key"
        case .cannotOpen: "the edit does not open with this archive's reading key"
        case let .malformed(error): error.description
        }
    }
}
