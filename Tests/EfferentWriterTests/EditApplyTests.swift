import EfferentCompression
import EfferentClient
import EfferentCore
import EfferentReader
@testable import EfferentServer
@testable import EfferentWriter
import Foundation
import Testing

/// Agent edits end to end against the real service (§8): an agent seals and posts, the writer
/// verifies, opens, applies, answers and uploads; replays touch nothing; undo restores the days.
@Suite struct EditApplyTests {
    static let june1 = CalendarDay("2024-06-01")!
    static let june2 = CalendarDay("2024-06-02")!

    static func lunch(_ kcal: Double, id: String = "agent:meal:2024-06-01:lunch") -> EditItem {
        .put(.init(id: id, metric: "dietaryEnergy", start: Int64(instant("2024-06-01 12:30:00")),
                   end: Int64(instant("2024-06-01 12:30:00")), value: kcal, unit: "kcal"))
    }

    static let weight = EditItem.put(.init(id: "agent:weight:0601", metric: "bodyMass", start: Int64(instant("2024-06-01 07:00:00")),
                                           end: Int64(instant("2024-06-01 07:00:00")), value: 71.4, unit: "kg"))

    func agent(_ harness: WriterHarness, editor: Ed25519PrivateKey? = nil, reading: ReadingKey? = nil) -> EditAgent {
        EditAgent(client: harness.client, reading: reading ?? harness.reading, editor: editor ?? harness.editor.privateKey, profile: nil)
    }

    func energy(_ events: [DayEvent]) -> Double? {
        events.first { $0.metric == "dietaryEnergy" && $0.bucket == .day }?.value
    }

    @Test func anAgentsEditLandsInTheArchiveAndTheQueueEmpties() async throws {
        let harness = try await WriterHarness()
        try harness.importRecords(PushTests.records)
        _ = try await harness.pusher().run(check: .never)

        let queued = try await agent(harness).write([Self.lunch(650), Self.weight])
        #expect(try await harness.client.edits(readKey: harness.reading.readKey).map(\.name) == [queued.name])
        let report = try await harness.applier().run()
        #expect(report.answered == 1 && report.itemsApplied == 2 && report.itemsFailed == 0)
        let push = try await harness.pusher().run(check: .never)
        #expect(push.sent == 1, "only the day the edit touched goes out")

        let day = try #require(try await harness.archivedEvents(Self.june1))
        #expect(energy(day) == 650)
        #expect(day.filter { $0.metric == "bodyMass" }.map(\.value) == [71.4])
        #expect(day.first { $0.metric == "bodyMass" }?.source == SourceStore.agentSource)
        #expect(try await harness.client.edits(readKey: harness.reading.readKey).isEmpty)
        let listed = try await harness.client.edits(all: true, readKey: harness.reading.readKey)
        #expect(listed.map(\.status) == ["applied"])
        #expect(try await harness.client.outcome(of: queued.name, readKey: harness.reading.readKey) == EditOutcome(applied: 2, failed: []))
        // A second run finds nothing to do.
        #expect(try await harness.applier().run().answered == 0)
    }

    @Test func eachBadItemFailsWithItsWordWhileTheRestApply() async throws {
        let harness = try await WriterHarness()
        // Items an honest agent would refuse to send: packed by hand so the writer sees them.
        let items: [JSONValue] = [
            ["op": "put", "id": "agent:a", "metric": "dietaryEnergy", "start": 1717236000, "end": 1717236000, "value": 100, "unit": "kcal"],
            ["op": "put", "id": "agent:b", "metric": "stepCount", "start": 1717236000, "end": 1717236000, "value": 5, "unit": "count"],
            ["op": "put", "id": "agent:c", "metric": "dietaryWater", "start": 1717236000, "end": 1717236000, "value": 250, "unit": "L"],
            ["op": "put", "id": "agent:d", "metric": "bodyMass", "start": 1717236000, "end": 1717235000, "value": 70, "unit": "kg"],
            ["op": "delete", "id": "agent:never"],
            ["op": "put", "id": "agent:e", "metric": "sleep", "start": 1717200000, "end": 1717228800, "stage": "asleepCore"],
        ].map { JSONValue.object($0.mapValues(Self.json)) }
        let plaintext = try JSONValue.object(["v": .number(1), "items": .array(items)]).canonicalBytes()
        let sealed = try SealedEnvelope.seal(try Deflater().compress(plaintext), to: harness.reading.publicKey,
                                             aad: .edit(bucket: harness.reading.bucket.rawValue))
        let queued = try await harness.client.post(sealed: sealed, editor: harness.editor.privateKey)
        let report = try await harness.applier().run()
        let outcome = try #require(report.outcomes.first?.outcome)
        #expect(outcome == EditOutcome(applied: 2, failed: [.init(item: 1, code: .unknownMetric), .init(item: 2, code: .badUnit),
                                                            .init(item: 3, code: .badRange), .init(item: 4, code: .notFound)]))
        #expect(try await harness.client.outcome(of: queued.name, readKey: harness.reading.readKey) == outcome)
        #expect(try harness.store.records(on: Self.june1).map(\.metric).sorted() == ["dietaryEnergy", "sleep"])
    }

    static func json(_ value: Any) -> JSONValue {
        switch value {
        case let text as String: .string(text)
        case let number as Int: .number(Double(number))
        default: .null
        }
    }

    @Test func aWholeEditThatDoesNotVerifyOrOpenChangesNothing() async throws {
        let harness = try await WriterHarness()
        // Sealed to another archive's reading key: the signature holds, the envelope does not open.
        _ = try await agent(harness, reading: ReadingKey()).write([Self.lunch(100)])
        // Garbage under a valid seal: opens, does not unpack.
        let garbage = try SealedEnvelope.seal(Array("not deflate".utf8), to: harness.reading.publicKey,
                                              aad: .edit(bucket: harness.reading.bucket.rawValue))
        _ = try await harness.client.post(sealed: garbage, editor: harness.editor.privateKey)
        let report = try await harness.applier().run()
        #expect(report.outcomes.map(\.outcome) == [.refusedWhole(.cannotOpen), .refusedWhole(.malformed)])
        #expect(report.refused == 2)

        // A writer that registered another editor answers badSignature without opening anything.
        _ = try await agent(harness).write([Self.lunch(100)])
        let strict = try await harness.applier(editor: EditorKey().publicKey).run()
        #expect(strict.outcomes.map(\.outcome) == [.refusedWhole(.badSignature)])
        #expect(try harness.store.recordCount() == 0)
        #expect(try harness.store.editJournal().isEmpty)
    }

    @Test func aReplayedEditIsAnsweredReplayedAndTouchesNothing() async throws {
        let harness = try await WriterHarness()
        let edit = try SealedEdit.make([Self.lunch(650)], bucket: harness.reading.bucket, readingPublic: harness.reading.publicKey,
                                       editor: harness.editor.privateKey, now: Int64(Date().timeIntervalSince1970))
        _ = try await harness.client.post(sealed: edit.sealed, editor: harness.editor.privateKey)
        #expect(try await harness.applier().run().itemsApplied == 1)
        // The owner changes the entry by hand-undo, then someone posts the very same sealed bytes again.
        _ = try harness.store.undo(edit: try #require(try harness.store.editJournal().first.map { try EditName($0.edit) }), now: Date())
        _ = try await harness.client.post(sealed: edit.sealed, editor: harness.editor.privateKey)
        let replay = try await harness.applier().run()
        #expect(replay.outcomes.map(\.outcome) == [.refusedWhole(.replayed)])
        #expect(try harness.store.recordCount() == 0, "the replay did not bring the undone entry back")
    }

    @Test func anEditSignedLongBeforeTheNewestAnsweredOneIsAReplay() async throws {
        let harness = try await WriterHarness()
        _ = try await agent(harness).write([Self.lunch(650)])
        #expect(try await harness.applier().run().itemsApplied == 1)
        let newest = try #require(try harness.store.answeredEdits().first?.signedAt)
        // A different edit, validly signed 16 minutes before the one just answered (as a service
        // holding it back would serve it): refused without being opened.
        func served(signedAt: Int64) throws -> FetchedEdit {
            let made = try SealedEdit.make([Self.weight], bucket: harness.reading.bucket, readingPublic: harness.reading.publicKey,
                                           editor: harness.editor.privateKey, now: signedAt)
            return FetchedEdit(name: EditName(milliseconds: signedAt * 1000), sealed: made.sealed, headers: made.headers)
        }
        #expect(try harness.applier().answer(try served(signedAt: newest - 901)).0 == .refusedWhole(.replayed))
        #expect(try harness.store.recordCount() == 1)
        #expect(try harness.applier().answer(try served(signedAt: newest - 900)).0 == EditOutcome(applied: 1, failed: []),
                "within the window it applies")
    }

    @Test func aWriterKilledBeforeReportingAppliesAgainAndKeepsOneRecordPerID() async throws {
        let harness = try await WriterHarness()
        let queued = try await agent(harness).write([Self.lunch(650), Self.weight])
        // Applied, then killed before the outcome went out.
        let fetched = try #require(try await harness.client.fetchEdit(queued.name, writer: harness.writer))
        _ = try harness.applier().answer(fetched)
        #expect(try harness.store.recordCount() == 2)
        let report = try await harness.applier().run()
        #expect(report.answered == 1 && report.itemsApplied == 2)
        #expect(try harness.store.recordCount() == 2, "one record per id")
        #expect(try harness.store.editJournal().count == 2, "the edit was applied once; the next run only sent its answer")

        // A delete applied and not reported, then undone by the owner before the next run: the
        // run sends the stored answer (applied, not notFound) and does not delete again.
        let delete = try await agent(harness).write([.delete(id: "agent:weight:0601")])
        let fetchedDelete = try #require(try await harness.client.fetchEdit(delete.name, writer: harness.writer))
        #expect(try harness.applier().answer(fetchedDelete).0 == EditOutcome(applied: 1, failed: []))
        #expect(try harness.store.recordCount() == 1)
        _ = try harness.store.undo(edit: delete.name, now: Date())
        let again = try await harness.applier().run()
        #expect(again.outcomes.map(\.outcome) == [EditOutcome(applied: 1, failed: [])])
        #expect(try harness.store.recordCount() == 2, "the owner's undo stands")

        // A delete of an id deleted before is done, not notFound; one never written is notFound.
        _ = try await agent(harness).write([.delete(id: "agent:weight:0601")])
        _ = try await agent(harness).write([.delete(id: "agent:weight:0601"), .delete(id: "agent:never")])
        let twice = try await harness.applier().run()
        #expect(twice.outcomes.map(\.outcome) == [EditOutcome(applied: 1, failed: []),
                                                  EditOutcome(applied: 1, failed: [.init(item: 1, code: .notFound)])])
    }

    @Test func undoRestoresThePreviousDaysByteForByte() async throws {
        let harness = try await WriterHarness()
        try harness.importRecords(PushTests.records)
        _ = try await harness.applier().run()
        _ = try await agent(harness).write([Self.lunch(500)])
        _ = try await harness.applier().run()
        _ = try await harness.pusher().run(check: .never)
        let before = try #require(try await harness.archivedBody(Self.june1))
        #expect(energy(try #require(try await harness.archivedEvents(Self.june1))) == 500)

        // A second edit replaces lunch and deletes nothing else; then it is undone.
        let second = try await agent(harness).write([Self.lunch(800), Self.weight])
        _ = try await harness.applier().run()
        _ = try await harness.pusher().run(check: .never)
        #expect(energy(try #require(try await harness.archivedEvents(Self.june1))) == 800)
        let journal = try harness.store.editJournal().filter { $0.edit == second.name.rawValue }
        #expect(journal.first?.displaced?.value == 500, "the journal keeps what the put replaced")

        let undo = try harness.store.undo(edit: second.name, now: Date())
        #expect(undo.items == 2 && undo.days == [Self.june1])
        let push = try await harness.pusher().run(check: .never)
        #expect(push.sent == 1)
        #expect(try await harness.archivedBody(Self.june1) == before, "the day's body is the one before the edit, byte for byte")
        #expect(throws: EditJournalError.alreadyUndone(second.name)) { try harness.store.undo(edit: second.name, now: Date()) }
    }

    @Test func anEarlierEditCannotBeUndoneUnderALaterOneOnTheSameID() async throws {
        let harness = try await WriterHarness()
        let first = try await agent(harness).write([Self.lunch(500)])
        _ = try await harness.applier().run()
        let second = try await agent(harness).write([.delete(id: "agent:meal:2024-06-01:lunch")])
        _ = try await harness.applier().run()
        #expect(try harness.store.recordCount() == 0)
        #expect(throws: EditJournalError.laterEdit(second.name.rawValue)) { try harness.store.undo(edit: first.name, now: Date()) }
        _ = try harness.store.undo(edit: second.name, now: Date())
        #expect(try harness.store.recordCount() == 1, "undoing the delete puts the lunch back")
        _ = try harness.store.undo(edit: first.name, now: Date())
        #expect(try harness.store.recordCount() == 0)
        let stranger = try EditName("0000000000001-aaaaaaaa")
        #expect(throws: EditJournalError.unknownEdit(stranger)) { try harness.store.undo(edit: stranger, now: Date()) }
    }

    @Test func anEntryDatedLongAgoSendsItsOwnDayAndNoRunOfEmptyOnes() async throws {
        let harness = try await WriterHarness()
        try harness.importRecords(PushTests.records)
        _ = try await harness.pusher().run(check: .never)
        let before = try await harness.client.listing(readKey: harness.reading.readKey).count
        _ = try await agent(harness).write([.put(.init(id: "agent:old", metric: "bodyMass", start: 0, end: 0, value: 3.2, unit: "kg"))])
        _ = try await harness.applier().run()
        let push = try await harness.pusher().run(check: .never)
        #expect(push.sent == 1)
        let listed = try await harness.client.listing(readKey: harness.reading.readKey)
        #expect(listed.count == before + 1 && listed.first?.day == CalendarDay("1970-01-01"))
    }

    @Test func theAgentRefusesABadItemBeforeAnythingIsSealed() async throws {
        let harness = try await WriterHarness()
        let future = EditItem.put(.init(id: "agent:x", metric: "dietaryWater", start: 4_000_000_000, end: 4_000_000_000, value: 1, unit: "mL"))
        await #expect(throws: EditAgentError.self) { _ = try await agent(harness).write([Self.lunch(1), future]) }
        #expect(try await harness.client.edits(all: true, readKey: harness.reading.readKey).isEmpty)
        #expect(throws: EditAgentError.notAList) { _ = try EditAgent.items(json: Array("{\"x\":1}".utf8)) }
    }
}
