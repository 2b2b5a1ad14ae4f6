import EfferentClient
import EfferentCore
import EfferentExportGenerator
import EfferentHTTP
import EfferentServiceTestSupport
import EfferentTestSupport
import EfferentSystem
import Foundation
@testable import EfferentServer
import Testing
@testable import EfferentWriter

/// The writer's library from two threads at once: an import committing batches while a push
/// seals and uploads days, as a receiver will take a phone's samples while its days go out.
@Suite struct SharedWriterTests {
    /// A writer profile on disk, as `efferent init` leaves it, for a real service on loopback.
    final class WriterProfile: Sendable {
        let directory = NSTemporaryDirectory() + "efferent-shared-writer-" + UUID().uuidString
        let service: RunningService
        let profile: Profile
        let reading = ReadingKey()
        let writer = Ed25519PrivateKey()

        init() async throws {
            service = try RunningService(directory: directory + "/service")
            profile = Profile(directory: directory + "/writer")
            try profile.prepare()
            try profile.write(KeyFile.readingName, KeyFile.encode(reading))
            try profile.write(KeyFile.writerName, KeyFile.encodeWriterKey(writer))
            try profile.save(ProfileSettings(endpoint: endpoint, bucket: reading.bucket, timeZone: "Europe/Berlin", hourlyFrom: nil, role: "writer"))
            _ = try await service.claimArchive(reading: reading, writer: writer)
        }

        var endpoint: String { service.endpoint }

        deinit {
            service.stop()
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// Holds every upload (once the first has arrived, `uploading` fires) until `release` fires.
    final class HeldUploads: HTTPTransport {
        let inner: CurlTransport
        let uploading = Signal()
        let release = Signal()

        init(endpoint: String) { inner = CurlTransport(endpoint: endpoint) }

        func send(_ request: ClientRequest) async throws(ArchiveError) -> ClientResponse {
            if request.method == "PUT" && request.target.hasSuffix("/days") {
                uploading.fire()
                await release.wait()
            }
            return try await inner.send(request)
        }
    }

    /// The import goes on while the first push's uploads are in flight, so records land on days
    /// being sealed and sent. Those days stay marked and the next push sends them: at the end the
    /// archive holds every record, each day exactly as the store builds it now, and neither
    /// thread ever saw SQLite busy.
    @Test func anImportAndAPushShareTheWriter() async throws {
        let setup = try await WriterProfile()
        let export = URL(fileURLWithPath: setup.directory + "/export.xml")
        // Ending yesterday: a push sends its newest days first, as soon as a frame is full, so the
        // days in flight are days the import is still filling.
        let yesterday = CalendarDay(unixSeconds: Int64(Date().timeIntervalSince1970)).previous
        _ = try ExportGenerator(options: ExportOptions(years: 1, seed: 11, lastDay: LocalDate(year: yesterday.year, month: yesterday.month,
                                                                                                day: yesterday.day), days: 150)).writeXML(to: export)
        let transport = HeldUploads(endpoint: setup.endpoint)
        let context = try WriterContext(profile: setup.profile, retry: .immediate, transport: transport)

        // The import thread: past its second batch, it waits until the push is uploading, then
        // reads on; when it has finished, the held uploads go.
        let importing = Signal(), imported = Signal()
        let outcome = Outcome()
        Thread.detachNewThread {
            do {
                var waited = false
                let summary = try context.importExport(at: export) { progress in
                    guard !waited, progress.records >= 2 * ImportSession.batch else { return }
                    waited = true
                    importing.fire()
                    transport.uploading.waitBlocking()
                }
                outcome.set(summary)
            } catch {
                outcome.set(error)
            }
            transport.release.fire()
            imported.fire()
        }

        await importing.wait()
        // A push needs the first batch committed to know where the archive begins.
        while try context.store.earliestDay() == nil { try await Task.sleep(nanoseconds: 1_000_000) }
        let first = try await context.push(check: .never, priority: SourcePriority())
        await imported.wait()
        let summary = try outcome.summary()
        #expect(summary.tally.records > 3 * ImportSession.batch, "several batches went in while the first push was out")
        #expect(first.sent > 0 && first.refused == 0)
        let second = try await context.push(check: .never, priority: SourcePriority())
        #expect(second.sent > 0, "days that took records while they were uploading went again")
        #expect(second.refused == 0)

        // Nothing lost: every day the ledger knows is in the archive as the store builds it now.
        // A record dated in the future (an export quirk: a phone clock set forward) waits, marked.
        let tomorrow = context.zone.day(of: Date().timeIntervalSince1970).next
        #expect(try context.store.pendingDays().allSatisfy { $0 > tomorrow })
        let builder = context.builder(priority: SourcePriority())
        let client = ArchiveClient(endpoint: setup.endpoint, bucket: setup.reading.bucket, retry: .immediate)
        let listing = try await client.listing(readKey: setup.reading.readKey)
        let archived = Dictionary(uniqueKeysWithValues: listing.map { ($0.day, $0.bytes) })
        let ledger = try context.store.ledgerDays().filter { $0.day <= tomorrow }
        #expect(ledger.count == archived.count && ledger.count >= 150)
        var checked = 0
        for entry in ledger {
            let body = try builder.body(for: entry.day)
            #expect(entry.digest == body.fingerprint, "\(entry.day) was accepted as it is built now")
            #expect(archived[entry.day] == entry.bytes)
            if entry.day.daysSinceEpoch % 7 == 0, let sealed = try await client.sealedDay(entry.day, readKey: setup.reading.readKey) {
                let plaintext = try SealedEnvelope.open(sealed, with: setup.reading.privateKey,
                                                        aad: .day(bucket: setup.reading.bucket.rawValue, day: entry.day))
                #expect(try DayBody.inflate(plaintext).fingerprint == body.fingerprint, "\(entry.day) opens to what the store holds")
                checked += 1
            }
        }
        #expect(checked > 10)
    }

    /// A day marked while it was being sealed keeps its mark through the push that sent it.
    @Test func aMarkDuringAPushSurvivesIt() throws {
        let directory = NSTemporaryDirectory() + "efferent-marks-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try SourceStore(path: directory + "/writer.sqlite", zone: try #require(ZoneCalendar(identifier: "UTC")))
        let day = try #require(CalendarDay("2025-03-01"))
        try store.markDays([day])
        let read = try #require(try store.ledger(day))
        try store.markDays([day]) // a record lands while the day is out
        try store.accepted(day, digest: [1], bytes: 10, marks: read.marks)
        #expect(try store.pendingDays() == [day], "marked again, so still pending")
        #expect(try store.ledger(day)?.digest == [1], "with the fingerprint the archive now holds")
        let again = try #require(try store.ledger(day))
        try store.accepted(day, digest: [2], bytes: 10, marks: again.marks)
        #expect(try store.pendingDays().isEmpty)
        try store.markDays([day])
        let stale = try #require(try store.ledger(day)).marks
        try store.markDays([day])
        try store.unchanged(day, marks: stale)
        #expect(try store.pendingDays() == [day], "an unchanged build of an older mark clears nothing")
    }

    /// What the import thread ended with.
    final class Outcome: Sendable {
        private let result = Mutex<Result<WriterContext.ImportResult, any Error>?>(nil)
        func set(_ summary: WriterContext.ImportResult) { result.withLock { $0 = .success(summary) } }
        func set(_ error: any Error) { result.withLock { $0 = .failure(error) } }
        func summary() throws -> WriterContext.ImportResult {
            guard let result = result.withLock({ $0 }) else { throw CancellationError() }
            return try result.get()
        }
    }
}
