/// Reads a GPX route (apple-health-export.md §1.7), streaming: each `trkpt` becomes a fix of
/// `workoutRoute.*` records (decision A.9), and the route is counted with the span of its
/// `<time>`s (UTC). Apple's GPX files run to megabytes per hour of workout.
public final class GPXRouteReader {
    private let scanner: HealthXMLScanner
    private var route: WorkoutRoute
    private let writer: SampleSeriesWriter?
    private var fix = RouteFix()
    private var inPoint = false
    /// The child element whose text is being collected (`time`, `ele`, `speed`, …).
    private var field: String?
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

    static let fields: Set<String> = ["time", "ele", "speed", "course", "hAcc", "vAcc"]

    private func handle(_ tag: XMLTag) throws {
        switch tag.kind {
        case .start, .empty:
            if tag.nameIs("trkpt") {
                route.points += 1
                fix = RouteFix(latitude: tag.rawAttribute("lat").flatMap(DecimalText.parse),
                               longitude: tag.rawAttribute("lon").flatMap(DecimalText.parse))
                inPoint = tag.kind == .start
                if !inPoint { try close(tag) }
            } else if inPoint, tag.kind == .start, Self.fields.contains(tag.name) {
                field = tag.name
                text.removeAll(keepingCapacity: true)
            }
        case .text:
            if field != nil { text += tag.rawText }
        case .end:
            if let name = field, tag.name == name {
                field = nil
                try store(name, tag)
            } else if tag.nameIs("trkpt") {
                inPoint = false
                try close(tag)
            }
        }
    }

    private func store(_ name: String, _ tag: XMLTag) throws {
        let trimmed = ArraySlice(text.drop { Self.isSpace($0) }.reversed().drop { Self.isSpace($0) }.reversed())
        if name == "time" {
            guard let instant = ExportDate.isoUTC(trimmed) else { throw ExportError.unreadableDate(file: scanner.label, byteOffset: tag.byteOffset) }
            fix.time = instant
            route.include(instant)
            return
        }
        let number = DecimalText.parse(trimmed)
        switch name {
        case "ele": fix.altitude = number
        case "speed": fix.speed = number
        case "course": fix.course = number
        case "hAcc": fix.horizontalAccuracy = number
        default: fix.verticalAccuracy = number
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
