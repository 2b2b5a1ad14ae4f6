/// Why a kit could not be written, read or opened: one sentence naming the part that failed and
/// what to do, never a word, a key or the passphrase.
public enum KitError: Error, Equatable, CustomStringConvertible {
    case notAKit(String)
    case qrDamaged(String)
    case words(MnemonicError)
    case noWords
    case doesNotOpen
    case unreadableContents
    case unreadableRotation
    case weakLimits
    case memory(Int)
    case badSplit(Int, Int)
    case sheetsDisagree
    case tooFewSheets(have: Int, need: Int)
    case sameSheetTwice(Int)
    case noRecord(service: String)
    case noService

    public var description: String {
        switch self {
        case let .notAKit(why):
            "This is not an Efferent recovery kit: \(why). Give the kit's file, the text of its QR code, or its 24 words."
        case let .qrDamaged(why):
            "The kit's QR code text is damaged (\(why)); scan it again, or type the 24 words printed beside it."
        case let .words(error):
            error.description
        case .noWords:
            "No kit words were found: give the kit's file, the text of its QR code, or a file with its 24 words."
        case .doesNotOpen:
            "The passphrase does not open this kit (or its words were typed as other valid words): check the passphrase first, it is case-sensitive, then the words."
        case .unreadableContents:
            "The kit opened but what it holds is not something this version of Efferent reads; use the efferent that wrote it."
        case .unreadableRotation:
            "The service keeps a record of a key rotation for this writer key, but it does not open; the archive's keys may have been rotated by another writer."
        case .weakLimits:
            "This kit's passphrase was stretched with less than libsodium's MODERATE Argon2id limits, which no Efferent kit uses."
        case let .memory(mebibytes):
            "Opening the kit needs \(mebibytes) MiB of memory for Argon2id and this machine could not give it; close other programs and try again."
        case let .badSplit(threshold, count):
            "A kit splits as K-of-N with 2 ≤ K ≤ N ≤ 9 (for example 2-of-3), not \(threshold)-of-\(count)."
        case .sheetsDisagree:
            "These sheets are not from one split kit (their archive, service or split differ); give sheets printed together."
        case let .tooFewSheets(have, need):
            "This kit was split so that any \(need) sheets recover it, and \(have) \(have == 1 ? "was" : "were") given; one sheet alone reveals nothing."
        case let .sameSheetTwice(number):
            "Sheet \(number) was given twice; give \(number == 1 ? "another" : "different") sheets of the split."
        case let .noRecord(service):
            "The service at \(service) keeps no sealed record for these words: check the words (a slip can make other valid words) and the service's address, or restore from the kit's file or QR code, which carry the record themselves."
        case .noService:
            "The words alone do not say where the archive is: add --server URL, the address printed as Service on the kit."
        }
    }
}
