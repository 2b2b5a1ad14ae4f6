import EfferentClient
import EfferentCore
import EfferentTestSupport
import Foundation
import Testing
@testable import EfferentReader

/// A damaged index never changes an answer (issue 45): a byte flipped anywhere (every section's
/// edges, then a seeded sample), the file cut anywhere, an index older than the days swapped in —
/// each time every answer equals a fresh reader's to the byte, the damage is said once, and the
/// file checks again afterwards. The mirror's own days are held to `mirror.json` the same way.
@Suite struct MirrorIndexDamageTests {
    static let requests: [AnswerRequest] = {
        let first = MirrorIndexTests.first, last = MirrorIndexTests.first.adding(days: 59)
        var list = [AnswerRequest(kind: .overview), AnswerRequest(kind: .overview, since: first.adding(days: 10), until: first.adding(days: 40))]
        list.append(AnswerRequest(kind: .daily, since: first, until: last, metrics: ["steps", "heartRate", "bodyMass", "futureTotal"]))
        list.append(AnswerRequest(kind: .statistics, since: first, until: last, metric: "heartRate", groupBy: "week"))
        list.append(AnswerRequest(kind: .statistics, since: first, until: last, metric: "steps", groupBy: "month"))
        list.append(AnswerRequest(kind: .sleep, since: first, until: last))
        list.append(AnswerRequest(kind: .workouts, since: first, until: last))
        list.append(AnswerRequest(kind: .samples, since: first, until: last, metric: "heartRate", limit: 50))
        return list
    }()

    /// Every answer of `requests` from a reader opened now, as JSON, and what it said of the index.
    static func answers(_ harness: ReaderHarness) throws -> (json: [String], notice: String?) {
        let mirror = try harness.mirror()
        let source = MirrorSource(mirror: mirror)
        let today = MirrorIndexTests.first.adding(days: 59)
        let json = try requests.map { request in
            String(decoding: try request.answer(from: source, today: today, pageDays: AnswerScope.pageDays).answer.jsonBytes { _ in }, as: UTF8.self)
        }
        return (json, mirror.takeIndexNotice())
    }

    @Test func flipsCutsAndAnOlderIndexNeverChangeAnAnswer() async throws {
        let harness = try await ReaderHarness()
        let days = Array(try MirrorIndexTests.year().prefix(60))
        try await harness.upload(days)
        _ = try await harness.syncer(try harness.mirror()).run()
        let path = harness.profile.path(MirrorIndex.fileName)
        let clean = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        // A fresh reader: no index at all, every day read from its file.
        try FileManager.default.removeItem(atPath: path)
        let reference = try Self.answers(harness).json
        #expect(try Self.answers(harness) == (reference, nil))

        func damaged(_ bytes: [UInt8], _ what: String) throws {
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let (json, notice) = try Self.answers(harness)
            #expect(json == reference, "\(what)")
            #expect(notice != nil, "\(what) was not said")
            // Said once: rebuilt and saved, the next reader reads it whole and says nothing.
            #expect(try Self.answers(harness) == (reference, nil), "\(what): not whole again")
        }
        // Every section's first and last byte, and the header's fields.
        guard case let .success(locations) = IndexFile.locations(Array(clean.prefix(IndexFile.headerSize)), fileSize: clean.count) else {
            Issue.record("the clean index does not check")
            return
        }
        var positions = [0, 3, 4, 8, 16, 24, 40, IndexFile.headerSize - 1]
        for location in locations.values where location.length > 0 { positions += [location.offset, location.offset + location.length - 1] }
        var random = SplitMix64(seed: 45)
        positions += (0..<120).map { _ in Int.random(in: 0..<clean.count, using: &random) }
        for position in positions {
            var bytes = clean
            bytes[position] ^= UInt8.random(in: 1...255, using: &random)
            try damaged(bytes, "a byte flipped at \(position) of \(clean.count)")
        }
        for length in [0, 1, 3, 4, IndexFile.headerSize - 1, IndexFile.headerSize, clean.count - 1] + (0..<30).map({ _ in Int.random(in: 0..<clean.count, using: &random) }) {
            try damaged(Array(clean.prefix(length)), "cut to \(length) of \(clean.count) bytes")
        }
        try damaged(clean + [0], "a byte after the end")

        // An index older than the days: kept aside, the archive changes three days, sync, then the old file is put back.
        try await harness.upload([days[4], days[30], days[59]].map { day, _ in (day, ReaderHarness.handBody(day, steps: 4242)) })
        _ = try await harness.syncer(try harness.mirror()).run()
        try FileManager.default.removeItem(atPath: path)
        let newer = try Self.answers(harness).json
        #expect(newer != reference)
        try Data(clean).write(to: URL(fileURLWithPath: path))
        let (json, notice) = try Self.answers(harness)
        #expect(json == newer)
        #expect(try #require(notice).contains("older than 3 of the mirror's days"), "\(notice ?? "")")
        #expect(try Self.answers(harness) == (newer, nil))
    }

    /// A mirrored day whose file is lost, or is not the body that was fetched, is never answered as
    /// an empty day: the answer's note names it (the JSON's `note`, the CLI's stderr), and the next
    /// sync fetches it again, whatever its upload time says; then the note is gone.
    @Test func aLostOrChangedDayIsNamedInTheAnswerAndFetchedAgain() async throws {
        let harness = try await ReaderHarness()
        let days = Array(try MirrorIndexTests.year().prefix(10))
        try await harness.upload(days)
        _ = try await harness.syncer(try harness.mirror()).run()
        let lost = days[2].0, changed = days[5].0
        let mirror = try harness.mirror()
        try FileManager.default.removeItem(atPath: harness.profile.path(mirror.file(lost)))
        try harness.profile.write(mirror.file(changed), Array(ReaderHarness.handBody(changed, steps: 31_337).utf8), durable: false)

        func answered(_ request: AnswerRequest) throws -> (json: String, notes: [String]) {
            let (answer, scope) = try request.answer(from: MirrorSource(mirror: try harness.mirror()), today: days[9].0, pageDays: AnswerScope.pageDays)
            return (String(decoding: try answer.jsonBytes { scope.annotate(&$0) }, as: UTF8.self), scope.notes)
        }
        let daily = AnswerRequest(kind: .daily, since: days[0].0, until: days[9].0, metrics: ["steps"])
        let named = "the mirror's copy of \(lost), \(changed) is missing or is not what was fetched"
        let (json, notes) = try answered(daily)
        #expect(notes.contains { $0.hasPrefix(named) }, "\(notes)")
        #expect(json.contains(named) && !json.contains("31337"), "\(json)")
        #expect(try answered(AnswerRequest(kind: .overview)).notes.contains { $0.hasPrefix(named) })
        // A range that leaves both days out says nothing of them.
        #expect(try answered(AnswerRequest(kind: .daily, since: days[6].0, until: days[9].0, metrics: ["steps"])).notes.isEmpty)

        let report = try await harness.syncer(try harness.mirror()).run()
        #expect(report.fetched == 2)
        let (again, quiet) = try answered(daily)
        #expect(quiet.isEmpty && !again.contains("31337"), "\(quiet)")
        try FileManager.default.removeItem(atPath: harness.profile.path(MirrorIndex.fileName))
        #expect(try answered(daily).json == again, "what the index answers after the repair is what the days say")
    }
}
