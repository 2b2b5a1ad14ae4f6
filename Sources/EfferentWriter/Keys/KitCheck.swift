import EfferentClient
import EfferentCore
import EfferentCrypto
import EfferentRecovery
import Foundation

/// A kit opened and proven against the live archive, end to end: the passphrase opens its
/// sealed record (from a sheet, or the service's copy for words alone), the service holds the
/// archive and takes the kit's writer key as its owner, its read key (or, after a rotation, the
/// one the service's rotation record names) is the archive's, and one real sealed day, fetched
/// from the service, opens with its reading key. What `keys verify` prints and `restore` builds on.
public struct KitCheck: Sendable {
    /// What the kit itself holds.
    public let contents: KitContents
    /// Where the archive is now: the kit's address, or the one given to replace it.
    public let endpoint: String
    /// The keys every day is (or is being) sealed to: the kit's own, or a later rotation's.
    public let reading: ReadingKey
    public let editor: EditorKey
    /// The reading key a rotation replaced, when days may still be sealed to it.
    public let previousReading: ReadingKey?
    /// When the archive's keys were rotated after the kit was written (Unix seconds); nil when the
    /// kit holds the archive's current keys.
    public let rotatedSince: Int64?
    /// The day opened, and how many events it held.
    public let dayOpened: CalendarDay?
    public let eventsOpened: Int
    /// Days the archive holds.
    public let days: Int
    /// Whether the kit's record came from the service (only words were given).
    public let recordFromService: Bool

    /// Whether the kit holds the archive's current keys.
    public var isCurrent: Bool { rotatedSince == nil }

    /// Opens `pieces` with `passphrase` and proves them against the service at `server` (or the
    /// kit's own address). Every failure is a `KitCheckError` or `KitError` naming the part.
    public static func run(_ pieces: KitPieces, passphrase: SecretBytes, server: String?, retry: RetryPolicy = RetryPolicy(),
                           transport: (any HTTPTransport)? = nil, onRetry: (@Sendable (String) -> Void)? = nil) async throws -> KitCheck {
        var record = pieces.record
        let given = server ?? pieces.endpoint
        if record == nil {
            guard let given else { throw KitError.noService }
            // The record's archive is not known before it is fetched; the client's bucket is only
            // its address for /b/ routes, which this fetch does not use.
            let client = ArchiveClient(endpoint: given, bucket: try BucketID(String(repeating: "a", count: BucketID.length)),
                                       retry: retry, transport: transport, onRetry: onRetry)
            guard let fetched = try await client.kit(pieces.secret.locator) else { throw KitError.noRecord(service: given) }
            record = fetched.sealed
        }
        let contents = try KitRecord.open(record!, secret: pieces.secret, passphrase: passphrase)
        if let bucket = pieces.bucket, bucket != contents.bucket { throw KitError.sheetsDisagree }
        let endpoint = server ?? contents.endpoint
        let client = ArchiveClient(endpoint: endpoint, bucket: contents.bucket, retry: retry, transport: transport, onRetry: onRetry)

        // The archive, and the kit's writer key as its owner (a claim of one's own bucket changes nothing).
        let stats = try await client.stats()
        guard stats.exists else { throw KitCheckError.noArchive(contents.bucket, endpoint) }
        guard try await owns(client, contents.writer) else { throw KitCheckError.notOwner(contents.bucket, endpoint) }

        // The read key: the kit's, or the one a later rotation sealed to the writer key.
        var reading = contents.reading, editor = contents.editor, previous = contents.previousReading
        var rotatedSince: Int64?
        if try await !takes(client, reading) {
            guard let sealed = try await client.kit(RotationRecord.locator(for: contents.writer)) else { throw KitCheckError.staleKit(endpoint) }
            let rotation = try RotationRecord(opening: sealed.sealed, for: contents.writer)
            guard try await takes(client, rotation.reading) else { throw KitCheckError.staleKit(endpoint) }
            (reading, editor, previous, rotatedSince) = (rotation.reading, rotation.editor, rotation.previousReading, rotation.written)
        }

        // One real day opened with the reading key (or the one a rotation replaces): the largest
        // of the newest thousand, so that it holds records rather than an empty day's two braces.
        var opened: CalendarDay?, events = 0
        if let last = stats.lastDay {
            let recent = try await client.listingPage(from: last.adding(days: -999), to: last, readKey: reading.readKey)
            let day = recent.days.max { ($0.bytes, $0.day) < ($1.bytes, $1.day) }?.day ?? last
            guard let sealed = try await client.sealedDay(day, readKey: reading.readKey) else { throw KitCheckError.dayVanished(day) }
            events = try open(sealed, day: day, bucket: contents.bucket, keys: [reading] + (previous.map { [$0] } ?? []))
            opened = day
        }
        return KitCheck(contents: contents, endpoint: endpoint, reading: reading, editor: editor, previousReading: previous,
                        rotatedSince: rotatedSince, dayOpened: opened, eventsOpened: events, days: stats.days,
                        recordFromService: pieces.record == nil)
    }

    /// Whether the service answers reads signed with `reading`'s read key (403: another is registered).
    static func takes(_ client: ArchiveClient, _ reading: ReadingKey) async throws(ArchiveError) -> Bool {
        do throws(ArchiveError) {
            _ = try await client.listingPage(limit: 1, readKey: reading.readKey)
            return true
        } catch {
            guard error.status == 403 || error.status == 401 else { throw error }
            return false
        }
    }

    /// Whether the service takes `writer` as the bucket's owner: a claim of one's own bucket
    /// answers 200 and changes nothing; another writer's is refused with 403.
    static func owns(_ client: ArchiveClient, _ writer: Ed25519PrivateKey) async throws(ArchiveError) -> Bool {
        do throws(ArchiveError) {
            try await client.claim(writer: writer, invite: nil)
            return true
        } catch {
            guard error.status == 403 else { throw error }
            return false
        }
    }

    /// Opens a sealed day with the first of `keys` that opens it; returns its event count.
    static func open(_ sealed: [UInt8], day: CalendarDay, bucket: BucketID, keys: [ReadingKey]) throws -> Int {
        for key in keys {
            guard let plaintext = try? SealedEnvelope.open(sealed, with: key.privateKey, aad: .day(bucket: bucket.rawValue, day: day)) else { continue }
            let body = try DayBody.inflate(plaintext)
            return switch try body.decoded() {
            case let .columnar(columnar): columnar.series.reduce(0) { $0 + $1.count }
            case let .lines(lines): lines.count
            }
        }
        throw KitCheckError.dayDoesNotOpen(day)
    }
}

/// A kit that opened but does not prove itself against the archive: which part failed.
public enum KitCheckError: Error, Equatable, CustomStringConvertible {
    case noArchive(BucketID, String)
    case notOwner(BucketID, String)
    case staleKit(String)
    case dayVanished(CalendarDay)
    case dayDoesNotOpen(CalendarDay)
    case otherArchive(kit: BucketID, profile: BucketID)

    public var description: String {
        switch self {
        case let .noArchive(bucket, endpoint):
            "The kit opens, but the service at \(endpoint) holds no archive \(bucket): if the archive moved, give its new address with --server; if the service lost it, restore the service's own backup first (documents/operations.md)."
        case let .notOwner(bucket, endpoint):
            "The kit opens, but the service at \(endpoint) says archive \(bucket) belongs to another writer key: this kit is not that archive's."
        case let .staleKit(endpoint):
            "The kit opens and its writer key owns the archive, but the service at \(endpoint) no longer takes its read key and keeps no rotation record that names the new one; use a kit written after the keys were last rotated."
        case let .dayVanished(day):
            "The service listed \(day) but did not hand it over; run verify again."
        case let .dayDoesNotOpen(day):
            "The kit's reading key does not open \(day) as the service holds it: the day was sealed to another key; this kit cannot read this archive."
        case let .otherArchive(kit, profile):
            "This kit is for archive \(kit), and this machine writes archive \(profile): it is another archive's kit."
        }
    }
}
