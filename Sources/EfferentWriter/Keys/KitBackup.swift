import EfferentClient
import EfferentCore
import EfferentCrypto
import EfferentRecovery
import Foundation

/// `efferent keys backup`: a recovery kit of the archive as it stands — its keys, bucket, service
/// and zone — sealed under a fresh secret and the owner's passphrase, its sealed record kept by
/// the service for the day only the words are left, and its sheets for the owner to print.
public enum KitBackup {
    public struct Written: Sendable {
        public let sheets: [KitSheet]
        public let contents: KitContents
        /// Older kits of this archive the service dropped to keep its ceiling (their words no
        /// longer restore; their files and QR codes still do).
        public let dropped: Int
    }

    /// Writes a kit of `context`'s archive. `split` gives `threshold`-of-`count` sheets;
    /// `printPassphrase` puts the passphrase on every sheet of a split (one made for the owner).
    public static func write(_ context: WriterContext, passphrase: SecretBytes, split: (threshold: Int, count: Int)?,
                             printPassphrase: String?, now: Date = Date()) async throws -> Written {
        if try context.profile.rotationJournal() != nil { throw KeysError.rotationUnderWay }
        let settings = context.settings
        let contents = KitContents(writer: context.writer, reading: try context.profile.readingKey(), editor: try context.profile.editorKey(),
                                   bucket: settings.bucket, endpoint: settings.endpoint, timeZone: settings.timeZone,
                                   timeZonePinned: settings.timeZonePinned, hourlyFrom: settings.hourlyFrom,
                                   written: Int64(now.timeIntervalSince1970))
        let secret = KitSecret()
        let record = try KitRecord.seal(contents, secret: secret, passphrase: passphrase)
        let answer = try await context.client().putKit(secret.locator, sealed: record, writer: context.writer)
        let sheets = try KitSheet.sheets(secret: secret, record: record, contents: contents, split: split, printedPassphrase: printPassphrase)
        return Written(sheets: sheets, contents: contents, dropped: answer.dropped)
    }
}

/// What the keys commands refuse, with what to do.
public enum KeysError: Error, Equatable, CustomStringConvertible {
    case rotationUnderWay
    case profileInUse(String)

    public var description: String {
        switch self {
        case .rotationUnderWay:
            "A key rotation is under way on this machine: finish it with `efferent keys rotate` first, then write the kit of the new keys."
        case let .profileInUse(path):
            "\(path) already holds an archive's profile; restore into an empty one (EFFERENT_HOME=~/.efferent-restored efferent init --recover KIT)."
        }
    }
}
