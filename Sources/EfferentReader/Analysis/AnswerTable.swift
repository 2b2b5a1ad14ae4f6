import EfferentCore

/// An answer laid out as rows under named columns, what the CLI prints as a table, NDJSON or CSV.
public struct AnswerTable: Sendable, Equatable {
    public let columns: [String]
    /// Each row holds one value per column; `null` where the row has none.
    public let rows: [[JSONValue]]
    /// How the human table shows each column (units in headers, rounding); empty shows every
    /// value as it is. CSV and NDJSON never use it: they keep full precision.
    public let display: [ColumnDisplay]

    public init(columns: [String], rows: [[JSONValue]], display: [ColumnDisplay] = []) {
        self.columns = columns
        self.rows = rows
        self.display = display.count == columns.count ? display : []
    }
}

/// How the CLI prints an answer.
public enum AnswerFormat: String, CaseIterable, Sendable {
    /// Columns aligned with spaces, a header line first.
    case table
    /// One compact JSON object per row, members in column order.
    case ndjson
    /// RFC 4180: a header record, CRLF line breaks, fields quoted when they need it.
    case csv
    /// The §10.3 object, compact, keys sorted.
    case json
}

/// One answer of §10.3: a JSON object the MCP tools return and a table the CLI prints.
public protocol Answer: Sendable {
    /// The compact object of §10.3.
    var json: JSONValue { get }
    /// The answer's rows, for table, NDJSON and CSV.
    var table: AnswerTable { get }
    /// When the answer holds nothing in a range it could answer for, the sentence saying so
    /// ("no steps between 2024-01-01 and 2024-01-07"), which the CLI prints on stderr; nil otherwise.
    var emptyNote: String? { get }
    /// `json`'s canonical bytes, `annotate` having added to its members first (what a surface
    /// says beside the answer: a page's next days, a name read otherwise than given). An answer
    /// of long pages writes them straight, without the JSON value made first.
    func jsonBytes(annotating annotate: (inout [String: JSONValue]) -> Void) throws(JSONError) -> [UInt8]
}

extension Answer {
    public var emptyNote: String? { nil }

    public func jsonBytes(annotating annotate: (inout [String: JSONValue]) -> Void) throws(JSONError) -> [UInt8] {
        guard case var .object(members) = json else { return try json.canonicalBytes() }
        annotate(&members)
        return try JSONValue.object(members).canonicalBytes()
    }
}

extension Answer {
    /// The answer in one of the CLI's formats; every format but `table` ends with a line break.
    public func rendered(as format: AnswerFormat) throws(JSONError) -> String {
        switch format {
        case .json: return String(decoding: try jsonBytes { _ in }, as: UTF8.self) + "\n"
        case .table: return table.alignedText()
        case .ndjson: return try table.ndjson()
        case .csv: return try table.csv()
        }
    }
}
