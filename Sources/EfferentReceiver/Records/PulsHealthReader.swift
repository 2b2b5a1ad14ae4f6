import EfferentCore
import EfferentWriter

/// Reads PulsHealth's Puls Sync Protocol v1 batch lines into `SourceRecord`s (decision A.9): the
/// one mapping of the protocol's lines to records, for a phone's batches (`PulsBatchReader`) and
/// for `efferent import` of saved batches (`format`).
///
/// A batch is a header line (`schemaVersion`, counts) then sample lines (`uuid, type, kind,
/// start, end` in epoch milliseconds, `value, unit, category, sourceName, device, metadata` and
/// the kind's detail object), route and series lines. Quantities, categories and workouts map as
/// an export's do; a workout's statistics, events and activities, route fixes, series points,
/// ECGs, beats, State of Mind, medication doses and activity summaries become their parts, every
/// word the protocol names an enumeration with mapped to HealthKit's value (`PulsVocabulary`).
/// What the archive leaves out (aggregates it computes itself, deletions, the profile, a
/// medication's name) is reported.
public final class PulsHealthReader: LineInputReader {
    public let sink: ExportSink
    public private(set) var recordCount = 0
    /// The zones the batches and samples name (`timeZoneID`, `HKTimeZone`), for the archive's zone.
    public internal(set) var zoneEvidence = ZoneEvidence()
    /// Route lines read.
    public internal(set) var routeCount = 0
    public var lines: NDJSONLines
    let label: String
    /// Workouts seen in this input, by lower-case UUID (the wire compares UUIDs whatever their
    /// case), for the source of their route and series lines.
    var workouts: [String: SourceRecord] = [:]
    /// Where a workout this input has not named is looked up (a receiver's store, which holds
    /// the workouts of earlier batches); by lower-case UUID.
    var earlierWorkout: ((String) throws -> SourceRecord?)?

    /// `HKCategoryValueSleepAnalysis…` by PulsHealth's integer (0 in bed, 1 asleep unspecified, 2 awake, 3 core, 4 deep, 5 REM).
    static let sleepValues = ["HKCategoryValueSleepAnalysisInBed", "HKCategoryValueSleepAnalysisAsleepUnspecified",
                              "HKCategoryValueSleepAnalysisAwake", "HKCategoryValueSleepAnalysisAsleepCore",
                              "HKCategoryValueSleepAnalysisAsleepDeep", "HKCategoryValueSleepAnalysisAsleepREM"]

    public init(sink: ExportSink, label: String) {
        self.sink = sink
        self.label = label
        lines = NDJSONLines(label: label)
    }

    /// Saved batches as `efferent import` reads them (format `pulshealth-ndjson`): recognised by a
    /// first line that is a batch header or a sample line.
    public static let format = LineFormat(name: "pulshealth-ndjson", recognises: { line in
        (try? PulsHealthReader(sink: NDJSONProbe(), label: "").probe(line)) == true
    }, reader: { sink, label in PulsHealthReader(sink: sink, label: label) })

    public var tally: ExportTally {
        var tally = ExportTally(records: recordCount, routes: routeCount)
        tally.zone = zoneEvidence
        return tally
    }

    /// Whether `line` is a batch header or a sample line (for recognising a file by its first line).
    func probe(_ line: [UInt8]) throws -> Bool {
        guard let object = try? JSONParser.parse(line), object["schemaVersion"] != nil || (object["uuid"] != nil && object["kind"] != nil) else {
            return false
        }
        try read(line: line, number: 1)
        return true
    }

    func bad(_ problem: String, _ number: Int) -> ExportError { .malformedLine(file: label, line: number, problem: problem) }

    public func read(line: [UInt8], number: Int) throws {
        guard let object = try? JSONParser.parse(line), object.objectValue != nil else { throw bad("not a JSON object", number) }
        try read(object: object, number)
    }

    /// One line already parsed (a receiver parses and checks each line before it is read here).
    func read(object: JSONValue, _ number: Int) throws {
        if let version = object["schemaVersion"] {
            guard version.integerValue == 1 else { throw bad("a batch header whose schemaVersion is not 1", number) }
            // The phone's zone when it sent the batch: evidence for the archive's zone (decision A.4).
            if let zone = object["timeZoneID"]?.stringValue, !zone.isEmpty { zoneEvidence.named[zone, default: 0] += 1 }
            return
        }
        if let route = object["route"] { return try self.route(route, number) }
        if let series = object["series"] { return try self.series(series, number) }
        if let summary = object["activitySummary"] { return try activitySummary(summary) }
        for (key, reason) in Self.leftOutLines where object[key] != nil {
            return try sink.leftOut(LeftOut("PulsHealth \(key) line", .onPurpose(reason)))
        }
        try sample(object: object, number)
    }

    /// A sample line (a receiver knows a line is one once it has checked it, and skips the
    /// look-ups for the other shapes).
    func sample(object: JSONValue, _ number: Int) throws {
        guard object["uuid"] != nil, let kindText = object["kind"]?.stringValue else {
            return try sink.leftOut(LeftOut("PulsHealth line", .unreadable("a line shape this writer does not know")))
        }
        guard let type = object["type"]?.stringValue else { throw bad("no \"type\"", number) }
        guard let startMS = object["start"]?.numberValue, startMS.isFinite else { throw bad("\"start\" is not epoch milliseconds", number) }
        let endMS = object["end"]?.numberValue ?? startMS
        var record = SourceRecord(kind: .quantity, type: type, source: object["sourceName"]?.stringValue ?? "",
                                  deviceModel: object["device"]?.stringValue, start: startMS / 1000, end: endMS / 1000,
                                  timeZone: object["metadata"]?["HKTimeZone"]?.stringValue ?? object["startContext"]?["timeZoneID"]?.stringValue)
        if let zone = record.timeZone, !zone.isEmpty { zoneEvidence.named[zone, default: 0] += 1 }
        switch kindText {
        case "quantity":
            guard let value = object["value"]?.numberValue else { throw bad("a quantity sample without a numeric \"value\"", number) }
            record.value = value
            record.unit = object["unit"]?.stringValue
        case "category":
            record.kind = .category
            if let code = object["category"]?.integerValue {
                if type == "HKCategoryTypeIdentifierSleepAnalysis" {
                    guard code >= 0, code < Int64(Self.sleepValues.count) else { throw bad("a sleep category outside 0…5", number) }
                    record.category = Self.sleepValues[Int(code)]
                } else {
                    record.category = String(code)
                }
            }
        case "workout":
            record.kind = .workout
            let workout = object["workout"]
            if let activity = workout?["activityType"], !activity.isNull {
                // The word as sent names the record (decision A.6); HealthKit's number for it, when
                // known, is what the archive files (`strength_training` is traditional strength
                // training, never "other").
                record.activity = activity.stringValue ?? activity.numberValue.map(EfferentEventReader.text)
                record.resolvedActivity = activity.stringValue.flatMap(PulsVocabulary.activity)
            }
            record.duration = workout?["duration"]?.numberValue ?? (endMS - startMS) / 1000
            recordCount += 1
            try sink.record(record)
            if let uuid = object["uuid"]?.stringValue { workouts[uuid.lowercased()] = record }
            return try workoutParts(record, workout)
        case "ecg":
            recordCount += 1
            return try electrocardiogram(record, object["ecg"], number)
        case "heartbeatSeries":
            recordCount += 1
            return try heartbeats(record, object["heartbeats"], number)
        case "stateOfMind":
            recordCount += 1
            return try stateOfMind(record, object["stateOfMind"])
        case "medicationDose":
            recordCount += 1
            return try medicationDose(record, object["medicationDose"])
        default:
            throw bad("an unknown sample kind", number)
        }
        recordCount += 1
        try sink.record(record)
    }

    /// Line shapes the archive leaves out: buckets it computes itself from the samples, deletions
    /// (NDJSON imports never delete), and the profile (characteristics, as an export's `Me`).
    static let leftOutLines: [(String, String)] = [
        ("aggregate", "on-device statistics; the archive sums its own totals from the samples"),
        ("deleted", "NDJSON imports never delete; a whole Apple export does"),
        ("profile", "date of birth and sex are not time series"),
    ]
}
