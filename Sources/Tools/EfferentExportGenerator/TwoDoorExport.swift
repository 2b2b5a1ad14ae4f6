import EfferentTestSupport
import Foundation

/// `efferent-export-gen --two-doors DIR`: one HealthKit history written for both of the archive's
/// doors (decision A.14) — `DIR/export.xml` and `DIR/workout-routes/*.gpx` as an Apple export
/// writes them, and `DIR/batch-NNNNN.ndjson`
/// as the PulsHealth app's Puls Sync batches of the same samples (UUIDs, fractional milliseconds,
/// canonical units) — so `efferent import` and `efferent receive` can be fed it in either order.
public enum TwoDoorExport {
    /// `days` days ending on `lastDay` (UTC days); returns the samples and batches written.
    public static func write(to directory: URL, seed: UInt64, lastDay: LocalDate, days: Int, batchSize: Int = 1000) throws -> (samples: Int, batches: Int) {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let first = Int64(lastDay.daysSinceEpoch - days + 1) * 86_400
        let history = TwoDoorHistory(seed: seed, first: first, days: days)
        for (path, text) in history.exportFiles() {
            let url = directory.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        let batches = history.batches(size: batchSize)
        for (index, text) in batches.enumerated() {
            try Data(text.utf8).write(to: directory.appendingPathComponent(String(format: "batch-%05d.ndjson", index + 1)))
        }
        return (history.samples.count, batches.count)
    }
}
