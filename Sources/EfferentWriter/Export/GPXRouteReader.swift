/// Reads a GPX route (apple-health-export.md §1.7), streaming: each `trkpt` becomes a fix of
/// `workoutRoute.*` records (decision A.9), and the route is counted with the span of its
/// `<time>`s (UTC). Apple's GPX files run to megabytes per hour of workout.
public final class GPXRouteReader {
    private let scanner: HealthXMLScanner
    private var route: WorkoutRoute
    private let writer: SampleSeriesWriter?
    private var fix = RouteFix()
    private var inPoint = false
    /// The child element whose text is being collected.
    private var field: Field?
    private var text: [UInt8] = []

    /// `file` is the path the route is reported under (`workout-routes/route_….gpx`); fixes go to
    /// `sink` under `source` (the `WorkoutRoute`'s or its workout's source; GPX names none).
    public init(file: String, sink: ExportSink? = nil, source: String = "", deviceModel: String? = nil) {
        scanner = HealthXMLScanner(label: file.split(separator: "/").last.map(String.init) ?? file, root: "gpx", reportsText: true)
        route = WorkoutRoute(file: file, source: source.isEmpty ? nil : source, points: 0, start: nil, end: nil)
        writer = sink.map { SampleSeriesWriter(sink: $0, source: source, deviceModel: deviceModel) }
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

    /// The children of `trkpt` a fix is read from; their names are compared as bytes (a route has
    /// thousands of fixes, each with six of them).
    enum Field: CaseIterable {
        case time, ele, speed, course, hAcc, vAcc

        var name: StaticString {
            switch self {
            case .time: "time"
            case .ele: "ele"
            case .speed: "speed"
            case .course: "course"
            case .hAcc: "hAcc"
            case .vAcc: "vAcc"
            }
        }

        init?(_ tag: XMLTag) {
            guard let field = Self.allCases.first(where: { tag.nameIs($0.name) }) else { return nil }
            self = field
        }
    }

    private func handle(_ tag: XMLTag) throws {
        switch tag.kind {
        case .start, .empty:
            if tag.nameIs("trkpt") {
                route.points += 1
                fix = RouteFix(latitude: tag.rawAttribute("lat").flatMap(DecimalText.parse),
                               longitude: tag.rawAttribute("lon").flatMap(DecimalText.parse))
                inPoint = tag.kind == .start
                if !inPoint { try close(tag) }
            } else if inPoint, tag.kind == .start, let child = Field(tag) {
                field = child
                text.removeAll(keepingCapacity: true)
            }
        case .text:
            if field != nil { text += tag.rawText }
        case .end:
            if let child = field, tag.nameIs(child.name) {
                field = nil
                try store(child, tag)
            } else if tag.nameIs("trkpt") {
                inPoint = false
                try close(tag)
            }
        }
    }

    private func store(_ child: Field, _ tag: XMLTag) throws {
        var first = text.startIndex, end = text.endIndex
        while first < end, Self.isSpace(text[first]) { first += 1 }
        while end > first, Self.isSpace(text[end - 1]) { end -= 1 }
        let trimmed = text[first..<end]
        if child == .time {
            guard let instant = ExportDate.isoUTC(trimmed) else { throw ExportError.unreadableDate(file: scanner.label, byteOffset: tag.byteOffset) }
            fix.time = instant
            route.include(instant)
            return
        }
        let number = DecimalText.parse(trimmed)
        switch child {
        case .time: return
        case .ele: fix.altitude = number
        case .speed: fix.speed = number
        case .course: fix.course = number
        case .hAcc: fix.horizontalAccuracy = number
        case .vAcc: fix.verticalAccuracy = number
        }
    }

    private func close(_ tag: XMLTag) throws {
        guard let writer else { return }
        if try !fix.write(to: writer) {
            try writer.sink.leftOut(LeftOut("workout route fix", .unreadable("no time or no coordinates")))
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
}
