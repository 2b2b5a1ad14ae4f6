import EfferentClient
import EfferentCore
@testable import EfferentReceiver
import EfferentSQLite
import EfferentTestSupport
@testable import EfferentWriter
import Foundation
import EfferentSystem
import Testing

/// The receiver seals and uploads by itself: a phone's batches reach the archive once they stop
/// coming, deletions take their records out of the sealed days, and a backfill streamed the way
/// the app streams it ends as an archive equal to the one an import of the same data makes.
@Suite(.serialized) struct SealingTests {
    @Test func batchesReachTheArchiveWithoutAPushAndDeletionsLeaveIt() async throws {
        let harness = try await ReceiverHarness(zone: "UTC", seals: true, debounce: 0.3)
        harness.receiver.start()
        let now = (Date().timeIntervalSince1970 - 3600).rounded(.down) * 1000
        let uuid = "EEEEEEEE-0000-4000-8000-000000000001"
        let sample = PulsBatchText.quantity(uuid: uuid, type: "HKQuantityTypeIdentifierBodyMass", start: now, end: now, value: 71.5, unit: "kg")
        #expect(try harness.post(PulsBatchText.batch(samples: [sample])).status == 200)
        let today = harness.store.zone.day(of: now / 1000)
        let arrived = try await harness.eventually { try await harness.archivedEvents(today)?.contains { $0.metric == "bodyMass" && $0.value == 71.5 } == true }
        #expect(arrived, "sealed and uploaded after the debounce, no push run")
        #expect(try await harness.eventually { try harness.store.pendingDays().isEmpty })
        #expect(try harness.post(PulsBatchText.batch(deletions: [PulsBatchText.deletion(uuid: uuid, type: "HKQuantityTypeIdentifierBodyMass")])).count("deleted") == 1)
        let left = try await harness.eventually { try await harness.archivedEvents(today)?.contains { $0.metric == "bodyMass" } == false }
        #expect(left, "the day is sealed again without the deleted record")
        #expect(harness.log.all.contains { $0.contains("\"sealed\":{\"sent\":") })
    }

    /// A backfill: four types in parallel over four connections, each type's batches out of
    /// order, the store held by another process for a while (503s, retried), a re-sweep of
    /// recent days under new batch IDs (duplicates), exact replays, then deletions. The days the
    /// receiver sealed equal, event for event, the days an import of the same data as an Apple
    /// export builds.
    @Test func aBackfillEndsAsTheArchiveAnImportOfTheSameDataMakes() async throws {
        let harness = try await ReceiverHarness(zone: "UTC", seals: true, debounce: 0.3)
        let first = CalendarDay("2024-06-01")!
        let days = 10
        let stream = BackfillStream(seed: 15, first: first.startUnixSeconds, days: days, perHour: 2)
        let byType = stream.batches(size: 3, seed: 16)
        let batches = byType.values.reduce(0) { $0 + $1.count }
        #expect(batches > 1000 && stream.deleted.count > 20)
        // Both connections the store's file is written through: the writer's (a batch's commit) and
        // the receiver's own (a refused batch's note for `efferent status`).
        harness.store.serialized { harness.store.db.setBusyTimeout(milliseconds: 20) }
        harness.phones.serialized { $0.setBusyTimeout(milliseconds: 20) }
        let port = try harness.listen()
        let (token, user) = (harness.token, harness.user.description)
        harness.receiver.start()

        // Another process holds the store while the phones start: their first batches are 503s.
        let other = try SQLiteConnection(path: harness.store.path)
        try other.execute("BEGIN IMMEDIATE")
        let held = Held()
        let phones = Self.types.map { _ in PulsPhone(port: port, token: token, user: user) }
        // Each phone on a thread of its own: its socket calls block, which tasks must not.
        let streams = Self.types.enumerated().map { index, type in
            let phone = phones[index], batches = byType[type] ?? []
            return PhoneThread {
                var accepted = 0
                for batch in batches {
                    let answer = try phone.postRetrying(batch.text, attempts: 400, held: held.isHeld)
                    guard answer.status == 200 else { throw Unexpected(answer: "backfill: \(answer.status) \(answer.body)") }
                    accepted += answer.count("accepted")
                }
                // The re-sweep of the most recent batches under new IDs, then exact replays.
                for batch in batches.suffix(5) {
                    let resent = batch.text.replacingOccurrences(of: batch.id, with: UUID().uuidString)
                    for text in [resent, batch.text] {
                        let answer = try phone.postRetrying(text)
                        guard answer.count("duplicates") == batch.samples else { throw Unexpected(answer: "re-sweep: \(answer.status) \(answer.body)") }
                    }
                }
                return accepted
            }
        }
        #expect(try await harness.eventually { phones.reduce(0) { $0 + ($1.retried[503] ?? 0) } >= 4 }, "the held store was answered 503")
        try other.execute("COMMIT")
        held.release()
        // The short timeout was for the held store only: from here a moment's contention (another
        // connection's checkpoint) waits as a real store does rather than turning into 503s.
        harness.store.serialized { harness.store.db.setBusyTimeout(milliseconds: 10_000) }
        harness.phones.serialized { $0.setBusyTimeout(milliseconds: 10_000) }
        var accepted = 0
        for stream in streams { accepted += try await stream.value() }
        // Every sample stored once, whatever was retried or resent. The answers' counts may fall
        // short of that: a batch whose answer was lost on a dropped connection is sent again and
        // answered as the replay it is (nothing accepted), as the app would see it.
        #expect(accepted <= stream.samples.count)
        #expect(try harness.phones.phoneStats().reduce(0) { $0 + $1.rows } == stream.samples.count)
        let tombstones = PulsPhone(port: port, token: token, user: user)
        var deleted = 0
        for batch in stream.deletionBatches(size: 9) { deleted += try tombstones.postRetrying(batch.text).count("deleted") }
        #expect(deleted == stream.deleted.count)

        // The same data as an Apple export, imported into a store of its own.
        let exported = harness.directory + "/export.xml"
        try stream.exportXML().write(toFile: exported, atomically: true, encoding: .utf8)
        let imported = try SourceStore(path: harness.directory + "/imported.sqlite", zone: harness.store.zone)
        let session = try imported.beginImport(source: "export.xml", format: "apple-xml", full: true)
        _ = try ExportImporter.read(URL(fileURLWithPath: exported), into: session)
        try session.finish()
        #expect(session.added == stream.samples.count - stream.deleted.count)

        #expect(try await harness.eventually(120) { try harness.store.pendingDays().isEmpty }, "everything sealed and uploaded")
        let builder = DayBuilder(store: imported, hourlyFrom: nil)
        var totals = 0
        for offset in 0..<days {
            let day = first.adding(days: offset)
            let archived = try await harness.archivedEvents(day) ?? []
            let expected = try builder.events(for: day)
            totals += expected.filter { $0.kind == .total }.count
            #expect(Set(archived) == Set(expected), "\(day)")
        }
        #expect(totals == days * 3, "steps, active energy and distance: one day total each")
    }

    static let types = BackfillStream.types.map(\.0)

    struct Unexpected: Error { let answer: String }
}

/// Whether the test still holds the store (the phones' retries meanwhile are not counted).
final class Held: Sendable {
    private let state = Mutex(true)
    @Sendable func isHeld() -> Bool { state.withLock { $0 } }
    func release() { state.withLock { $0 = false } }
}

/// Work on a thread of its own, awaited without holding one of the tasks' threads.
final class PhoneThread: Sendable {
    private let done = Signal()
    private let result = Mutex<Result<Int, any Error>?>(nil)

    init(_ work: @escaping @Sendable () throws -> Int) {
        let thread = Thread { [self] in
            let outcome = Result { try work() }
            result.withLock { $0 = outcome }
            done.fire()
        }
        thread.start()
    }

    func value() async throws -> Int {
        await done.wait()
        return try result.withLock { $0 }!.get()
    }
}
