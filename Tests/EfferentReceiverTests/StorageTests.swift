import EfferentClient
import EfferentCore
@testable import EfferentReceiver
import EfferentTestSupport
@testable import EfferentWriter
import Foundation
import Testing

/// What each line kind does to the store (Puls Sync Protocol v1 §6): samples by UUID, deletions
/// after inserts taking a workout's route and series with it, replays doing nothing, activity
/// summaries replacing their day (and feeding `efferent check`), the profile kept locally only.
@Suite struct StorageTests {
    static let steps = "HKQuantityTypeIdentifierStepCount"
    static let rate = "HKQuantityTypeIdentifierHeartRate"

    func metrics(_ store: SourceStore) throws -> [String: Int] {
        try store.serialized {
            Dictionary(uniqueKeysWithValues: try store.db.statement("SELECT metric, count(*) FROM record GROUP BY metric").rows { ($0.text(0), Int($0.int64(1))) })
        }
    }

    @Test func deletionsFollowInsertsAndAWorkoutTakesItsRouteAndSeries() async throws {
        let harness = try await ReceiverHarness()
        let sample = PulsBatchText.quantity(uuid: "AAAAAAAA-0000-4000-8000-000000000001", type: Self.rate, start: 1_718_000_000_000,
                                            end: 1_718_000_000_000, value: 61, unit: "count/min")
        // One batch inserting and deleting one UUID ends with it deleted (§6.3).
        let both = try harness.post(PulsBatchText.batch(samples: [sample], deletions: [PulsBatchText.deletion(uuid: "aaaaaaaa-0000-4000-8000-000000000001", type: Self.rate)]))
        #expect(both.counts == [1, 1, 0, 0, 0, 0, 0])
        #expect(try harness.store.recordCount() == 0)

        // A route and a series line before their workout (§8.2): stored, under the workout to come.
        let early = try harness.post(PulsBatchText.batch(routes: [Lines.route], series: [Lines.series]))
        #expect(early.counts == [0, 0, 0, 1, 1, 0, 0])
        #expect(try metrics(harness.store)["workoutRoute.latitude"] == 1 && metrics(harness.store)["heartRate"] == 1)
        let workout = try harness.post(PulsBatchText.batch(samples: [Lines.workout]))
        #expect(workout.counts == [1, 0, 0, 0, 0, 0, 0], "the workout is new although its points named it first")
        #expect(try metrics(harness.store)["workout"] == 1 && metrics(harness.store)["workout.heartRate.average"] == 1)
        let again = try harness.post(PulsBatchText.batch(routes: [Lines.route]))
        #expect(again.counts == [0, 0, 0, 0, 0, 0, 0], "a point is identified by (workout, t)")
        harness.store.serialized { _ = try? harness.store.db.execute("UPDATE day SET dirty = 0") }

        let gone = try harness.post(PulsBatchText.batch(deletions: [PulsBatchText.deletion(uuid: Lines.workoutUUID.lowercased(), type: "HKWorkoutTypeIdentifier"),
                                                                    PulsBatchText.deletion(uuid: UUID().uuidString, type: Self.rate)]))
        #expect(gone.counts == [0, 1, 0, 0, 0, 0, 0], "an unknown UUID is a silent no-op")
        #expect(try harness.store.recordCount() == 0, "the workout, its parts, its route fixes and its series points")
        #expect(try harness.store.pendingDays().map(\.description) == ["2024-06-09"], "its day is sealed again, without them")
        // The points went with it: sent again, they are new.
        #expect(try harness.post(PulsBatchText.batch(routes: [Lines.route])).count("routePoints") == 1)
    }

    @Test func aReplayedBatchIDDoesNothing() async throws {
        let harness = try await ReceiverHarness()
        let id = "DDDDDDDD-0000-4000-8000-000000000001"
        let first = PulsBatchText.batch(id: id, samples: [Lines.quantity])
        #expect(try harness.post(first).count("accepted") == 1)
        // Sent again unchanged, as the app retries: a replay, and nothing to say about it.
        #expect(try harness.post(first).counts == [0, 0, 1, 0, 0, 0, 0])
        let differs = "came again with other content"
        #expect(!harness.log.all.contains { $0.contains(differs) })
        // The same ID with other lines (never sent by the app, which resends a batch unchanged):
        // nothing happens, and the log says so, naming no value.
        let replay = try harness.post(PulsBatchText.batch(id: id.lowercased(), samples: [Lines.category], deletions: [Lines.deletion],
                                                          aggregates: [Lines.aggregate]))
        #expect(replay.status == 200 && replay.counts == [0, 0, 1, 0, 0, 0, 0])
        #expect(try harness.phones.phoneStats().map(\.type) == [Self.rate], "the category sample was not stored, the deletion not applied")
        #expect(harness.log.all.filter { $0.contains(differs) && $0.contains("\"level\":\"warning\"") }.count == 1, "\(harness.log.all)")
    }

    /// §6.5: the line is the whole day; an omitted ring clears what was stored, ring records
    /// included, and Apple's figures are what `efferent check` compares the day's totals with.
    @Test func activitySummariesReplaceTheirDayAndFeedTheCheck() async throws {
        let harness = try await ReceiverHarness(zone: "UTC")
        let energy = (0..<4).map { hour in
            PulsBatchText.quantity(type: "HKQuantityTypeIdentifierActiveEnergyBurned", start: 1_717_977_600_000 + Double(hour) * 3_600_000,
                                   end: 1_717_977_600_000 + Double(hour) * 3_600_000 + 1_800_000, value: 105, unit: "kcal")
        }
        let full = #"{"activitySummary":{"date":1717977600000,"localDate":"2024-06-10","moveKcal":420,"moveGoalKcal":600,"exerciseMin":25,"standHours":9,"moveMode":0}}"#
        #expect(try harness.post(PulsBatchText.batch(samples: energy, summaries: [full])).counts == [4, 0, 0, 0, 0, 0, 1])
        let check = try TotalsCheck.run(builder: DayBuilder(store: harness.store, hourlyFrom: nil))
        #expect(check.activeEnergy.compared == 1 && check.activeEnergy.agreeing == 1)
        #expect(try metrics(harness.store)["activitySummary.activeEnergyBurned"] == 1)

        let partial = #"{"activitySummary":{"date":1717977600000,"localDate":"2024-06-10","moveGoalKcal":650,"moveMode":0}}"#
        #expect(try harness.post(PulsBatchText.batch(summaries: [full, partial])).count("activitySummaries") == 1, "one day, the last line wins")
        let stored = try harness.phones.phoneActivitySummary("2024-06-10")
        #expect(stored?.values == [nil, 650, nil, nil, nil, nil, nil, nil] && stored?.moveMode == 0)
        let rings = try metrics(harness.store).filter { $0.key.hasPrefix("activitySummary.") }
        #expect(rings == ["activitySummary.activeEnergyBurnedGoal": 1], "no ring the phone no longer reports is left behind")
        #expect(try harness.store.activitySummary(on: CalendarDay("2024-06-10")!)?.activeEnergyKilocalories == nil)
    }

    /// An archive `init` left without a zone is pinned by the first batch naming one, and the
    /// records already stored are re-filed under its days. A batch read meanwhile (another
    /// connection's, its days cut in the old zone) is committed under the new cut as well.
    @Test func aBatchReadWhileAnotherPinsTheZoneIsFiledInTheNewZone() async throws {
        let harness = try await ReceiverHarness(zone: "UTC", pinned: false)
        // 03:00 UTC on 10 June 2024 is 20:00 on 9 June in Los Angeles.
        let evening = PulsBatchText.quantity(type: Self.rate, start: 1_717_988_400_000, end: 1_717_988_400_000, value: 61, unit: "count/min")
        let reader = harness.phones.batchReader(run: try harness.receiver.profiles[0].run())
        try reader.feed(Array(PulsBatchText.batch(samples: [evening]).utf8))
        let read = try reader.finish()

        let pinning = Lines.editedHeader(PulsBatchText.batch(samples: [Lines.quantity])) { $0["timeZoneID"] = .string("America/Los_Angeles") }
        #expect(try harness.post(pinning).status == 200)
        #expect(harness.store.zone.identifier == "America/Los_Angeles" && harness.context.settings.timeZonePinned)
        #expect(try harness.phones.commit(read, token: harness.phoneID, run: try harness.receiver.profiles[0].run()).accepted == 1)
        let days = try harness.store.serialized {
            try harness.store.db.statement("SELECT value, day FROM record ORDER BY value").rows { ($0.double(0), $0.text(1)) }
        }
        #expect(days.map(\.1) == ["2024-06-09", "2024-06-09"], "both in Los Angeles days: \(days)")
        #expect(try harness.store.pendingDays().contains(CalendarDay("2024-06-09")!))
    }

    /// Name, e-mail, birth date and sex stay in the writer's store: no record, no day body.
    @Test func theProfileNeverLeavesTheStore() async throws {
        let harness = try await ReceiverHarness(zone: "UTC")
        let profile = #"{"profile":{"name":"Anna Example","email":"anna@example.org","dateOfBirth":631152000000,"biologicalSex":"female"}}"#
        #expect(try harness.post(PulsBatchText.batch(samples: [Lines.quantity], profile: profile)).status == 200)
        #expect(try harness.phones.phoneProfile()?.email == "anna@example.org")
        let body = try DayBuilder(store: harness.store, hourlyFrom: nil).body(for: CalendarDay("2024-06-10")!)
        let text = String(decoding: body.bytes, as: UTF8.self)
        #expect(text.contains("heartRate") && !text.contains("Anna") && !text.contains("example.org") && !text.contains("female"))
        // {"profile":{}} clears all four.
        #expect(try harness.post(PulsBatchText.batch(profile: #"{"profile":{}}"#)).status == 200)
        #expect(try harness.phones.phoneProfile() == PulsProfile(name: nil, email: nil, dateOfBirth: nil, biologicalSex: nil))
        #expect(!harness.log.all.joined().contains("Anna"))
    }
}

/// Samples are found by UUID (§6.2–6.3) whether they are still among the rows the store holds in
/// memory or already moved into `phone_uuid`, across a failed batch and another connection's writes.
@Suite struct PhoneSampleIndexTests {
    static let rate = "HKQuantityTypeIdentifierHeartRate"

    static func uuid(_ n: Int) -> String { String(format: "BBBBBBBB-0000-4000-8000-%012d", n) }
    static func sample(_ n: Int) -> String {
        PulsBatchText.quantity(uuid: uuid(n), type: rate, start: 1_718_000_000_000 + Double(n) * 60_000, end: 1_718_000_000_000 + Double(n) * 60_000,
                               value: Double(60 + n), unit: "count/min")
    }
    static func deletion(_ n: Int) -> String { PulsBatchText.deletion(uuid: uuid(n).lowercased(), type: rate) }

    func merged(_ store: ReceiverStore) throws -> Int {
        try store.serialized { db in Int(try db.statement("SELECT count(*) FROM phone_uuid").first { $0.int64(0) } ?? 0) }
    }

    @Test func samplesAreFoundByUUIDBeforeAndAfterTheyMove() async throws {
        let harness = try await ReceiverHarness()
        harness.phones.serialized { _ in
            harness.phones.mergeEvery = 3
            harness.phones.sampleIndex?.invalidate()
        }
        // Four new samples reach the mark and move; the next two stay in memory.
        #expect(try harness.post(PulsBatchText.batch(samples: (1...4).map(Self.sample))).counts == [4, 0, 0, 0, 0, 0, 0])
        #expect(try merged(harness.phones) == 4)
        #expect(try harness.post(PulsBatchText.batch(samples: [5, 6, 1].map(Self.sample))).counts == [2, 0, 1, 0, 0, 0, 0])
        #expect(try merged(harness.phones) == 4)

        // Duplicates and deletions found in both places; a deleted UUID sent again is new.
        let mixed = try harness.post(PulsBatchText.batch(samples: [2, 5].map(Self.sample), deletions: [3, 6].map(Self.deletion)))
        #expect(mixed.counts == [0, 2, 2, 0, 0, 0, 0])
        #expect(try merged(harness.phones) == 3)
        #expect(try harness.post(PulsBatchText.batch(samples: [3].map(Self.sample))).counts == [1, 0, 0, 0, 0, 0, 0])

        // A batch that fails after its samples were numbered and its deletion applied: none of it
        // counts as stored, and the sample it deleted is still there.
        try harness.store.serialized {
            try harness.store.db.execute("CREATE TEMP TRIGGER refuse AFTER UPDATE ON phone_batch BEGIN SELECT RAISE(ABORT, 'refused by the test'); END")
        }
        // (A failure no retry can pass is a 500, not a "busy" 503: FailureStatusTests.)
        #expect(try harness.post(PulsBatchText.batch(samples: [7, 8, 4].map(Self.sample), deletions: [Self.deletion(3)])).status == 500)
        try harness.store.serialized { try harness.store.db.execute("DROP TRIGGER temp.refuse") }
        #expect(try harness.post(PulsBatchText.batch(samples: [7, 8, 4, 3].map(Self.sample))).counts == [2, 0, 2, 0, 0, 0, 0])

        // Another connection's batch (another process on the same store): this one sees its samples.
        let other = try ReceiverStore(store: SourceStore(path: harness.store.path, zone: harness.store.zone))
        let reader = other.batchReader(run: try harness.receiver.profiles[0].run())
        try reader.feed(Array(PulsBatchText.batch(samples: [9, 5].map(Self.sample)).utf8))
        let counts = try other.commit(try reader.finish(), token: harness.phoneID, run: try harness.receiver.profiles[0].run())
        #expect(counts.accepted == 1 && counts.duplicates == 1, "the other store read the rows held in memory here from the file")
        #expect(try harness.post(PulsBatchText.batch(samples: [9, 10].map(Self.sample))).counts == [1, 0, 1, 0, 0, 0, 0])

        let stored = try harness.store.serialized {
            try harness.store.db.statement("SELECT count(*), count(DISTINCT uuid) FROM phone_sample").first { [$0.int64(0), $0.int64(1)] }
        }
        #expect(stored == [9, 9], "1, 2, 3, 4, 5, 7, 8, 9, 10: each UUID once")
        #expect(try harness.store.recordCount() == 9)
    }

    /// Two `ReceiverStore`s on one writer's store (one connection, so `data_version` never moves
    /// between them): each finds the samples the other added and moved, and numbers its own above
    /// them, as it does for another connection's.
    @Test func twoReceiverStoresOnOneConnectionSeeEachOthersSamples() throws {
        let directory = NSTemporaryDirectory() + "efferent-two-receivers-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let writer = try SourceStore(path: directory + "/writer.sqlite", zone: try #require(ZoneCalendar(identifier: "UTC")))
        let first = try ReceiverStore(store: writer), second = try ReceiverStore(store: writer)
        for store in [first, second] { store.serialized { _ in store.mergeEvery = 2 } }
        func send(_ store: ReceiverStore, _ samples: [Int]) throws -> [Int] {
            let run = try store.beginPhoneRun(source: "test")
            let reader = store.batchReader(run: run)
            try reader.feed(Array(PulsBatchText.batch(samples: samples.map(Self.sample)).utf8))
            let counts = try store.commit(try reader.finish(), token: 1, run: run)
            return [counts.accepted, counts.duplicates]
        }
        #expect(try send(first, [1, 2]) == [2, 0])     // two: moved into phone_uuid
        #expect(try send(second, [2, 3]) == [1, 1])    // 3 held in the second's memory
        #expect(try send(first, [3, 4]) == [1, 1], "the first finds what the second added on its own connection")
        #expect(try send(second, [4, 5, 6]) == [2, 1])
        #expect(try send(first, [1, 5, 6, 7]) == [1, 3])
        let stored = try first.serialized { db in
            try db.statement("SELECT count(*), count(DISTINCT uuid), count(DISTINCT sid) FROM phone_sample").first { [$0.int64(0), $0.int64(1), $0.int64(2)] }
        }
        #expect(stored == [7, 7, 7], "each UUID once, under a sid of its own")
    }
}
