@testable import EfferentWriter

/// Keeps everything an import hands it, for exact checks.
final class CollectingSink: ExportSink {
    var records: [SourceRecord] = []
    var summaries: [ActivitySummaryRecord] = []
    var routes: [WorkoutRoute] = []
    var leftOut: [LeftOut] = []

    func record(_ record: SourceRecord) throws { records.append(record) }
    func activitySummary(_ summary: ActivitySummaryRecord) throws { summaries.append(summary) }
    func workoutRoute(_ route: WorkoutRoute) throws { routes.append(route) }
    func leftOut(_ what: LeftOut) throws { leftOut.append(what) }

    func records(ofType type: String) -> [SourceRecord] { records.filter { $0.type == type } }
    /// Samples, categories and workouts, without their parts (decision A.9).
    var samples: [SourceRecord] { records.filter { $0.kind != .part } }
}

/// Counts without keeping, for large inputs.
final class CountingSink: ExportSink {
    var records = 0
    var summaries = 0
    var lastStart = 0.0

    func record(_ record: SourceRecord) throws {
        records += 1
        lastStart = record.start
    }
    func activitySummary(_ summary: ActivitySummaryRecord) throws { summaries += 1 }
}
