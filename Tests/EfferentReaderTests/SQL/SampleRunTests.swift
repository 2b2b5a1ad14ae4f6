import EfferentClient
import EfferentCore
import EfferentSQLite
@testable import EfferentReader
import Foundation
import Testing

/// A day's run of a sample series as JSON text, and the `events` view reading it back as the rows
/// `event_rows` would hold: instants at the run's offset in the short form, anything else — an
/// interval, an instant after a DST change — in the long one, values as the same REALs.
@Suite struct SampleRunTests {
    let paris = ZoneCalendar(identifier: "Europe/Paris")!
    /// 2025-03-30 01:59:59 and 03:00:00 in Paris, either side of the spring change (+01:00 → +02:00).
    let beforeChange: Int64 = 1_743_296_399, afterChange: Int64 = 1_743_296_400

    func voltage(_ start: Int64, end: Int64? = nil, _ value: Double?) throws -> DayEvent {
        try DayEvent(kind: .record, metric: "electrocardiogram.voltage", unit: "mcV", source: "Watch", start: start, end: end ?? start, value: value)
    }

    @Test func instantsAtTheRunsOffsetTakeTheShortFormAndTheRestTheLongOne() throws {
        var text = [UInt8]()
        let offset = SampleRun.encode([try voltage(beforeChange - 1, 12), try voltage(beforeChange, end: beforeChange + 2, -0.5),
                                       try voltage(afterChange, nil), try voltage(afterChange + 1, 1e-7)], zone: paris, into: &text)
        #expect(offset == 3600)
        #expect(String(decoding: text, as: UTF8.self) == "[[1743296398,12.0],[1743296399,-0.5,1743296401,3600,7200],"
                + "[1743296400,null,1743296400,7200,7200],[1743296401,1e-07,1743296401,7200,7200]]")
        // The buffer is emptied first, so one serves every run of a day.
        _ = SampleRun.encode([try voltage(afterChange, 3)], zone: paris, into: &text)
        #expect(String(decoding: text, as: UTF8.self) == "[[1743296400,3.0]]")
    }

    @Test func onlySampleSeriesWithNothingButInstantsAndValuesArePacked() throws {
        #expect(SampleRun.packs("electrocardiogram.voltage", [try voltage(1, 2)]))
        #expect(!SampleRun.packs("heartRate", [try DayEvent(kind: .record, metric: "heartRate", unit: "count/min", start: 1, end: 1, value: 60)]))
        let staged = try DayEvent(kind: .record, metric: "electrocardiogram.voltage", start: 1, end: 1, value: 2, stage: "odd")
        #expect(!SampleRun.packs("electrocardiogram.voltage", [try voltage(1, 2), staged]))
    }

    @Test func theEventsViewReadsARunBackAsRows() throws {
        let path = NSTemporaryDirectory() + "efferent-samplerun-" + UUID().uuidString + ".db"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let db = try SQLiteConnection(path: path)
        try SQLSchema.create(on: db)
        var text = [UInt8]()
        let events = [try voltage(beforeChange, 12), try voltage(afterChange, end: afterChange + 5, nil), try voltage(afterChange + 6, 0.1)]
        let offset = SampleRun.encode(events, zone: paris, into: &text)
        try db.execute("INSERT INTO series VALUES (1, 'electrocardiogram.voltage', 'record', NULL, 'mcV', 'Watch')")
        try db.statement("INSERT INTO sample_runs VALUES (1, '2025-03-30', ?1, ?2)").run([.integer(offset), .text(String(decoding: text, as: UTF8.self))])
        let rows = try db.statement("SELECT metric, start_time, end_time, start_epoch, end_epoch, value, unit, source, stage FROM events ORDER BY start_epoch")
            .rows { row in (0..<9).map { row.value(Int32($0)) } }
        let voltage = SQLiteValue.text("electrocardiogram.voltage")
        #expect(rows == [
            [voltage, .text("2025-03-30T01:59:59+01:00"), .text("2025-03-30T01:59:59+01:00"), .integer(beforeChange), .integer(beforeChange),
             .real(12), .text("mcV"), .text("Watch"), .null],
            [voltage, .text("2025-03-30T03:00:00+02:00"), .text("2025-03-30T03:00:05+02:00"), .integer(afterChange), .integer(afterChange + 5),
             .null, .text("mcV"), .text("Watch"), .null],
            [voltage, .text("2025-03-30T03:00:06+02:00"), .text("2025-03-30T03:00:06+02:00"), .integer(afterChange + 6), .integer(afterChange + 6),
             .real(0.1), .text("mcV"), .text("Watch"), .null],
        ])
    }
}
