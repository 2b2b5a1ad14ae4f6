import EfferentClient
import EfferentCore
import EfferentSQLite
import Foundation
import Testing
@testable import EfferentWriter

/// The inserter leaves a text bound from row to row while it does not change (rows come in runs
/// of one metric, source and day); every row must still be stored with its own values.
@Suite struct RecordInserterTests {
    static let zone = ZoneCalendar(identifier: "Europe/Paris")!

    func entry(_ id: Int64, metric: String, source: String, device: String?, stage: String? = nil, day: String,
               at start: Double) -> ImportSession.Pending {
        let record = SourceRecord(kind: .quantity, type: metric, source: source, deviceModel: device, start: start, end: start + 60,
                                  value: Double(id))
        let target = MetricMapping.Target(metric: metric, isTotal: false, unit: metric == "sleep" ? nil : "count/min")
        return ImportSession.Pending(id: id, record: record,
                                     mapped: MetricMapping.Mapped(target: target, value: Double(id), stage: stage, activity: nil, duration: nil),
                                     day: day, spillDay: nil)
    }

    @Test func runsOfOneValueAndChangesBetweenThemAreStoredAsGiven() throws {
        let directory = NSTemporaryDirectory() + "efferent-inserter-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try SourceStore(path: directory + "/writer.sqlite", zone: Self.zone)
        let june1 = 1_780_293_600.0 // 2026-06-01 08:00 in Paris
        // Device present, absent, present again; a source that changes and changes back; a stage
        // that appears and goes; a source of 40 bytes (stored out of line) and one of 3 (inline).
        let entries = [
            entry(1, metric: "heartRate", source: "Watch", device: "Watch6,1", day: "2026-06-01", at: june1),
            entry(2, metric: "heartRate", source: "Watch", device: nil, day: "2026-06-01", at: june1 + 60),
            entry(3, metric: "heartRate", source: "Watch", device: "Watch6,1", day: "2026-06-01", at: june1 + 120),
            entry(4, metric: "heartRate", source: String(repeating: "iPhone ", count: 6), device: "iPhone12,1", day: "2026-06-01",
                  at: june1 + 180),
            entry(5, metric: "heartRate", source: "Watch", device: "Watch6,1", day: "2026-06-01", at: june1 + 240),
            entry(6, metric: "sleep", source: "Watch", device: "Watch6,1", stage: "deep", day: "2026-06-01", at: june1 + 300),
            entry(7, metric: "sleep", source: "Watch", device: "Watch6,1", day: "2026-06-02", at: june1 + 86_400),
        ]
        try store.serialized {
            try store.db.write {
                let rows = try RecordInserter(db: store.db, run: 1, existing: .ignored)
                for (index, entry) in entries.enumerated() {
                    #expect(try rows.insert(entry))
                    // Another use of the same statement clears its bindings halfway through a run.
                    if index == 4 {
                        _ = try RecordInserter(db: store.db, run: 1, existing: .ignored)
                    }
                }
            }
        }
        let stored = try store.serialized {
            try store.db.statement("SELECT id, metric, source, device, unit, stage, day FROM record ORDER BY id").rows { row in
                [row.text(0), row.text(1), row.text(2), row.optionalText(3) ?? "-", row.optionalText(4) ?? "-",
                 row.optionalText(5) ?? "-", row.text(6)].joined(separator: "|")
            }
        }
        #expect(stored == entries.map { entry in
            [String(entry.id), entry.mapped.target.metric, entry.record.source, entry.record.deviceModel ?? "-",
             entry.mapped.target.unit ?? "-", entry.mapped.stage ?? "-", entry.day].joined(separator: "|")
        })
    }
}
