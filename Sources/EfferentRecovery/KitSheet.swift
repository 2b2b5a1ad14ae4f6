import EfferentCore
import EfferentCrypto
import EfferentSecretSharing
import Foundation

/// One sheet of a recovery kit, as a file, a QR code and words a person types back.
///
/// A whole kit is one sheet holding the kit's secret; a split kit is N sheets each holding a
/// share of it (libgfshare), any K of which give it back. Every sheet also carries the service's
/// address, the archive, when it was written, and the kit's sealed record, so its file or QR code
/// restores without the service's copy; the 24 words alone need that copy (`KitRecord`).
public struct KitSheet: Sendable {
    /// The kit's secret (a whole kit) or this sheet's share of it (a split kit): 32 bytes.
    public let part: SecretBytes
    /// 0 for a whole kit; else the share's number (1…9), which the sheet prints as its number.
    public let number: Int
    public let threshold: Int
    public let count: Int
    public let endpoint: String
    public let bucket: BucketID
    public let written: Int64
    public let record: [UInt8]?
    /// Printed only on the sheets of a split kit whose passphrase was made for the owner, so
    /// that the people holding any K sheets recover on their own (Ente's legacy kits).
    public let passphrase: String?

    public init(part: SecretBytes, number: Int, threshold: Int, count: Int, endpoint: String, bucket: BucketID, written: Int64,
                record: [UInt8]?, passphrase: String?) {
        self.part = part
        self.number = number
        self.threshold = threshold
        self.count = count
        self.endpoint = endpoint
        self.bucket = bucket
        self.written = written
        self.record = record
        self.passphrase = passphrase
    }

    /// The sheets of a kit: one for a whole kit; `count` for a `threshold`-of-`count` split.
    public static func sheets(secret: KitSecret, record: [UInt8], contents: KitContents, split: (threshold: Int, count: Int)?,
                              printedPassphrase: String?) throws(KitError) -> [KitSheet] {
        guard let split else {
            return [KitSheet(part: secret.value, number: 0, threshold: 1, count: 1, endpoint: contents.endpoint, bucket: contents.bucket,
                             written: contents.written, record: record, passphrase: nil)]
        }
        return try secret.split(threshold: split.threshold, count: split.count).map { share in
            KitSheet(part: SecretBytes(share.bytes), number: Int(share.number), threshold: split.threshold, count: split.count,
                     endpoint: contents.endpoint, bucket: contents.bucket, written: contents.written, record: record, passphrase: printedPassphrase)
        }
    }

    public var isShare: Bool { number > 0 }

    /// The words a person types back: 24, in lines of `wordsPerLine`.
    public var words: [String] { BIP39.words(for: part.revealed()) }
    public static let wordsPerLine = 4

    /// "Sheet 2 of 3 (any 2 recover)", or "1 of 1" for a whole kit.
    public var sheetLine: String { isShare ? "\(number) of \(count) (any \(threshold) recover)" : "1 of 1" }

    public var writtenDay: String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return formatter.string(from: Date(timeIntervalSince1970: Double(written)))
    }

    // MARK: The file (also the typed form)

    /// The kit's file: what the page prints, as text a person reads and `parse` reads back.
    public var text: String {
        var lines = ["Efferent recovery kit — keep it as safe as the health data it opens", "",
                     "Archive:  \(bucket.rawValue)", "Service:  \(endpoint)", "Written:  \(writtenDay)", "Sheet:    \(sheetLine)"]
        if let passphrase { lines.append("Passphrase: \(passphrase)") }
        lines += ["", "Words:"]
        let words = self.words
        for start in stride(from: 0, to: words.count, by: Self.wordsPerLine) {
            var line = words[start..<min(start + Self.wordsPerLine, words.count)].enumerated().map { offset, word in
                let label = String(start + offset + 1) + "."
                return String(repeating: " ", count: 3 - label.count) + label + " " + word.padding(toLength: 10, withPad: " ", startingAt: 0)
            }.joined(separator: " ")
            while line.hasSuffix(" ") { line.removeLast() }
            lines.append(line)
        }
        lines += ["", "Kit:", qrPayload, "",
                  "To restore on a new machine: efferent init --recover THIS-FILE (a reader: efferent keys restore THIS-FILE --reader).",
                  "Without this file, type the 24 words into a file and add --server with the address above."]
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: The QR code's text

    static let qrPrefix = "EFFERENT-KIT:"
    static let qrMagic: [UInt8] = [0x45, 0x4B, 0x01]

    /// `EFFERENT-KIT:` and base64url of: `EK` 0x01 · number · threshold · count · part (32) ·
    /// written (u64, big-endian) · bucket (26) · endpoint (u16 length + UTF-8) · passphrase
    /// (u8 length + UTF-8) · record (u16 length + bytes) · the first 4 bytes of SHA-256 of all before.
    public var qrPayload: String {
        var bytes = Self.qrMagic + [UInt8(number), UInt8(threshold), UInt8(count)] + part.revealed()
        bytes += (0..<8).reversed().map { UInt8(truncatingIfNeeded: UInt64(bitPattern: written) >> (8 * UInt64($0))) }
        bytes += Array(bucket.rawValue.utf8)
        let endpointBytes = Array(endpoint.utf8), passphraseBytes = Array((passphrase ?? "").utf8), recordBytes = record ?? []
        bytes += [UInt8(endpointBytes.count >> 8), UInt8(endpointBytes.count & 0xFF)] + endpointBytes
        bytes += [UInt8(passphraseBytes.count)] + passphraseBytes
        bytes += [UInt8(recordBytes.count >> 8), UInt8(recordBytes.count & 0xFF)] + recordBytes
        bytes += Sodium.sha256(bytes).prefix(4)
        return Self.qrPrefix + Base64URL.encode(bytes)
    }

    /// A sheet read back from its QR code's text.
    public init(qrPayload text: String) throws(KitError) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix(Self.qrPrefix) else { throw .notAKit("its QR text does not start with \(Self.qrPrefix)") }
        guard let bytes = Base64URL.decode(trimmed.dropFirst(Self.qrPrefix.count)) else { throw .qrDamaged("it is not base64url") }
        var reader = ByteReader(bytes)
        func take(_ count: Int) throws(KitError) -> [UInt8] {
            guard let taken = reader.take(count) else { throw .qrDamaged("it is cut short: \(bytes.count) bytes") }
            return taken
        }
        guard try take(3) == Self.qrMagic else { throw .qrDamaged("it does not start as a kit does") }
        let header = try take(3)
        let part = try take(KitSecret.bytes)
        let written = try take(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let bucketText = String(decoding: try take(BucketID.length), as: UTF8.self)
        let endpointLength = try take(2).reduce(0) { $0 << 8 | Int($1) }
        let endpoint = String(decoding: try take(endpointLength), as: UTF8.self)
        let passphraseLength = Int(try take(1)[0])
        let passphrase = String(decoding: try take(passphraseLength), as: UTF8.self)
        let recordLength = try take(2).reduce(0) { $0 << 8 | Int($1) }
        let record = try take(recordLength)
        let checked = bytes.count - reader.remaining
        guard try take(4) == Array(Sodium.sha256(Array(bytes.prefix(checked))).prefix(4)) else {
            throw .qrDamaged("its checksum does not match: a character was misread or the text was cut")
        }
        guard reader.remaining == 0 else { throw .qrDamaged("it runs on past its end") }
        guard let bucket = try? BucketID(bucketText), !endpoint.isEmpty, header[2] >= 1, header[1] <= header[2],
              header[0] <= header[2], (header[0] == 0) == (header[2] == 1) else {
            throw .qrDamaged("its fields are not a kit's")
        }
        self.init(part: SecretBytes(part), number: Int(header[0]), threshold: Int(header[1]), count: Int(header[2]), endpoint: endpoint,
                  bucket: bucket, written: Int64(bitPattern: written), record: record.isEmpty ? nil : record,
                  passphrase: passphrase.isEmpty ? nil : passphrase)
    }
}

/// Bytes read front to back.
struct ByteReader {
    private let bytes: [UInt8]
    private var offset = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    var remaining: Int { bytes.count - offset }
    mutating func take(_ count: Int) -> [UInt8]? {
        guard count >= 0, count <= remaining else { return nil }
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }
}
