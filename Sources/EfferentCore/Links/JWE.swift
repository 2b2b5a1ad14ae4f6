import EfferentCompression
import EfferentCrypto

/// JSON Web Encryption in compact serialisation with a direct key (RFC 7516 §7.1, RFC 7518
/// §4.5 `"alg":"dir"`) and AES-256-GCM (RFC 7518 §5.3 `"enc":"A256GCM"`): how a SMART Health
/// Link encrypts each file ("Encrypting and Decrypting Files",
/// https://hl7.org/fhir/uv/smart-health-cards-and-links/STU1/links-specification.html). The
/// plaintext may be raw DEFLATE first (`"zip":"DEF"`, RFC 7516 §4.1.3) and the header names its
/// content type (`cty`).
///
/// `BASE64URL(header) . "" . BASE64URL(iv) . BASE64URL(ciphertext) . BASE64URL(tag)`: the
/// encrypted key is empty for `dir` (RFC 7516 §5.1 step 4), the IV 96 random bits (RFC 7518
/// §5.3; the IG asks for a unique one per encryption under a link's key, which 96 random bits
/// give for the few re-seals a link sees), and the additional data ASCII(BASE64URL(header))
/// (RFC 7516 §5.1 step 14).
public enum JWE {
    public static let algorithm = "dir"
    public static let encryption = "A256GCM"
    public static let deflate = "DEF"

    /// Whether to deflate the plaintext: always, never, or when that makes it smaller (what the IG's `zip` is for).
    public enum Compression: Sendable { case never, always, whenSmaller }

    /// The opened file: its content type (`cty`) and plaintext.
    public struct Opened: Sendable {
        public let contentType: String?
        public let compressed: Bool
        public let plaintext: [UInt8]
    }

    /// Seals `plaintext` under the link's key as compact JWE text.
    public static func seal(_ plaintext: [UInt8], key: SecretBytes, contentType: String,
                            compression: Compression = .whenSmaller, deflater: Deflater? = nil) throws(LinkError) -> String {
        var body = plaintext
        var zipped = false
        if compression != .never {
            do throws(DeflateError) {
                let packer: Deflater
                if let deflater { packer = deflater } else { packer = try Deflater(level: 9) }
                let packed = try packer.compress(plaintext)
                if compression == .always || packed.count < plaintext.count {
                    body = packed
                    zipped = true
                }
            } catch {
                throw .cannotSeal(error.description)
            }
        }
        var header = JSONWriter(reservingCapacity: 96)
        header.raw("{\"alg\":")
        header.string(algorithm)
        header.raw(",\"enc\":")
        header.string(encryption)
        header.raw(",\"cty\":")
        header.string(contentType)
        if zipped { header.raw(",\"zip\":\"DEF\"") }
        header.raw(byte: UInt8(ascii: "}"))
        let protected = Base64URL.encode(header.bytes)
        let iv = Sodium.randomBytes(Sodium.aesGCMNonceBytes)
        let sealed: Sodium.DetachedSeal
        do {
            sealed = try Sodium.aes256GCMSealDetached(key: key, nonce: iv, plaintext: body, aad: Array(protected.utf8))
        } catch {
            throw .cannotSeal(error.description)
        }
        return protected + ".." + Base64URL.encode(iv) + "." + Base64URL.encode(sealed.ciphertext) + "." + Base64URL.encode(sealed.tag)
    }

    /// Opens compact JWE text sealed under `key`; the plaintext may not inflate past `maxPlaintext`.
    /// Refuses any algorithm but `dir` with `A256GCM`, a `zip` other than `DEF`, and a `crit` header.
    public static func open(_ compact: String, key: SecretBytes, maxPlaintext: Int = 64 << 20) throws(LinkError) -> Opened {
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 5 else { throw .jwe("is not compact JWE (five parts separated by dots)") }
        guard parts[1].isEmpty else { throw .jwe("carries an encrypted key, which a direct key (alg dir) never has") }
        guard let headerBytes = Base64URL.decode(parts[0]), let header = try? JSONParser.parse(headerBytes), case .object = header else {
            throw .jwe("header is not base64url JSON")
        }
        guard header["alg"]?.stringValue == algorithm, header["enc"]?.stringValue == encryption else {
            throw .jwe("is not alg dir with enc A256GCM")
        }
        guard header["crit"] == nil else { throw .jwe("names critical header parameters this reader does not know") }
        let zip = header["zip"]?.stringValue
        guard zip == nil || zip == deflate else { throw .jwe("is compressed with \(zip ?? "?"), not DEF") }
        guard let iv = Base64URL.decode(parts[2]), let ciphertext = Base64URL.decode(parts[3]), let tag = Base64URL.decode(parts[4]) else {
            throw .jwe("has a part that is not base64url")
        }
        let plaintext = try openContent(protected: Array(parts[0].utf8), iv: iv, ciphertext: ciphertext, tag: tag, key: key)
        guard zip != nil else {
            guard plaintext.count <= maxPlaintext else { throw .tooLarge(maxPlaintext) }
            return Opened(contentType: header["cty"]?.stringValue, compressed: false, plaintext: plaintext)
        }
        do {
            let inflated = try Inflater().decompress(plaintext, limit: maxPlaintext)
            return Opened(contentType: header["cty"]?.stringValue, compressed: true, plaintext: inflated)
        } catch .tooLarge {
            throw .tooLarge(maxPlaintext)
        } catch {
            throw .jwe("does not inflate (\(error.description))")
        }
    }

    /// The content decryption of RFC 7516 §5.2 steps 14–16: AES-256-GCM over the ciphertext with
    /// ASCII(BASE64URL(header)) as additional data. A wrong key, IV, tag or header is `.forged`.
    public static func openContent(protected: [UInt8], iv: [UInt8], ciphertext: [UInt8], tag: [UInt8],
                                   key: SecretBytes) throws(LinkError) -> [UInt8] {
        guard iv.count == Sodium.aesGCMNonceBytes else { throw .jwe("has an IV that is not 96 bits") }
        guard tag.count == Sodium.aeadTagBytes else { throw .jwe("has a tag that is not 128 bits") }
        do {
            return try Sodium.aes256GCMOpenDetached(key: key, nonce: iv, ciphertext: ciphertext, tag: tag, aad: protected)
        } catch .forged {
            throw .forged
        } catch {
            throw .jwe("cannot be opened on this machine (\(error.description))")
        }
    }
}
