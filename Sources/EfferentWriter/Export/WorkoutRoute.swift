/// A workout's route as counted on import: how many track points and the time they span.
///
/// The protocol carries no route metric yet (efferent-protocol.md §4), so routes are only counted
/// and validated; a sink that wants them implements `workoutRoute(_:)`.
public struct WorkoutRoute: Sendable, Equatable {
    /// The GPX path inside the export (`workout-routes/route_2019-06-11_3.00pm.gpx`), or nil for a
    /// route written inline as `Location` elements (exports of version 8 and older).
    public var file: String?
    /// The route's `sourceName` when the XML gives one inline (`Simon’s iPhone`); GPX files carry none.
    public var source: String?
    public var points: Int
    /// The earliest and latest point times, Unix seconds (nil when no point has a time).
    public var start: Double?
    public var end: Double?

    public init(file: String?, source: String? = nil, points: Int, start: Double?, end: Double?) {
        self.file = file
        self.source = source
        self.points = points
        self.start = start
        self.end = end
    }

    /// Widens the span to include `instant`.
    public mutating func include(_ instant: Double) {
        start = min(start ?? instant, instant)
        end = max(end ?? instant, instant)
    }
}

extension ExportSink {
    /// Routes are ignored unless the sink implements this.
    public func workoutRoute(_ route: WorkoutRoute) throws {}
}
