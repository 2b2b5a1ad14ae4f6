import EfferentCore

/// Reads one `electrocardiograms/ecg_YYYY-MM-DD.csv` of an export (apple-health-export.md §1.7)
/// into an `electrocardiogram` record (its classification as HealthKit's integer), its sampling
/// frequency, and one `electrocardiogram.voltage` sample per line (decision A.9).
///
/// The header is `key,value` lines whose keys and values follow the export's language; the
/// recorded date is the first value that reads as an export date, the classification the line
/// after it, the rate the first value that reads as `<number> hertz|Hz`. Voltages are one number a line, with the locale's decimal mark
/// (`-265.868`, `-265,868`).
public final class ECGReader {
    let sink: ExportSink
    let label: String
    private var lines: NDJSONLines
    private var recorded: Double?
    private var rate: Double?
    private var classification: String?
    private var unit: String?
    private var device: String?
    private var voltages: [Double] = []
    /// Whether the last header line read was the recorded date: the classification follows it.
    private var afterRecorded = false

    public init(sink: ExportSink, file: String) {
        self.sink = sink
        label = file.split(separator: "/").last.map(String.init) ?? file
        lines = NDJSONLines(label: label)
    }

    public func feed(_ chunk: [UInt8]) throws {
        try lines.feed(chunk) { line, number in try self.read(line, number) }
    }

    /// Writes what the file held; returns how many voltages it carried. A file with no recorded
    /// date cannot be placed in time: it is reported, and the rest of the export still imports.
    @discardableResult
    public func finish() throws -> Int {
        try lines.finish { line, number in try self.read(line, number) }
        guard let recorded else {
            try sink.leftOut(LeftOut(label, .unreadable("an ECG file with no recorded date Efferent can read")))
            return 0
        }
        let rate = self.rate ?? 512
        let source = device ?? "Electrocardiogram"
        let model: String? = device.map { $0.hasPrefix("Watch") ? "Watch" : $0 }
        let number = classification.flatMap { RecordParts.ecgClassifications[$0] }
        if classification != nil, number == nil {
            try sink.leftOut(LeftOut("electrocardiogram classification", .unreadable("written in a language this writer does not read")))
        }
        let end = recorded + Double(voltages.count) / rate
        try sink.record(SourceRecord(kind: .part, type: RecordParts.electrocardiogram, source: source, deviceModel: model,
                                     start: recorded, end: end, value: number.map(Double.init)))
        try sink.record(SourceRecord(kind: .part, type: RecordParts.ecgSamplingFrequency.metric, source: source, deviceModel: model,
                                     start: recorded, end: end, value: rate, unit: "Hz"))
        let writer = SampleSeriesWriter(sink: sink, source: source, deviceModel: model)
        for (index, voltage) in voltages.enumerated() {
            try writer.write(at: recorded + Double(index) / rate, [(RecordParts.ecgVoltage, voltage, unit)])
        }
        return voltages.count
    }

    private func read(_ line: [UInt8], _ number: Int) throws {
        if let voltage = Self.number(line) {
            guard recorded != nil else { return }
            voltages.append(voltage)
            return
        }
        guard voltages.isEmpty, let comma = line.firstIndex(of: 0x2C) else { return }
        let key = String(decoding: line[..<comma], as: UTF8.self).trimmingCharacters(in: .whitespaces)
        var value = String(decoding: line[(comma + 1)...], as: UTF8.self).trimmingCharacters(in: .whitespaces)
        if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
        let follows = afterRecorded
        afterRecorded = false
        if recorded == nil, case let .instant(instant) = ExportDate.appleHealth(ArraySlice(value.utf8)) {
            recorded = instant
            afterRecorded = true
        } else if rate == nil, let hertz = Self.hertz(value) {
            rate = hertz
        } else if key == "Classification" || (follows && classification == nil) {
            // Keys follow the export's language; the classification is the line after the date.
            classification = value
        } else if key == "Unit" || value == "µV" || value == "mV" {
            unit = value
        } else if key == "Device", !value.isEmpty {
            device = value
        }
    }

    /// `512 hertz`, `512 Hz` → 512.
    static func hertz(_ text: String) -> Double? {
        let pieces = text.split(separator: " ")
        guard pieces.count == 2, ["hertz", "hz"].contains(pieces[1].lowercased()),
              let value = DecimalText.parse(ArraySlice(pieces[0].utf8)), value > 0 else { return nil }
        return value
    }

    /// A voltage line: one number, its decimal mark a point or a comma.
    static func number(_ line: [UInt8]) -> Double? {
        guard let first = line.first, first == 0x2D || first == 0x2B || (first >= 0x30 && first <= 0x39) else { return nil }
        if let value = DecimalText.parse(line[...]) { return value }
        guard line.filter({ $0 == 0x2C }).count == 1 else { return nil }
        return DecimalText.parse(ArraySlice(line.map { $0 == 0x2C ? 0x2E : $0 }))
    }
}
