/// Counts a GPX route's track points and the span of their `<time>`s (UTC), streaming: Apple's
/// GPX files run to megabytes per hour of workout (apple-health-export.md §1.7).
public final class GPXRouteReader {
    private let scanner: HealthXMLScanner
    private var route: WorkoutRoute
    private var inPoint = false
    private var inTime = false
    private var timeText: [UInt8] = []

    /// `file` is the path the route is reported under (`workout-routes/route_….gpx`).
    public init(file: String) {
        scanner = HealthXMLScanner(label: file.split(separator: "/").last.map(String.init) ?? file, root: "gpx", reportsText: true)
        route = WorkoutRoute(file: file, points: 0, start: nil, end: nil)
    }

    /// Reads the next chunk of the GPX file.
    public func feed(_ chunk: [UInt8]) throws {
        try scanner.feed(chunk) { tag in try self.handle(tag) }
    }

    /// The route, once the file has ended with `</gpx>`.
    public func finish() throws(ExportError) -> WorkoutRoute {
        try scanner.finish()
        return route
    }

    private func handle(_ tag: XMLTag) throws {
        switch tag.kind {
        case .start, .empty:
            if tag.nameIs("trkpt") {
                route.points += 1
                inPoint = tag.kind == .start
            } else if inPoint, tag.nameIs("time"), tag.kind == .start {
                inTime = true
                timeText.removeAll(keepingCapacity: true)
            }
        case .text:
            if inTime { timeText += tag.rawText }
        case .end:
            if inTime, tag.nameIs("time") {
                inTime = false
                let trimmed = timeText.drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
                let text = trimmed.reversed().drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }.reversed()
                guard let instant = ExportDate.isoUTC(ArraySlice(text)) else {
                    throw ExportError.unreadableDate(file: scanner.label, byteOffset: tag.byteOffset)
                }
                route.include(instant)
            } else if tag.nameIs("trkpt") {
                inPoint = false
            }
        }
    }
}
