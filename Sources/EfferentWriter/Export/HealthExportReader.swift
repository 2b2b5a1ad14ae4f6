import EfferentCore
import EfferentSystem
import Foundation

/// Turns the elements of an Apple Health `export.xml` into `ExportSink` calls, streaming.
///
/// Top-level `Record` → a quantity or category `SourceRecord`, and its beat-to-beat readings →
/// `heartbeatSeries` parts; `Workout` → one workout record and its parts (statistics, events,
/// activities, measured metadata, inline `Location` routes; `HealthExportReader+Workouts`);
/// `ActivitySummary` → an `ActivitySummaryRecord`; `Audiogram` → its points. Records nested in a
/// `Correlation` are not emitted: they also appear at top level (the DTD says so,
/// apple-health-export.md §1.3). Health Records, vision prescriptions and characteristics are
/// left out on purpose and reported; any other element is skipped whole (decision A.9).
public final class HealthExportReader {
    public let sink: ExportSink
    /// Records and workouts handed to the sink so far (their parts are not counted here).
    public private(set) var recordCount = 0
    /// Activity summaries handed to the sink so far.
    public private(set) var summaryCount = 0
    /// Routes handed to the sink so far (inline ones; GPX files are read separately).
    public internal(set) var routeCount = 0
    /// `FileReference` paths seen in workout routes, without their leading `/`.
    public internal(set) var referencedRouteFiles: [String] = []
    /// The source each referenced GPX file's fixes are filed under: its `WorkoutRoute`'s, or its workout's.
    public internal(set) var routeSources: [String: (source: String, deviceModel: String?)] = [:]
    /// The zones records name and the offsets their dates are written with, for the archive's zone.
    public var zoneEvidence: ZoneEvidence {
        var evidence = gatheredEvidence
        if let offsetRun { evidence.saw(offset: offsetRun.offset, count: offsetRun.count, latest: offsetRun.latest) }
        return evidence
    }
    /// `zoneEvidence` without the current run of records written with one offset.
    var gatheredEvidence = ZoneEvidence()
    /// Records' dates come in long runs of one offset: counted here, added when the offset changes.
    private var offsetRun: (offset: Int, count: Int, latest: Double)?
    /// Bytes of XML consumed so far.
    public var bytesFed: UInt64 { scanner.bytesFed }

    let scanner: HealthXMLScanner
    var label: String { scanner.label }
    private var sawRoot = false
    /// Open elements below the root.
    private var depth = 0
    private var pendingRecord: SourceRecord?
    /// The pending record's start offset (for anchoring beat times) and its beats.
    private var recordOffset: Int?
    private var beats: [(bpm: Double, time: [UInt8])] = []
    var pendingWorkout: SourceRecord?
    var workoutParts: [SourceRecord] = []
    /// Statistics the legacy total attributes spell, and measured metadata (last one wins).
    var legacyParts: [SourceRecord] = []
    var metadataParts: [String: SourceRecord] = [:]
    var activityDurations: Double = 0
    var insideActivity = false
    var pendingRoute: WorkoutRoute?
    var routeWriter: SampleSeriesWriter?
    private var pendingAudiogram: SourceRecord?
    private var audiogramWriter: SampleSeriesWriter?

    private var types = RecentString()
    /// The last type read, and whether it names a category or a quantity (asked of every record).
    private var typeKind: (type: String, isCategory: Bool, isQuantity: Bool) = ("", false, false)
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
                beats.removeAll(keepingCapacity: true)
                pendingRecord = try record(tag)
            } else if tag.nameIs("Workout") {
                pendingWorkout = try workout(tag)
                workoutParts.removeAll(keepingCapacity: true)
                activityDurations = 0
                try openWorkout(tag)
            } else if tag.nameIs("ActivitySummary") {
                try summary(tag)
            } else if tag.nameIs("Audiogram") {
                pendingAudiogram = SourceRecord(kind: .part, type: "audiogram", source: source(tag), deviceModel: deviceModel(tag),
                                                start: try date(tag, "startDate"), end: try date(tag, "endDate"))
                audiogramWriter = SampleSeriesWriter(sink: sink, source: pendingAudiogram?.source ?? "", deviceModel: pendingAudiogram?.deviceModel)
            } else if tag.nameIs("ClinicalRecord") {
                try sink.leftOut(.clinicalRecord)
            } else if tag.nameIs("VisionPrescription") {
                try sink.leftOut(.visionPrescription)
            } else if tag.nameIs("Me") {
                try sink.leftOut(.characteristics)
            } else if tag.nameIs("ExportDate"), let raw = tag.rawAttribute("value"), case let .instant(instant) = ExportDate.appleHealth(raw) {
                gatheredEvidence.exportInstant = instant
                gatheredEvidence.exportOffset = ExportDate.offsetSeconds(raw)
            }
            return
        }
        if pendingRecord != nil {
            if level == 2, tag.nameIs("MetadataEntry"), tag.attribute("key", is: "HKTimeZone") {
                pendingRecord?.timeZone = tag.attribute("value")
                if let zone = pendingRecord?.timeZone { gatheredEvidence.named[zone, default: 0] += 1 }
            } else if level == 3, tag.nameIs("InstantaneousBeatsPerMinute"), let time = tag.rawAttribute("time") {
                beats.append((tag.rawAttribute("bpm").flatMap(DecimalText.parse) ?? .nan, Array(time)))
            }
        } else if pendingWorkout != nil {
            try openInWorkout(tag, level: level)
        } else if let audiogram = pendingAudiogram, level == 2, tag.nameIs("SensitivityPoint"), let writer = audiogramWriter {
            try writer.write(at: audiogram.start, [
                (RecordParts.audiogramFrequency, tag.rawAttribute("frequencyValue").flatMap(DecimalText.parse), tag.attribute("frequencyUnit")),
                (RecordParts.audiogramLeftEar, tag.rawAttribute("leftEarValue").flatMap(DecimalText.parse), tag.attribute("leftEarUnit")),
                (RecordParts.audiogramRightEar, tag.rawAttribute("rightEarValue").flatMap(DecimalText.parse), tag.attribute("rightEarUnit")),
            ])
        }
    }

    private func close(level: Int, _ tag: XMLTag) throws {
        if level == 1 {
            if let record = pendingRecord.take() {
                recordCount += 1
                try sink.record(record)
                if !beats.isEmpty { try writeBeats(of: record) }
            } else if pendingWorkout != nil {
                recordCount += 1
                try closeWorkout()
            } else if pendingAudiogram != nil {
                pendingAudiogram = nil
                audiogramWriter = nil
            }
        } else if pendingWorkout != nil {
            try closeInWorkout(level: level, tag)
        }
    }

    /// `InstantaneousBeatsPerMinute@time` is a time of day in the export's locale with no date:
    /// anchored to the record's start as written (its wall clock and offset), the next day when it
    /// reads earlier than the start by more than twelve hours.
    private func writeBeats(of record: SourceRecord) throws {
        let writer = SampleSeriesWriter(sink: sink, source: record.source, deviceModel: record.deviceModel)
        let offset = Double(recordOffset ?? 0)
        let wall = record.start + offset
        let midnight = (wall / 86_400).rounded(.down) * 86_400
        for beat in beats {
            guard let time = ExportDate.timeOfDay(beat.time[...]), beat.bpm.isFinite else {
                try sink.leftOut(LeftOut("InstantaneousBeatsPerMinute", .unreadable("a beat time or rate that cannot be read")))
                continue
            }
            var beatWall = midnight + time
            if beatWall < wall - 43_200 { beatWall += 86_400 }
            try writer.write(at: beatWall - offset, [(RecordParts.heartbeat, beat.bpm, "count/min")])
        }
        beats.removeAll(keepingCapacity: true)
    }

    // MARK: Attributes

    private func record(_ tag: XMLTag) throws -> SourceRecord? {
        // Decoded like every other text attribute: `&lt;` in a type is `<` (a type so named maps to
        // nothing and is named as not carried, under its real name).
        guard let (typeRaw, typeEntities) = tag.rawAttributeAndEntity("type") else { return nil }
        let type = types.string(typeRaw, entities: typeEntities)
        // A run of one type shares one String, so this compares a pointer.
        if type != typeKind.type {
            typeKind = (type, type.hasPrefix("HKCategoryTypeIdentifier"), type.hasPrefix("HKQuantityTypeIdentifier"))
        }
        let kind: SourceRecord.Kind = typeKind.isCategory ? .category : .quantity
        let start: Double, end: Double
        do throws(ExportError) {
            start = try date(tag, "startDate")
            end = try date(tag, "endDate")
        } catch {
            // iOS 8's format is the whole export's, so it stops the import; one record's date that
            // reads as no time (an offset of +9999, a 31st of February) is that record's alone.
            if case .iOS8Format = error { throw error }
            try sink.leftOut(LeftOut(type, .unreadable("a date that names no real time")))
            return nil
        }
        var record = SourceRecord(kind: kind, type: type, source: source(tag), deviceModel: deviceModel(tag), start: start, end: end)
        if let raw = tag.rawAttribute("value") {
            if kind == .quantity, let number = DecimalText.parse(raw) {
                record.value = number
            } else if kind == .category || !typeKind.isQuantity {
                record.kind = .category
                record.category = categories.string(raw, entities: tag.hasEntity("value"))
            }
        }
        if let raw = tag.rawAttribute("unit") { record.unit = units.string(raw, entities: tag.hasEntity("unit")) }
        // Beat times are wall-clock times in the offset the start was written with.
        recordOffset = tag.rawAttribute("startDate").flatMap(ExportDate.offsetSeconds)
        if let recordOffset { sawOffset(recordOffset, at: record.start) }
        return record
    }

    /// One record's date written with `offset`, counted into the current run (`ZoneEvidence.saw`
    /// takes a run at a time).
    private func sawOffset(_ offset: Int, at instant: Double) {
        if let run = offsetRun, run.offset == offset {
            offsetRun = (offset, run.count + 1, max(run.latest, instant))
            return
        }
        if let run = offsetRun { gatheredEvidence.saw(offset: run.offset, count: run.count, latest: run.latest) }
        offsetRun = (offset, 1, instant)
    }

    private func workout(_ tag: XMLTag) throws -> SourceRecord {
        SourceRecord(kind: .workout, type: "HKWorkoutTypeIdentifier", source: source(tag), deviceModel: deviceModel(tag),
                     start: try date(tag, "startDate"), end: try date(tag, "endDate"),
                     activity: tag.attribute("workoutActivityType"), duration: Self.seconds(tag, "duration", "durationUnit"))
    }

    private func summary(_ tag: XMLTag) throws {
        guard let day = tag.attribute("dateComponents") else { return }
        let divisor: Double = switch tag.attribute("activeEnergyBurnedUnit") {
        case "kJ": 4.184
        case "J": 4184
        default: 1 // kcal and Cal (a food calorie is a kilocalorie)
        }
        let energy = tag.rawAttribute("activeEnergyBurned").flatMap(DecimalText.parse).map { divisor == 1 ? $0 : $0 / divisor }
        let goal = tag.rawAttribute("activeEnergyBurnedGoal").flatMap(DecimalText.parse).map { divisor == 1 ? $0 : $0 / divisor }
        var rings = [String: Double]()
        rings["activeEnergyBurned"] = energy
        rings["activeEnergyBurnedGoal"] = goal
        for (name, attribute) in Self.ringAttributes {
            if let value = tag.rawAttribute(attribute).flatMap(DecimalText.parse) { rings[name] = value }
        }
        summaryCount += 1
        try sink.activitySummary(ActivitySummaryRecord(day: day, activeEnergyKilocalories: energy,
                                                       exerciseMinutes: rings["appleExerciseTime"], standHours: rings["appleStandHours"],
                                                       rings: rings))
    }

    /// The ring attributes other than active energy, which carries a unit attribute of its own.
    static let ringAttributes: [(String, StaticString)] = [
        ("appleMoveTime", "appleMoveTime"), ("appleMoveTimeGoal", "appleMoveTimeGoal"), ("appleExerciseTime", "appleExerciseTime"),
        ("appleExerciseTimeGoal", "appleExerciseTimeGoal"), ("appleStandHours", "appleStandHours"),
        ("appleStandHoursGoal", "appleStandHoursGoal"),
    ]

    func source(_ tag: XMLTag) -> String {
        guard let raw = tag.rawAttribute("sourceName") else { return "" }
        return sources.string(raw, entities: tag.hasEntity("sourceName"))
    }

    /// The `model:` field of the `HKDevice` description (`<<HKDevice: 0x…>, name:…, model:Watch, …>`).
    func deviceModel(_ tag: XMLTag) -> String? {
        guard let raw = tag.rawAttribute("device") else { return nil }
        // "model:", its "m"s found by libc's memchr: this runs over every record's device description.
        var at = raw.startIndex, found: Int?
        while at + 6 <= raw.endIndex, let hit = ByteSearch.firstIndex(of: 0x6D, in: raw, at..<(raw.endIndex - 5)) {
            if raw[hit + 1] == 0x6F, raw[hit + 2] == 0x64, raw[hit + 3] == 0x65, raw[hit + 4] == 0x6C, raw[hit + 5] == 0x3A {
                found = hit
                break
            }
            at = hit + 1
        }
        guard let index = found else { return nil }
        let start = index + 6
        var end = start
        while end < raw.endIndex, raw[end] != 0x2C, raw[end] != 0x26 { end += 1 }
        return models.string(raw[start..<end], entities: false)
    }

    func date(_ tag: XMLTag, _ name: StaticString) throws(ExportError) -> Double {
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
