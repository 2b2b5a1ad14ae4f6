import EfferentClient
import EfferentCore
import EfferentExportGenerator
import EfferentSQLite
import Foundation
import Testing
@testable import EfferentWriter

/// Issue 28 item 3: re-importing an unchanged export writes nothing. The first import of an archive
/// whose zone `init` left provisional (a server's UTC) reads in that zone and then learns and pins
/// the export's own (Europe/Paris), re-cutting what it stored; every later import reads in the
/// pinned zone. Whatever an identity hangs on, it must come out the same both ways.
@Suite struct ReimportTests {
    /// The rows a store holds that say what the archive is: every record, every day of the ledger
    /// (all but its count of marks, which every push raises for the last seven days, §9.4).
    static func snapshot(_ store: SourceStore) throws -> (records: [[SQLiteValue]], ledger: [[SQLiteValue]]) {
        func all(_ sql: String) throws -> [[SQLiteValue]] {
            try store.serialized {
                let statement = try store.db.statement(sql)
                return try statement.rows { row in (0..<row.columnCount).map { row.value($0) } }
            }
        }
        return (try all("SELECT * FROM record ORDER BY rid"), try all("SELECT day, digest, dirty, updated, bytes, attempts, refusal, listed FROM day ORDER BY day"))
    }

    /// The first row that differs, for a failure's message (the rows are many).
    static func firstDifference(_ a: [[SQLiteValue]], _ b: [[SQLiteValue]]) -> String {
        guard let index = a.indices.first(where: { $0 < b.count && a[$0] != b[$0] }) else { return "\(a.count) rows against \(b.count)" }
        return "row \(index): \(a[index]) was \(b[index])"
    }

    @Test func importReimportAndAThirdImportLeaveStoreLedgerAndArchiveAsTheyWere() async throws {
        let setup = try await SharedWriterTests.WriterProfile()
        // As `init` without `--time-zone` leaves a server: its zone, provisional.
        var settings = try setup.profile.settings()
        settings.timeZone = "UTC"
        settings.timeZonePinned = false
        try setup.profile.save(settings)
        let yesterday = CalendarDay(unixSeconds: Int64(Date().timeIntervalSince1970)).previous
        let export = URL(fileURLWithPath: setup.directory + "/export.zip")
        _ = try ExportGenerator(options: ExportOptions(
            years: 1, seed: 5, lastDay: LocalDate(year: yesterday.year, month: yesterday.month, day: yesterday.day), days: 40)).writeZip(to: export)
        let context = try WriterContext(profile: setup.profile, retry: .immediate)

        let first = try context.importExport(at: export)
        guard case let .pinned(decision, recut) = first.zone else { Issue.record("the first import pinned no zone: \(first.zone)"); return }
        #expect(decision.zone == "Europe/Paris" && recut, "the first import read in UTC and re-cut into the export's zone")
        #expect(first.tally.activitySummaries > 20, "the export holds Apple's rings, whose records span their local day")
        let pushed = try await context.push(check: .never, priority: SourcePriority())
        #expect(pushed.sent > 40 && pushed.refused == 0)
        let stored = try Self.snapshot(context.store)
        let listed = try await context.client().listing(readKey: setup.reading.readKey)

        for run in 2...3 {
            let again = try context.importExport(at: export)
            #expect(again.added == 0 && again.removed == 0, "import \(run): \(again.added) new, \(again.removed) no longer in the export")
            #expect(again.seen == first.seen)
            let now = try Self.snapshot(context.store)
            #expect(now.records.count == stored.records.count && now.records == stored.records,
                    "import \(run) changed the records: \(Self.firstDifference(now.records, stored.records))")
            #expect(now.ledger.count == stored.ledger.count && now.ledger == stored.ledger,
                    "import \(run) changed the ledger: \(Self.firstDifference(now.ledger, stored.ledger))")
            let push = try await context.push(check: .never, priority: SourcePriority())
            #expect(push.sent == 0 && push.requests == 0, "push after import \(run) re-sent \(push.sent) days")
            #expect(try await context.client().listing(readKey: setup.reading.readKey) == listed, "the archive changed after import \(run)")
        }
    }

    /// A store an older writer left with the first import's ring figures still over UTC midnights
    /// beside the pinned zone's (the last day of an export kept both sets): the next import of the
    /// export removes the stray set, judged by its day, and that day goes again once.
    @Test func aRingFigureLeftOverUTCMidnightsByAnOlderWriterIsRemoved() async throws {
        let setup = try await SharedWriterTests.WriterProfile()
        let yesterday = CalendarDay(unixSeconds: Int64(Date().timeIntervalSince1970)).previous
        let export = URL(fileURLWithPath: setup.directory + "/export.zip")
        _ = try ExportGenerator(options: ExportOptions(
            years: 1, seed: 5, lastDay: LocalDate(year: yesterday.year, month: yesterday.month, day: yesterday.day), days: 20)).writeZip(to: export)
        let context = try WriterContext(profile: setup.profile, retry: .immediate)
        #expect(context.zone.identifier == "Europe/Berlin")
        _ = try context.importExport(at: export)
        _ = try await context.push(check: .never, priority: SourcePriority())
        // The newest ring day, and one of its figures copied over that date's UTC midnights under
        // another id, as the old identity made it.
        let store = context.store
        let (day, rid) = try #require(try store.serialized {
            try store.db.statement("""
                SELECT day, rid FROM record WHERE metric = 'activitySummary.activeEnergyBurned' ORDER BY start DESC LIMIT 1
                """).first { ($0.text(0), $0.int64(1)) }
        })
        let utc = try #require(CalendarDay(day))
        try store.serialized {
            try store.db.statement("""
                INSERT INTO record (id, metric, total, source, device, start, end, value, unit, stage, activity, duration, day, origin, seen, sample)
                SELECT id + 1, metric, total, source, device, ?, ?, value, unit, stage, activity, duration, day, origin, seen, sample
                FROM record WHERE rid = ?
                """).run([.integer(utc.startUnixSeconds), .integer(utc.next.startUnixSeconds), .integer(rid)])
        }
        let again = try context.importExport(at: export)
        #expect(again.added == 0 && again.removed == 1, "\(again.added) new, \(again.removed) no longer in the export")
        let left = try store.serialized {
            try store.db.statement("SELECT count(*) FROM record WHERE metric = 'activitySummary.activeEnergyBurned' AND day = ?")
                .first([.text(day)]) { $0.int64(0) }
        }
        #expect(left == 1)
        let push = try await context.push(check: .never, priority: SourcePriority())
        #expect(push.sent <= 2, "the healed day (and the next, which a removal always rebuilds) at most")
    }
}
