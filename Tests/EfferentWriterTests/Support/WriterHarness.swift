import EfferentHTTP
import EfferentClient
import EfferentCore
import EfferentReader
@testable import EfferentServer
@testable import EfferentWriter
import EfferentServiceTestSupport
import EfferentSystem
import Foundation

/// A writer with its own store, keys and a real archive service on loopback (a real SQLite file
/// under a real libmicrohttpd daemon), claimed and registered as `efferent init` leaves it.
final class WriterHarness: Sendable {
    let directory = NSTemporaryDirectory() + "efferent-writer-" + UUID().uuidString
    let service: RunningService
    let reading = ReadingKey()
    let writer = Ed25519PrivateKey()
    let editor = EditorKey()
    let zone: ZoneCalendar
    let store: SourceStore
    let client: ArchiveClient
    /// The writer's clock (tests move it).
    var now: Date {
        get { clock.withLock { $0 } }
        set { clock.withLock { $0 = newValue } }
    }
    private let clock: Mutex<Date>

    init(zone: String = "Europe/Berlin", now: Date = Date(timeIntervalSince1970: 1_717_416_000), clockSkew: Int64 = 0) async throws {
        service = try RunningService(directory: directory + "/service")
        self.zone = ZoneCalendar(identifier: zone)!
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        store = try SourceStore(path: directory + "/writer.sqlite", zone: self.zone)
        let skew = clockSkew
        clock = Mutex(now)
        client = try await service.claimArchive(reading: reading, writer: writer, editor: editor,
                                                clock: ServiceClock(local: { Date().addingTimeInterval(TimeInterval(skew)) }))
    }

    var serviceStore: SQLiteArchiveStore { service.sqlite }

    deinit {
        service.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Imports records as one run (`full` as an Apple export would be).
    @discardableResult
    func importRecords(_ records: [SourceRecord], full: Bool = true) throws -> ImportSession {
        let session = try store.beginImport(source: "test", format: "test", full: full)
        for record in records { try session.record(record) }
        try session.finish()
        return session
    }

    func pusher(hourlyFrom: CalendarDay? = nil) -> Pusher {
        let fixed = now
        return Pusher(store: store, builder: DayBuilder(store: store, hourlyFrom: hourlyFrom), client: client,
                      reading: reading, writer: writer, now: { fixed })
    }

    func applier(editor registered: Ed25519PublicKey? = nil) -> EditApplier {
        let fixed = now
        return EditApplier(store: store, client: client, reading: reading, writer: writer,
                           editor: registered ?? editor.publicKey, now: { fixed })
    }

    /// The day's body as the archive holds it, opened but still deflated as the writer built it.
    func archivedBody(_ day: CalendarDay) async throws -> [UInt8]? {
        guard let sealed = try await client.sealedDay(day, readKey: reading.readKey) else { return nil }
        return try SealedEnvelope.open(sealed, with: reading.privateKey, aad: .day(bucket: reading.bucket.rawValue, day: day))
    }

    /// The day as the archive holds it, opened with the reading key, as events.
    func archivedEvents(_ day: CalendarDay) async throws -> [DayEvent]? {
        guard let sealed = try await client.sealedDay(day, readKey: reading.readKey) else { return nil }
        let plaintext = try SealedEnvelope.open(sealed, with: reading.privateKey, aad: .day(bucket: reading.bucket.rawValue, day: day))
        guard case let .columnar(columns) = try DayBody.inflate(plaintext).decoded() else { return nil }
        return columns.events
    }

    /// What a reader sees: the archive synced into a mirror by the reader's own `Syncer`.
    func syncedSource() async throws -> MirrorSource {
        let mirror = try Mirror(profile: Profile(directory: directory + "/reader"), endpoint: service.endpoint)
        _ = try await Syncer(client: client, reading: reading, mirror: mirror).run()
        return MirrorSource(mirror: mirror)
    }

    func archivedTimeZone(_ day: CalendarDay) async throws -> String? {
        guard let sealed = try await client.sealedDay(day, readKey: reading.readKey) else { return nil }
        let plaintext = try SealedEnvelope.open(sealed, with: reading.privateKey, aad: .day(bucket: reading.bucket.rawValue, day: day))
        guard case let .columnar(columns) = try DayBody.inflate(plaintext).decoded() else { return nil }
        return columns.timeZone
    }
}

/// Apple's export dates are local with an offset; tests write instants directly.
func instant(_ text: String, zone: String = "Europe/Berlin") -> Double {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: zone)
    formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
    return formatter.date(from: text)!.timeIntervalSince1970
}

func steps(_ start: String, _ end: String, _ value: Double, source: String, device: String? = nil) -> SourceRecord {
    SourceRecord(kind: .quantity, type: "HKQuantityTypeIdentifierStepCount", source: source, deviceModel: device,
                 start: instant(start), end: instant(end), value: value, unit: "count")
}

func heartRate(_ at: String, _ value: Double) -> SourceRecord {
    SourceRecord(kind: .quantity, type: "HKQuantityTypeIdentifierHeartRate", source: "Apple Watch", deviceModel: "Watch",
                 start: instant(at), end: instant(at), value: value, unit: "count/min")
}

func sleep(_ start: String, _ end: String, _ stage: String, source: String = "Apple Watch") -> SourceRecord {
    SourceRecord(kind: .category, type: "HKCategoryTypeIdentifierSleepAnalysis", source: source, start: instant(start),
                 end: instant(end), category: "HKCategoryValueSleepAnalysis" + stage)
}
