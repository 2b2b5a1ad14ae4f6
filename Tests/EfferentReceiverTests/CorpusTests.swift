import EfferentCore
import EfferentHTTP
@testable import EfferentReceiver
import EfferentTestSupport
@testable import EfferentWriter
import Foundation
import Testing

/// The protocol's own fixture corpus (Tests/Fixtures/puls-sync-v1, Apache-2.0, from
/// PulsHealth/pulshealth docs/protocol/fixtures): applied in order to an empty store, every batch
/// gets exactly the answer the corpus expects, the stored rows its `state` names, and a replay of
/// the whole corpus adds nothing.
@Suite struct CorpusTests {
    enum Transport: CaseIterable { case inProcess, loopback }

    @Test(arguments: Transport.allCases)
    func theCorpusGetsItsExpectedCountsAndAReplayAddsNothing(_ transport: Transport) async throws {
        let harness = try await ReceiverHarness()
        let fixtures = PulsCorpus.fixtures
        #expect(fixtures.count == 8)
        let phone = transport == .loopback ? try harness.phone() : nil
        func post(_ ndjson: String) throws -> (Int, [Int]) {
            if let phone {
                let answer = try phone.post(ndjson)
                let parsed = ReceiverHarness.Answer(HTTPResponse(status: answer.status, body: Array(answer.body.utf8)))
                return (answer.status, parsed.counts)
            }
            let answer = try harness.post(ndjson)
            return (answer.status, answer.counts)
        }
        for fixture in fixtures {
            let (status, counts) = try post(fixture.ndjson)
            #expect(status == fixture.status, "\(fixture.name)")
            #expect(counts == fixture.counts, "\(fixture.name)")
            try checkState(fixture, harness.phones)
        }
        let records = try harness.store.recordCount()
        let samples = try harness.phones.phoneStats().reduce(0) { $0 + $1.rows }
        #expect(samples == 8, "3 + 1 + 1 + 4 samples, one deleted")
        for fixture in fixtures {
            let (status, counts) = try post(fixture.ndjson)
            #expect((200..<300).contains(status), "\(fixture.name)")
            #expect(counts[0] == 0, "a replay accepts nothing: \(fixture.name)")
            #expect(counts[2] == fixture.counts[0] + fixture.counts[2], "every sample of a replay is a duplicate: \(fixture.name)")
        }
        #expect(try harness.store.recordCount() == records)
        #expect(try harness.phones.phoneStats().reduce(0) { $0 + $1.rows } == samples)
        // The profile line stays in the writer's store; it is never a record.
        #expect(try harness.phones.phoneProfile() == PulsProfile(name: nil, email: nil, dateOfBirth: 631_152_000_000, biologicalSex: "male"))
    }

    /// Each `state` of the corpus (the activity-summary rows after a fixture) against the store.
    func checkState(_ fixture: PulsCorpus.Fixture, _ store: ReceiverStore) throws {
        for row in fixture.expected["state"]?["activitySummaries"]?.arrayValue ?? [] {
            let day = row["localDate"]?.stringValue ?? ""
            let stored = try store.phoneActivitySummary(day)
            let expected = PulsActivitySummary.fields.map { row[$0]?.numberValue }
            #expect(stored?.values == expected, "\(fixture.name) \(day)")
            #expect(stored?.moveMode == row["moveMode"]?.integerValue, "\(fixture.name) \(day)")
        }
    }

    /// Decision A.6 holds for a phone too: the lines a receiver takes become exactly the records an
    /// `efferent import` of the same lines makes (the sleep stage, the workout's statistics, events
    /// and activity, route fixes, series points, ECG voltages, beats, State of Mind).
    @Test func aBatchStoresExactlyWhatAnImportOfItsLinesStores() async throws {
        let harness = try await ReceiverHarness()
        let names = ["01-quantity-category", "02-workout-route-series", "04-legacy-header", "07-special-kinds"]
        let fixtures = PulsCorpus.fixtures.filter { names.contains($0.name) }
        for fixture in fixtures { #expect(try harness.post(fixture.ndjson).status == 200) }

        let file = harness.directory + "/batches.ndjson"
        try fixtures.map(\.ndjson).joined().write(toFile: file, atomically: true, encoding: .utf8)
        let imported = try SourceStore(path: harness.directory + "/imported.sqlite", zone: harness.store.zone)
        let session = try imported.beginImport(source: "batches.ndjson", format: "pulshealth-ndjson", full: false)
        _ = try ExportImporter.read(URL(fileURLWithPath: file), into: session, lineFormats: [PulsHealthReader.format])
        try session.finish()

        let received = try rows(harness.store)
        #expect(received.count > 30, "voltages, beats, fixes and parts are records")
        #expect(received == (try rows(imported)))
        for metric in ["electrocardiogram.voltage", "heartbeatSeries", "workoutRoute.latitude", "workout.heartRate.average", "stateOfMind"] {
            #expect(received.contains { $0.contains("|\(metric)|") }, "\(metric)")
        }
    }

    /// Every record with everything that makes it one (identity, metric, values, day), sorted.
    func rows(_ store: SourceStore) throws -> [String] {
        try store.serialized {
            try store.db.statement("""
                SELECT id, metric, total, source, device, start, end, value, unit, stage, activity, duration, day FROM record ORDER BY start, id
                """).rows { row in (0..<13).map { row.isNull(Int32($0)) ? "∅" : row.text(Int32($0)) }.joined(separator: "|") }
        }
    }
}
