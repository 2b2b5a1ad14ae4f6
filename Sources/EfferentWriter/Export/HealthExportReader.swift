/// Turns the elements of an Apple Health `export.xml` into `ExportSink` calls, streaming.
///
/// Top-level `Record` → a quantity or category `SourceRecord`; `Workout` → one workout record
/// (legacy attributes, `WorkoutStatistics` and `WorkoutActivity` children read without choking
/// on their nesting); `ActivitySummary` → an `ActivitySummaryRecord`; inline `Location` routes →
/// a `WorkoutRoute`. Records nested in a `Correlation` are not emitted: they also appear at top
/// level (the DTD says so, apple-health-export.md §1.3). Unknown elements are skipped whole.
public final class HealthExportReader {
    public let sink: ExportSink
    /// Records and workouts handed to the sink so far.
    public private(set) var recordCount = 0
    /// Activity summaries handed to the sink so far.
    public private(set) var summaryCount = 0
    /// Routes handed to the sink so far (inline ones; GPX files are read separately).
    public private(set) var routeCount = 0
    /// `FileReference` paths seen in workout routes, without their leading `/`.
    public private(set) var referencedRouteFiles: [String] = []
    /// Bytes of XML consumed so far.
    public var bytesFed: UInt64 { scanner.bytesFed }

    private let scanner: HealthXMLScanner
    private var label: String { scanner.label }
    private var sawRoot = false
    /// Open elements below the root.
    private var depth = 0
    private var pendingRecord: SourceRecord?
    private var pendingWorkout: SourceRecord?
    private var activityDurations: Double = 0
    private var pendingRoute: WorkoutRoute?

    private var types = RecentString()
    private var sources = RecentString()
    private var units = RecentString()
    private var models = RecentString()
    private var categories = RecentString()

    public init(sink: ExportSink, label: String) {
        self.sink = sink
        scanner = HealthXMLScanner(label: label)
    }

    /// Reads the next chunk of XML.
    public func feed(_ chunk: [UInt8]) throws {
        try scanner.feed(chunk) { tag in try self.handle(tag) }
    }

    /// Checks the XML ended with `</HealthData>`.
    public func finish() throws(ExportError) { try scanner.finish() }

    // MARK: Elements

    private func handle(_ tag: XMLTag) throws {
        switch tag.kind {
        case .start, .empty:
            guard sawRoot else { sawRoot = true; return }
            try open(tag, level: depth + 1)
            if tag.kind == .start { depth += 1 } else { try close(level: depth + 1, tag) }
        case .end:
            guard depth > 0 else { return }
            try close(level: depth, tag)
            depth -= 1
        case .text:
            return
        }
    }

    private func open(_ tag: XMLTag, level: Int) throws {
        if level == 1 {
            if tag.nameIs("Record") {
                pendingRecord = try record(tag)
            } else if tag.nameIs("Workout") {
                pendingWorkout = try workout(tag)
                activityDurations = 0
            } else if tag.nameIs("ActivitySummary") {
                try summary(tag)
            }
            return
        }
        if pendingRecord != nil {
            if level == 2, tag.nameIs("MetadataEntry"), tag.attribute("key", is: "HKTimeZone") {
                pendingRecord?.timeZone = tag.attribute("value")
            }
        } else if pendingWorkout != nil {
            try openInWorkout(tag, level: level)
        }
    }

    private func openInWorkout(_ tag: XMLTag, level: Int) throws {
        if level == 2 {
            if tag.nameIs("MetadataEntry"), tag.attribute("key", is: "HKTimeZone") {
                pendingWorkout?.timeZone = tag.attribute("value")
            } else if tag.nameIs("WorkoutRoute") {
                pendingRoute = WorkoutRoute(file: nil, source: tag.attribute("sourceName"), points: 0, start: nil, end: nil)
            } else if tag.nameIs("WorkoutActivity"), let seconds = Self.seconds(tag, "duration", "durationUnit") {
                activityDurations += seconds
            }
        } else if level == 3, pendingRoute != nil {
            if tag.nameIs("Location") {
                pendingRoute?.points += 1
                if let raw = tag.rawAttribute("date"), case let .instant(instant) = ExportDate.appleHealth(raw) {
                    pendingRoute?.include(instant)
                }
            } else if tag.nameIs("FileReference"), let path = tag.attribute("path") {
                let file = path.hasPrefix("/") ? String(path.dropFirst()) : path
                pendingRoute?.file = file
                referencedRouteFiles.append(file)
            }
        }
    }

    private func close(level: Int, _ tag: XMLTag) throws {
        if level == 1 {
            if let record = pendingRecord {
                pendingRecord = nil
                recordCount += 1
                try sink.record(record)
            } else if var workout = pendingWorkout {
                pendingWorkout = nil
                if workout.duration == nil { workout.duration = activityDurations > 0 ? activityDurations : workout.end - workout.start }
                recordCount += 1
                try sink.record(workout)
            }
        } else if level == 2, let route = pendingRoute {
            // Inside a workout, the only level-2 element that closes while a route is open is the route.
            pendingRoute = nil
            // A route with a FileReference is counted when its GPX file is read.
            if route.file == nil, route.points > 0 {
                routeCount += 1
                try sink.workoutRoute(route)
            }
        }
    }

    // MARK: Attributes

    private func record(_ tag: XMLTag) throws -> SourceRecord? {
        guard let typeRaw = tag.rawAttribute("type") else { return nil }
        let type = types.string(typeRaw, entities: false)
        let kind: SourceRecord.Kind = type.hasPrefix("HKCategoryTypeIdentifier") ? .category : .quantity
        var record = SourceRecord(kind: kind, type: type, source: source(tag), deviceModel: deviceModel(tag),
                                  start: try date(tag, "startDate"), end: try date(tag, "endDate"))
        if let raw = tag.rawAttribute("value") {
            if kind == .quantity, let number = DecimalText.parse(raw) {
                record.value = number
            } else if kind == .category || !type.hasPrefix("HKQuantityTypeIdentifier") {
                record.kind = .category
                record.category = categories.string(raw, entities: tag.hasEntity("value"))
            }
        }
        if let raw = tag.rawAttribute("unit") { record.unit = units.string(raw, entities: tag.hasEntity("unit")) }
        return record
    }

    private func workout(_ tag: XMLTag) throws -> SourceRecord {
        SourceRecord(kind: .workout, type: "HKWorkoutTypeIdentifier", source: source(tag), deviceModel: deviceModel(tag),
                     start: try date(tag, "startDate"), end: try date(tag, "endDate"),
                     activity: tag.attribute("workoutActivityType"), duration: Self.seconds(tag, "duration", "durationUnit"))
    }

    private func summary(_ tag: XMLTag) throws {
        guard let day = tag.attribute("dateComponents") else { return }
        var energy = tag.rawAttribute("activeEnergyBurned").flatMap(DecimalText.parse)
        if let value = energy {
            switch tag.attribute("activeEnergyBurnedUnit") {
            case "kJ": energy = value / 4.184
            case "J": energy = value / 4184
            default: break // kcal and Cal (a food calorie is a kilocalorie)
            }
        }
        summaryCount += 1
        try sink.activitySummary(ActivitySummaryRecord(day: day, activeEnergyKilocalories: energy,
                                                       exerciseMinutes: tag.rawAttribute("appleExerciseTime").flatMap(DecimalText.parse),
                                                       standHours: tag.rawAttribute("appleStandHours").flatMap(DecimalText.parse)))
    }

    private func source(_ tag: XMLTag) -> String {
        guard let raw = tag.rawAttribute("sourceName") else { return "" }
        return sources.string(raw, entities: tag.hasEntity("sourceName"))
    }

    /// The `model:` field of the `HKDevice` description (`<<HKDevice: 0x…>, name:…, model:Watch, …>`).
    private func deviceModel(_ tag: XMLTag) -> String? {
        guard let raw = tag.rawAttribute("device") else { return nil }
        let marker = Array("model:".utf8)
        var index = raw.startIndex
        while index + marker.count <= raw.endIndex {
            if raw[index] == 0x6D, raw[index..<(index + marker.count)].elementsEqual(marker) {
                let start = index + marker.count
                var end = start
                while end < raw.endIndex, raw[end] != 0x2C, raw[end] != 0x26 { end += 1 }
                return models.string(raw[start..<end], entities: false)
            }
            index += 1
        }
        return nil
    }

    private func date(_ tag: XMLTag, _ name: StaticString) throws(ExportError) -> Double {
        guard let raw = tag.rawAttribute(name) else { throw .unreadableDate(file: label, byteOffset: tag.byteOffset) }
        switch ExportDate.appleHealth(raw) {
        case let .instant(seconds): return seconds
        case .compact: throw .iOS8Format(file: label)
        case .unreadable: throw .unreadableDate(file: label, byteOffset: tag.byteOffset)
        }
    }

    /// A duration attribute in seconds, converting its unit attribute (minutes when absent, as Apple writes).
    static func seconds(_ tag: XMLTag, _ name: StaticString, _ unitName: StaticString) -> Double? {
        guard let value = tag.rawAttribute(name).flatMap(DecimalText.parse) else { return nil }
        switch tag.attribute(unitName) ?? "min" {
        case "s", "sec": return value
        case "ms": return value / 1000
        case "hr", "h": return value * 3600
        case "d", "day": return value * 86_400
        default: return value * 60
        }
    }
}
