import EfferentSystem
@testable import EfferentWriter

/// Keeps everything an import hands it, for exact checks.
/// Sendable, behind a lock: the receiver test hands one to a route's sink factory.
final class CollectingSink: ExportSink, Sendable {
    private struct Kept {
        var records: [SourceRecord] = []
        var summaries: [ActivitySummaryRecord] = []
        var routes: [WorkoutRoute] = []
        var leftOut: [LeftOut] = []
    }

    private let kept = Mutex(Kept())
    var records: [SourceRecord] { kept.withLock { $0.records } }
    var summaries: [ActivitySummaryRecord] { kept.withLock { $0.summaries } }
    var routes: [WorkoutRoute] { kept.withLock { $0.routes } }
    var leftOut: [LeftOut] { kept.withLock { $0.leftOut } }

    func record(_ record: SourceRecord) throws { kept.withLock { $0.records.append(record) } }
    func activitySummary(_ summary: ActivitySummaryRecord) throws { kept.withLock { $0.summaries.append(summary) } }
    func workoutRoute(_ route: WorkoutRoute) throws { kept.withLock { $0.routes.append(route) } }
    func leftOut(_ what: LeftOut) throws { kept.withLock { $0.leftOut.append(what) } }

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
