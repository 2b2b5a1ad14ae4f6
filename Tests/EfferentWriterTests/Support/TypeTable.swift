import EfferentCore
@testable import EfferentReader
@testable import EfferentWriter
import Foundation

/// The "Done when" table of issue 14: per HealthKit type (or part), how many the export holds and
/// how many events of the matching metric the archive holds, printed for the closing note and
/// compared row by row.
struct TypeTable {
    struct Row {
        let what: String
        let metric: String
        let exported: Int
        let archived: Int
    }

    var rows: [Row] = []

    /// Adds `exported` of `what` expected as events of `metric`, with what the archive counted.
    mutating func add(_ what: String, _ metric: String, _ exported: Int, archived counts: [String: Int]) {
        rows.append(Row(what: what, metric: metric, exported: exported, archived: counts[metric] ?? 0))
    }

    /// Rows of metrics whose events differ from what the export holds for them (several rows may
    /// feed one metric: a batch's heart-rate samples and its series points).
    var mismatches: [Row] {
        let exported = Dictionary(grouping: rows, by: \.metric).mapValues { $0.reduce(0) { $0 + $1.exported } }
        return rows.filter { exported[$0.metric] != $0.archived }
    }

    /// The table as the closing note shows it (also printed by the test): one line per metric,
    /// with the export's elements that feed it.
    func text(title: String) -> String {
        let byMetric = Dictionary(grouping: rows, by: \.metric)
        let names = byMetric.mapValues { $0.map(\.what).sorted().joined(separator: " + ") }
        let width = max(30, names.values.map(\.count).max() ?? 0)
        var out = "\(title)\n"
        for metric in byMetric.keys.sorted() {
            let exported = byMetric[metric]!.reduce(0) { $0 + $1.exported }
            out += names[metric]!.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
                + String(exported).leftPadded(9) + "  →  " + String(byMetric[metric]![0].archived).leftPadded(9) + "  " + metric + "\n"
        }
        return out
    }

    /// Events per metric of every day a reader's mirror holds, expanded as the reader expands them.
    static func counts(_ source: EventSource) throws -> [String: Int] {
        var counts = [String: Int]()
        let days = try source.days()
        guard let first = days.first, let last = days.last else { return [:] }
        for item in try source.events(from: first, through: last) { counts[item.event.metric, default: 0] += 1 }
        return counts
    }
}

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
