import EfferentClient
import EfferentCore
@testable import EfferentServer
@testable import EfferentWriter
import EfferentSystem
import Foundation
import Testing

/// A writer killed at any moment of import or push, then run again, converges: no day lost,
/// none sent with different content for the same source state.
@Suite struct ConvergenceTests {
    /// Forwards to the real transport, then fails after the service answered — as if the writer
    /// died between the upload and recording it.
    final class DiesAfterUpload: HTTPTransport {
        let inner: CurlTransport
        private let isArmed = Atomic(true)
        var armed: Bool {
            get { isArmed.load(ordering: .sequentiallyConsistent) }
            set { isArmed.store(newValue, ordering: .sequentiallyConsistent) }
        }
        init(endpoint: String) { inner = CurlTransport(endpoint: endpoint) }
        func send(_ request: ClientRequest) async throws(ArchiveError) -> ClientResponse {
            let response = try await inner.send(request)
            if armed, request.target.hasSuffix("/days"), request.method == "PUT" {
                throw .unreachable(endpoint: "test", reason: "the writer died")
            }
            return response
        }
    }

    @Test func aPushInterruptedAfterTheServiceStoredResendsTheSameContent() async throws {
        let harness = try await WriterHarness()
        try harness.importRecords(PushTests.records)
        let dying = DiesAfterUpload(endpoint: harness.service.endpoint)
        let client = ArchiveClient(endpoint: harness.service.endpoint, bucket: harness.reading.bucket,
                                   retry: .none, transport: dying)
        let fixed = harness.now
        let interrupted = Pusher(store: harness.store, builder: DayBuilder(store: harness.store, hourlyFrom: nil), client: client,
                                 reading: harness.reading, writer: harness.writer, now: { fixed })
        await #expect(throws: ArchiveError.self) { try await interrupted.run(check: .never) }
        let stored = try #require(try await harness.archivedEvents(PushTests.june1))
        #expect(try harness.store.pendingDays().count == 3, "nothing recorded as sent")

        let rerun = try await harness.pusher().run(check: .never)
        #expect(rerun.sent == 3 && rerun.refused == 0)
        let again = try #require(try await harness.archivedEvents(PushTests.june1))
        #expect(again == stored, "the same source state sends the same content")
        #expect(try harness.store.pendingDays().isEmpty)
    }

    @Test func anImportKilledMidwayIsFinishedByTheNextRun() async throws {
        let harness = try await WriterHarness()
        // The first run writes one batch and dies before finishing (no deletion pass ran).
        let dying = try harness.store.beginImport(source: "export.zip", format: "xml", full: true)
        for record in PushTests.records.prefix(3) { try dying.record(record) }
        try dying.flush()
        #expect(try harness.store.recordCount() == 3)
        #expect(try harness.store.pendingDays().contains(PushTests.june1), "what was written is already marked")
        // The re-run reads the whole export again: what is missing is added, nothing twice, nothing lost.
        let session = try harness.importRecords(PushTests.records)
        #expect(session.added == PushTests.records.count - 3 && session.removed == 0)
        #expect(try harness.store.recordCount() == PushTests.records.count)
        let report = try await harness.pusher().run(check: .never)
        #expect(report.sent == 3)
    }
}
