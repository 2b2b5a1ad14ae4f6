import EfferentCore
import EfferentCrypto
import EfferentSecretSharing
import Foundation

/// What a person hands back to restore or verify: a kit's file, its QR code's text, or the 24
/// words they typed (with the `Service:` and, for a split kit, `Sheet:` lines when they typed
/// those too) — one per sheet.
public enum KitInput: Sendable {
    /// A sheet read whole from its QR text (a kit's file carries that text too).
    case sheet(KitSheet)
    /// Words typed back, with what else the person typed.
    case typed(Typed)

    public struct Typed: Sendable {
        public let part: SecretBytes
        public let number: Int?
        public let threshold: Int?
        public let count: Int?
        public let endpoint: String?
        public let passphrase: String?
    }

    /// Reads one sheet's text. The QR text wins when present (it holds everything and a
    /// checksum); otherwise every word that is not a label is taken as a kit word, in order.
    public init(text: String) throws(KitError) {
        if let range = text.range(of: KitSheet.qrPrefix) {
            let rest = text[range.lowerBound...]
            let payload = rest.prefix { !$0.isWhitespace }
            self = .sheet(try KitSheet(qrPayload: String(payload)))
            return
        }
        var words = [String]()
        var fields = [String: String]()
        let labels = ["archive", "service", "written", "sheet", "passphrase", "kit"]
        var inPreamble = text.contains("Words:")
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if let colon = trimmed.firstIndex(of: ":"), labels.contains(trimmed[..<colon].lowercased()) {
                fields[trimmed[..<colon].lowercased()] = trimmed[trimmed.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                continue
            }
            if trimmed.lowercased().hasPrefix("words:") { inPreamble = false; continue }
            if inPreamble || trimmed.hasPrefix("To restore") || trimmed.hasPrefix("Without this file") || trimmed.hasPrefix("Efferent recovery kit") {
                continue
            }
            // "1. abandon  2. ability": numbers and their dots are the sheet's layout, not words.
            for token in trimmed.split(whereSeparator: { !$0.isLetter }) where !token.isEmpty { words.append(String(token)) }
        }
        guard !words.isEmpty else { throw .noWords }
        let entropy: [UInt8]
        do { entropy = try BIP39.entropy(from: words) } catch { throw .words(error) }
        guard entropy.count == KitSecret.bytes else { throw .words(.count(words.count)) }
        var number: Int?, threshold: Int?, count: Int?
        if let sheet = fields["sheet"] {
            let numbers = sheet.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
            guard numbers.count >= 2, numbers[0] >= 1, numbers[0] <= numbers[1] else {
                throw .notAKit("its Sheet line should read as printed, like 'Sheet: 2 of 3 (any 2 recover)'")
            }
            if numbers[1] > 1 {
                guard numbers.count >= 3 else { throw .notAKit("its Sheet line should read as printed, like 'Sheet: 2 of 3 (any 2 recover)'") }
                (number, count, threshold) = (numbers[0], numbers[1], numbers[2])
            } else {
                (number, count, threshold) = (0, 1, 1)
            }
        }
        self = .typed(Typed(part: SecretBytes(entropy), number: number, threshold: threshold, count: count,
                            endpoint: fields["service"].flatMap { $0.isEmpty ? nil : $0 },
                            passphrase: fields["passphrase"].flatMap { $0.isEmpty ? nil : $0 }))
    }
}

/// The kit that one or more sheets add up to: its secret, and what the sheets said besides.
public struct KitPieces: Sendable {
    public let secret: KitSecret
    public let endpoint: String?
    public let bucket: BucketID?
    /// The sealed record a sheet carried (a file or QR code); nil when only words were given.
    public let record: [UInt8]?
    /// The passphrase a split kit's sheets print, when it was made for the owner.
    public let printedPassphrase: String?
    /// How many sheets the kit was split into and how many recover it; nil for a whole kit.
    public let split: (threshold: Int, count: Int)?

    /// Puts `inputs` together: one whole kit, or at least K distinct sheets of one K-of-N split.
    public static func assemble(_ inputs: [KitInput]) throws(KitError) -> KitPieces {
        struct Part {
            let bytes: SecretBytes
            let number: Int?
            let threshold: Int?
            let count: Int?
            let endpoint: String?
            let bucket: BucketID?
            let record: [UInt8]?
            let passphrase: String?
        }
        let parts: [Part] = inputs.map { input in
            switch input {
            case let .sheet(sheet):
                Part(bytes: sheet.part, number: sheet.number, threshold: sheet.threshold, count: sheet.count, endpoint: sheet.endpoint,
                     bucket: sheet.bucket, record: sheet.record, passphrase: sheet.passphrase)
            case let .typed(typed):
                Part(bytes: typed.part, number: typed.number, threshold: typed.threshold, count: typed.count, endpoint: typed.endpoint,
                     bucket: nil, record: nil, passphrase: typed.passphrase)
            }
        }
        guard let first = parts.first else { throw .noWords }
        func agreed<T: Equatable>(_ values: [T?]) throws(KitError) -> T? {
            let known = values.compactMap { $0 }
            guard let value = known.first else { return nil }
            guard known.allSatisfy({ $0 == value }) else { throw .sheetsDisagree }
            return value
        }
        let endpoint = try agreed(parts.map(\.endpoint)), bucket = try agreed(parts.map(\.bucket))
        let record = parts.compactMap(\.record).first, passphrase = try agreed(parts.map(\.passphrase))
        let threshold = try agreed(parts.map(\.threshold)), count = try agreed(parts.map(\.count))
        // One sheet that says it is whole, or gives no Sheet line at all, is a whole kit.
        if parts.count == 1, first.number == nil || first.number == 0 {
            return KitPieces(secret: try KitSecret(first.bytes), endpoint: endpoint, bucket: bucket, record: record,
                             printedPassphrase: passphrase, split: nil)
        }
        guard parts.allSatisfy({ ($0.number ?? 0) > 0 }) else {
            if parts.contains(where: { $0.number == 0 }) { throw .sheetsDisagree }
            throw .notAKit("words of a split kit need the sheet's number: add the line 'Sheet: N of M (any K recover)' as it is printed")
        }
        guard let threshold, let count else {
            throw .notAKit("words of a split kit need the sheet's number: add the line 'Sheet: N of M (any K recover)' as it is printed")
        }
        var seen = Set<Int>()
        for part in parts {
            let number = part.number ?? 0
            guard number <= count else { throw .sheetsDisagree }
            guard seen.insert(number).inserted else { throw .sameSheetTwice(number) }
        }
        guard parts.count >= threshold else { throw .tooFewSheets(have: parts.count, need: threshold) }
        let shares = parts.map { SecretSharing.Share(number: UInt8($0.number ?? 0), bytes: $0.bytes.revealed()) }
        return KitPieces(secret: try KitSecret.combine(shares), endpoint: endpoint, bucket: bucket, record: record,
                         printedPassphrase: passphrase, split: (threshold, count))
    }
}
