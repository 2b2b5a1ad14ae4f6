import EfferentCore

/// Reads Efferent's own layout-1 event lines (efferent-protocol.md §3.3) into `SourceRecord`s.
///
/// Each line is `{"id":…,"v":1, metric, start, end, value?, unit?, source?, stage?, activity?,
/// duration?, bucket?}` with ISO `…Z` instants. The metric is already a protocol metric, so the
/// record's `type` says so with a prefix the mapping recognises: `efferent:<metric>` for records
/// (`efferent:heartRate`, `efferent:sleep`, `efferent:workout`) and `efferent:<metric>/<bucket>`
/// for totals (`efferent:steps/day`, `efferent:steps/hour`) — the bucket is kept because a day's
/// hourly and daily totals cover the same time and must never be added together.
public final class EfferentEventReader {
    /// What every `type` this reader writes starts with.
    public static let typePrefix = "efferent:"

    public let sink: ExportSink
    public private(set) var recordCount = 0
    public var lines: NDJSONLines
    /// The input's name in refusals (never read from `lines` inside its own `feed`).
    private let label: String

    public init(sink: ExportSink, label: String) {
        self.sink = sink
        self.label = label
        lines = NDJSONLines(label: label)
    }

    public var tally: ExportTally { ExportTally(records: recordCount) }

    /// Whether `line` is a valid event line (for recognising a file by its first line).
    func probe(_ line: [UInt8]) throws -> Bool {
        try read(line: line, number: 1)
        return true
    }

    public func read(line: [UInt8], number: Int) throws {
        func bad(_ problem: String) -> ExportError { .malformedLine(file: label, line: number, problem: problem) }
        guard let object = try? JSONParser.parse(line), object.objectValue != nil else { throw bad("not a JSON object") }
        guard object["v"]?.integerValue == 1 else { throw bad("\"v\" is not 1") }
        guard let metric = object["metric"]?.stringValue, !metric.isEmpty else { throw bad("no \"metric\"") }
        guard let start = object["start"]?.stringValue.flatMap({ ExportDate.isoUTC(ArraySlice($0.utf8)) }) else {
            throw bad("\"start\" is not an ISO instant ending in Z")
        }
        let end: Double
        if let text = object["end"]?.stringValue {
            guard let instant = ExportDate.isoUTC(ArraySlice(text.utf8)) else { throw bad("\"end\" is not an ISO instant ending in Z") }
            end = instant
        } else {
            end = start
        }
        let bucket = object["bucket"]?.stringValue
        // A day total already holds its hours: named as such, it ranks below every hour total of
        // the same metric (`SourcePriority`), so only time no hour total covers takes from it.
        var source = object["source"]?.stringValue ?? ""
        if bucket == "day" { source = (source.isEmpty ? "archive" : source) + SourcePriority.dayTotalSuffix }
        var record = SourceRecord(kind: .quantity, type: Self.typePrefix + metric + (bucket.map { "/" + $0 } ?? ""),
                                  source: source, start: start, end: end,
                                  value: object["value"]?.numberValue, unit: object["unit"]?.stringValue)
        if let activity = object["activity"], !activity.isNull {
            record.kind = .workout
            record.activity = activity.stringValue ?? activity.numberValue.map(Self.text)
            record.duration = object["duration"]?.numberValue
        } else if let stage = object["stage"]?.stringValue {
            record.kind = .category
            record.category = stage
        } else if record.value == nil {
            throw bad("no \"value\", \"stage\" or \"activity\"")
        }
        recordCount += 1
        try sink.record(record)
    }

    /// An integral number without a fraction (`58`), others as Swift writes them.
    public static func text(_ number: Double) -> String {
        number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    }
}
