/// Why an export's content could not be read; each description is one sentence saying what to do.
///
/// Descriptions name the file and a position in it, never a value from it.
public enum ExportError: Error, Equatable, CustomStringConvertible {
    /// The path is none of the formats Efferent reads.
    case notAnExport(file: String)
    /// A zip or folder with no XML file whose root is `HealthData`.
    case noHealthData(file: String)
    /// An XML file with no `<HealthData` element.
    case notHealthExport(file: String)
    /// The XML ends before `</HealthData>`.
    case cutShort(file: String)
    /// Dates in iOS 8's compact form (`20150616071916-0700`).
    case iOS8Format(file: String)
    /// A date attribute that is not `yyyy-MM-dd HH:mm:ss ±HHMM`, near a byte offset of the XML.
    case unreadableDate(file: String, byteOffset: UInt64)
    /// A tag that cannot be read, near a byte offset of the XML.
    case malformedXML(file: String, byteOffset: UInt64)
    /// An NDJSON line that is not a record of the expected shape; `problem` names the shape error.
    case malformedLine(file: String, line: Int, problem: String)

    public var description: String {
        switch self {
        case let .notAnExport(file):
            "\(file) is not something Efferent reads: give it the export.zip from the Health app's \"Export All Health Data\", the export.xml inside it, or an NDJSON file of Efferent events or PulsHealth batches."
        case let .noHealthData(file):
            "\(file) holds no Health data file (an XML file whose root is HealthData): export it again from the Health app."
        case let .notHealthExport(file):
            "\(file) is XML but not an Apple Health export (it has no HealthData element): give Efferent the export.xml from the Health app's export."
        case let .cutShort(file):
            "\(file) is cut short (it ends before </HealthData>): copy it again, or export it again from the Health app."
        case let .iOS8Format(file):
            "\(file) is in the iOS 8 format, which Efferent does not read: export again from an iPhone on a current iOS."
        case let .unreadableDate(file, offset):
            "\(file) has a date Efferent cannot read near byte \(offset): export it again from the Health app."
        case let .malformedXML(file, offset):
            "\(file) has a tag Efferent cannot read near byte \(offset): export it again from the Health app."
        case let .malformedLine(file, line, problem):
            "Line \(line) of \(file) is not a record Efferent reads (\(problem)): fix or remove that line."
        }
    }
}
