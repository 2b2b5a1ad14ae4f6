import EfferentClient
import EfferentCore
import EfferentWriter
import Foundation

/// Issue 7's figures: one full edit (500 items) verified, opened and applied by the writer in one
/// transaction, and undone; beside the same 500 records stored by a plain import run.
enum EditBench {
    static let itemCount = 500

    static func run() throws {
        let reading = ReadingKey(), editor = EditorKey()
        let now: Int64 = 1_788_000_000
        let starts = (0..<itemCount).map { now - 30 * 86_400 + Int64($0) * 3_600 }
        let items = starts.enumerated().map { index, start in
            EditItem.put(.init(id: "agent:meal:\(index)", metric: "dietaryEnergy", start: start, end: start,
                               value: Double(100 + index), unit: "kcal"))
        }
        let edit = try SealedEdit.make(items, bucket: reading.bucket, readingPublic: reading.publicKey, editor: editor.privateKey, now: now)
        let name = EditName(milliseconds: now * 1000)
        let at = Date(timeIntervalSince1970: TimeInterval(now))

        var applied = 0
        var undone = 0.0
        let applyTime = try Measure.seconds {
            let store = try freshStore()
            try edit.verify(bucket: reading.bucket, registeredEditor: editor.publicKey)
            let opened = try edit.open(bucket: reading.bucket, reading: reading.privateKey)
            applied = try store.apply(opened, edit: name, digest: edit.digest, now: at).applied
            let start = DispatchTime.now().uptimeNanoseconds
            _ = try store.undo(edit: name, now: at)
            undone = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        }
        guard applied == itemCount else { throw BenchError("applied \(applied) of \(itemCount) items") }

        let records = starts.enumerated().map { index, start in
            SourceRecord(kind: .quantity, type: "HKQuantityTypeIdentifierDietaryEnergyConsumed", source: "Bench",
                         start: Double(start), end: Double(start), value: Double(100 + index), unit: "kcal")
        }
        let importTime = try Measure.seconds {
            let store = try freshStore()
            let session = try store.beginImport(source: "bench", format: "bench", full: false)
            for record in records { try session.record(record) }
            try session.finish()
        }

        try? FileManager.default.removeItem(atPath: directory)
        Measure.header("agent edits: one \(itemCount)-item edit (\(edit.sealed.count) sealed bytes), fresh writer store each run")
        Measure.row("verify + open + apply, one transaction", Measure.format(applyTime * 1000 - undone * 1000, "ms", digits: 1),
                    "import of the same rows: " + Measure.format(importTime * 1000, "ms", digits: 1),
                    ratio: (applyTime - undone) / importTime, goal: "—")
        Measure.row("undo of that edit (last run)", Measure.format(undone * 1000, "ms", digits: 1), "—", ratio: nil, goal: "—")
    }

    static let directory = NSTemporaryDirectory() + "efferent-edit-bench-" + UUID().uuidString

    static func freshStore() throws -> SourceStore {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return try SourceStore(path: directory + "/\(UUID().uuidString).sqlite", zone: .utc)
    }
}
