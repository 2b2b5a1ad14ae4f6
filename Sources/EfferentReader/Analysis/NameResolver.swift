import EfferentCore

/// Reads the metric and activity names an asker gives as they were meant: a name the protocol or
/// the archive knows is taken as it is; otherwise one that differs only in case is taken when it
/// is the only such name (`Steps` → `steps`); anything else is refused with the names that would
/// answer and the closest of them, never answered empty.
///
/// The archive's names are read only when the asked name is not one the protocol defines, so the
/// common question costs no extra pass over the mirror.
public final class NameResolver {
    private let source: EventSource
    private var heldMetrics: Set<String>?
    private var heldActivities: Set<String>?

    public init(source: EventSource) { self.source = source }

    /// What a name was read as, and the sentence saying so when it was not taken as given.
    public struct Resolution: Sendable, Equatable {
        public let name: String
        public let note: String?
    }

    /// Every name the protocol defines (decision A.9) and the twenty of §4.
    static let protocolMetrics: Set<String> = Set(HealthCatalogue.metricNames).union(MetricCatalogue.totals).union(MetricCatalogue.records)

    /// The metric names the archive's days hold.
    public func metricsHeld() throws -> Set<String> {
        if let heldMetrics { return heldMetrics }
        let names = try source.metricNames()
        heldMetrics = names
        return names
    }

    /// The activity names of the workouts the archive holds (`running`, `activity-3000`).
    public func activitiesHeld() throws -> Set<String> {
        if let heldActivities { return heldActivities }
        let days = try source.days()
        var names = Set<String>()
        if let first = days.first, let last = days.last {
            for item in try source.events(from: first, through: last, matching: { $0 == "workout" }) {
                names.insert(MetricCatalogue.activityName(item.event.activity))
            }
        }
        heldActivities = names
        return names
    }

    public func metric(_ asked: String) throws -> Resolution {
        if Self.protocolMetrics.contains(asked) { return Resolution(name: asked, note: nil) }
        let held = try metricsHeld()
        if held.contains(asked) { return Resolution(name: asked, note: nil) }
        if let match = Self.caseInsensitive(asked, in: held.union(Self.protocolMetrics)) {
            return Resolution(name: match, note: "\(asked.prefix(80)) read as \(match)")
        }
        throw AnswerError.unknownMetricName(String(asked.prefix(80)), closest: Self.closest(to: asked, in: held.union(Self.protocolMetrics)),
                                            held: held.sorted())
    }

    public func activity(_ asked: String) throws -> Resolution {
        if WorkoutsAnswer.isActivityName(asked) { return Resolution(name: asked, note: nil) }
        let known = Set(MetricCatalogue.activityNames.values).union(try activitiesHeld())
        if let match = Self.caseInsensitive(asked, in: known) {
            return Resolution(name: match, note: "\(asked.prefix(80)) read as \(match)")
        }
        throw AnswerError.unknownActivityName(String(asked.prefix(80)), closest: Self.closest(to: asked, in: known),
                                              valid: known.sorted())
    }

    /// The one name equal to `asked` when case is ignored; nil when none or several are.
    static func caseInsensitive(_ asked: String, in names: Set<String>) -> String? {
        let folded = asked.lowercased()
        let matches = names.filter { $0.lowercased() == folded }
        return matches.count == 1 ? matches.first : nil
    }

    /// The known name nearest to a mistyped one (`NearestName`).
    public static func closest(to asked: String, in names: Set<String>) -> String? { NearestName.closest(to: asked, in: names) }
}

extension AnswerRequest {
    /// The request with its metric and activity names read as `resolver` reads them, and the
    /// sentences saying where a name was read otherwise than given.
    public func resolvingNames(with resolver: NameResolver) throws -> (request: AnswerRequest, notes: [String]) {
        var resolved = self
        var notes = [String]()
        func take(_ resolution: NameResolver.Resolution) -> String {
            if let note = resolution.note { notes.append(note) }
            return resolution.name
        }
        resolved.metrics = try metrics.map { take(try resolver.metric($0)) }
        if let metric { resolved.metric = take(try resolver.metric(metric)) }
        if let activity { resolved.activity = take(try resolver.activity(activity)) }
        var seen = Set<String>()
        return (resolved, notes.filter { seen.insert($0).inserted })
    }
}
