import EfferentCompression

/// Why an event could not be built, or a day body could not be read, inflated or expanded
/// (protocol §3). Descriptions name fields and layouts, never a value from the body.
public enum DayBodyError: Error, Equatable, Sendable, CustomStringConvertible {
    // Building an event (§3.1).
    case emptyMetric
    case totalWithoutBucket
    case recordWithBucket
    case endBeforeStart
    case instantOutOfRange
    case nonFiniteNumber

    // Reading a body (§3.2, §3.3).
    case notUTF8
    case malformedJSON(JSONError)
    /// `v` of a columnar body is not 2; carries the JSON text of `v` (or `none`).
    case unsupportedLayout(String)
    case missingField(String)
    case wrongType(field: String, expected: String)
    /// A series field outside the closed set of §3.1.
    case unknownField(String)
    /// A top-level member other than `series`, `tz` and `v` (decision A.4).
    case unknownTopLevelField(String)
    case unknownKind
    case unknownBucket
    case columnLengthMismatch(String)
    case notInteger(String)
    /// A line of a layout-1 day that is not a JSON object, so it cannot take a `day` key.
    case lineNotObject(line: Int)

    // Compression (§2.1, decision A.5).
    case deflate(DeflateError)

    public var description: String {
        switch self {
        case .emptyMetric:
            "An event needs a non-empty metric name; give it one from the catalogue of protocol section 4."
        case .totalWithoutBucket:
            "A total (k \"agg\") needs a bucket of \"hour\" or \"day\"; give it one."
        case .recordWithBucket:
            "A record (k \"hk\") carries no bucket; drop it or make the event a total."
        case .endBeforeStart:
            "An event ends before it starts; swap or correct its instants."
        case .instantOutOfRange:
            "An event's instant lies outside the years 0001 to 9999 that a day body can spell; correct it."
        case .nonFiniteNumber:
            "An event's value or duration is infinite or not a number, which JSON cannot carry; drop or correct it."
        case .notUTF8:
            "The day body is not valid UTF-8, so it is damaged or not a day body."
        case let .malformedJSON(error):
            "The day body is not valid JSON (\(error.description.dropLast())), so it is damaged or was cut short."
        case let .unsupportedLayout(v):
            // The exact sentence of protocol §3.2 rule 1, which other readers print too.
            "this day is written in layout \(v.prefix(20)), and this reader speaks 2"
        case let .missingField(field):
            "The day body lacks its \"\(field)\" field, so it is damaged or not layout 2."
        case let .wrongType(field, expected):
            "The day body's \"\(field)\" field should be \(expected); the body is damaged or was written by a faulty packer."
        case let .unknownField(field):
            "The day body has no column for \"\(field.prefix(40))\"; it was written by a packer this reader does not know."
        case let .unknownTopLevelField(field):
            "The day body has a top-level field \"\(field.prefix(40))\" this reader does not know; update the reader."
        case .unknownKind:
            "A series of the day body has a kind other than \"agg\" or \"hk\"; the body is damaged or newer than this reader."
        case .unknownBucket:
            "A series of the day body has a bucket other than \"hour\" or \"day\"; the body is damaged or newer than this reader."
        case let .columnLengthMismatch(field):
            "A series of the day body has a \"\(field)\" column whose length differs from \"t\"; the body is damaged."
        case let .notInteger(field):
            "The day body's \"\(field)\" field must hold whole seconds; the body is damaged or written by a faulty packer."
        case let .lineNotObject(line):
            "Line \(line) of the layout-1 day is not a JSON object, so the body is damaged or not a day."
        case let .deflate(error):
            error.description
        }
    }
}
