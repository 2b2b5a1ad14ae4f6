import EfferentCore

/// Reads PulsHealth's Puls Sync Protocol v1 batch lines into `SourceRecord`s.
///
/// A batch is a header line (`schemaVersion`, counts) then sample lines (`uuid, type, kind,
/// start, end` in epoch milliseconds, `value, unit, category, sourceName, device, metadata,
/// workout{activityType, duration}`). Route and series lines, and any other line shape a later
/// protocol version adds, are skipped. Category integers of sleep analysis become HealthKit's
/// export strings (apple-health-export.md §1.5); other categories keep the integer as text.
public final class PulsHealthReader {
    public let sink: ExportSink
    public private(set) var recordCount = 0
    private var lines: NDJSONLines
    private let label: String

    /// `HKCategoryValueSleepAnalysis…` by PulsHealth's integer (0 in bed, 1 asleep unspecified, 2 awake, 3 core, 4 deep, 5 REM).
    static let sleepValues = ["HKCategoryValueSleepAnalysisInBed", "HKCategoryValueSleepAnalysisAsleepUnspecified",
                              "HKCategoryValueSleepAnalysisAwake", "HKCategoryValueSleepAnalysisAsleepCore",
                              "HKCategoryValueSleepAnalysisAsleepDeep", "HKCategoryValueSleepAnalysisAsleepREM"]

    public init(sink: ExportSink, label: String) {
        self.sink = sink
        self.label = label
        lines = NDJSONLines(label: label)
    }

    public func feed(_ chunk: [UInt8]) throws {
        try lines.feed(chunk) { line, number in try self.read(line, number) }
    }

    public func finish() throws {
        try lines.finish { line, number in try self.read(line, number) }
    }

    /// Whether `line` is a batch header or a sample line (for recognising a file by its first line).
    func probe(_ line: [UInt8]) throws -> Bool {
        guard let object = try? JSONParser.parse(line), object["schemaVersion"] != nil || (object["uuid"] != nil && object["kind"] != nil) else {
            return false
        }
        try read(line, 1)
        return true
    }

    private func read(_ line: [UInt8], _ number: Int) throws {
        func bad(_ problem: String) -> ExportError { .malformedLine(file: label, line: number, problem: problem) }
        guard let object = try? JSONParser.parse(line), object.objectValue != nil else { throw bad("not a JSON object") }
        if let version = object["schemaVersion"] {
            guard version.integerValue == 1 else { throw bad("a batch header whose schemaVersion is not 1") }
            return
        }
        guard object["uuid"] != nil, let kindText = object["kind"]?.stringValue else { return } // route, series, later shapes
        guard let type = object["type"]?.stringValue else { throw bad("no \"type\"") }
        guard let startMS = object["start"]?.numberValue, startMS.isFinite else { throw bad("\"start\" is not epoch milliseconds") }
        let endMS = object["end"]?.numberValue ?? startMS
        var record = SourceRecord(kind: .quantity, type: type, source: object["sourceName"]?.stringValue ?? "",
                                  deviceModel: object["device"]?.stringValue, start: startMS / 1000, end: endMS / 1000,
                                  timeZone: object["metadata"]?["HKTimeZone"]?.stringValue)
        switch kindText {
        case "quantity":
            guard let value = object["value"]?.numberValue else { throw bad("a quantity sample without a numeric \"value\"") }
            record.value = value
            record.unit = object["unit"]?.stringValue
        case "category":
            record.kind = .category
            if let code = object["category"]?.integerValue {
                if type == "HKCategoryTypeIdentifierSleepAnalysis" {
                    guard code >= 0, code < Int64(Self.sleepValues.count) else { throw bad("a sleep category outside 0…5") }
                    record.category = Self.sleepValues[Int(code)]
                } else {
                    record.category = String(code)
                }
            }
        case "workout":
            record.kind = .workout
            let workout = object["workout"]
            if let activity = workout?["activityType"], !activity.isNull {
                record.activity = activity.stringValue ?? activity.numberValue.map(EfferentEventReader.text)
            }
            record.duration = workout?["duration"]?.numberValue ?? (endMS - startMS) / 1000
        default:
            throw bad("an unknown sample kind")
        }
        recordCount += 1
        try sink.record(record)
    }
}
