/// The apps and devices that wrote the generated person's data, and how each signs its records.
///
/// Priority for de-duplication (see `CoverageDeduplicator`): the Watch first, then the iPhone,
/// then every other app.
enum ExportSource: Int, Sendable, CaseIterable {
    case watch
    case iPhone
    case healthMate
    case health
    case myFitnessPal

    /// The name as a person reads it.
    var name: String {
        switch self {
        case .watch: "Camille’s Apple Watch"
        case .iPhone: "Camille’s iPhone"
        case .healthMate: "Health Mate"
        case .health: "Health"
        case .myFitnessPal: "MyFitnessPal"
        }
    }

    /// The `sourceName` attribute text; with the quirk, the Watch's apostrophe is `&#8217;`.
    func attribute(quirks: ExportQuirks) -> [UInt8] {
        if self == .watch && quirks.characterReferenceInSourceName {
            return Array("Camille&#8217;s Apple Watch".utf8)
        }
        return Array(name.utf8)
    }

    /// The de-duplication tier: lower wins.
    var priority: Int {
        switch self {
        case .watch: 0
        case .iPhone: 1
        default: 2
        }
    }

    /// Whether records carry an `HKDevice` description.
    var hasDevice: Bool { self == .watch || self == .iPhone }

    /// `sourceVersion` in `year`: watchOS and iOS versions move with the calendar.
    func version(year: Int) -> String {
        switch self {
        case .watch: "\(max(year - 2013, 4)).\(year % 3)"
        case .iPhone: "\(max(year - 2006, 12)).\(year % 4).1"
        case .healthMate: "6.\(year % 10).0"
        case .health: "\(max(year - 2006, 12)).\(year % 4)"
        case .myFitnessPal: "23.\(year % 12).0"
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// The `device` attribute (already escaped): an `HKDevice` description with its memory
    /// address, which changes from record to record as in real files.
    func appendDevice(to buffer: inout TextBuffer, address: UInt64, year: Int) {
        buffer.append("&lt;&lt;HKDevice: 0x")
        var digits = [UInt8](repeating: UInt8(ascii: "0"), count: 9)
        var rest = address
        for index in stride(from: 8, through: 0, by: -1) {
            digits[index] = Self.hexDigits[Int(rest & 0xF)]
            rest >>= 4
        }
        buffer.append(digits)
        switch self {
        case .watch:
            buffer.append("&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,7, software:")
        default:
            buffer.append("&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone12,1, software:")
        }
        buffer.append(Array(version(year: year).utf8))
        buffer.append("&gt;")
    }
}
