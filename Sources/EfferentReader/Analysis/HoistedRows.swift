import EfferentCore

/// Rows with the fields every row shares lifted out (`sameOnEveryRow` of §10.3), so a long
/// answer does not repeat one source or one unit a thousand times.
public struct HoistedRows: Sendable, Equatable {
    /// The fields every row shares, by column name; empty for zero or one row.
    public let sameOnEveryRow: [String: JSONValue]
    public let table: AnswerTable
    private let columns: [String]
    private let display: [ColumnDisplay]
    private let rows: [[JSONValue]]
    /// The columns not `null` on every row.
    private let present: [Int]

    /// Columns `null` on every row are dropped; with more than one row, a column whose value is
    /// the same on every row moves into `sameOnEveryRow`.
    public init(columns: [String], display: [ColumnDisplay] = [], rows: [[JSONValue]]) {
        var keep: [Int] = []
        var present: [Int] = []
        var same: [String: JSONValue] = [:]
        for (index, column) in columns.enumerated() {
            // Read in place: a page of a thousand rows is what `/api/v1` answers, and a copy of
            // each column was a good part of it.
            guard let firstPresent = rows.firstIndex(where: { $0[index] != .null }) else { continue }
            present.append(index)
            let first = rows[0][index]
            if rows.count > 1, firstPresent == 0, !rows.dropFirst().contains(where: { $0[index] != first }) {
                same[column] = first
            } else {
                keep.append(index)
            }
        }
        sameOnEveryRow = same
        self.columns = columns
        self.display = display.count == columns.count ? display : []
        self.rows = rows
        self.present = present
        let shown = !self.display.isEmpty
        table = AnswerTable(columns: keep.map { columns[$0] }, rows: keep.count == columns.count ? rows : rows.map { row in keep.map { row[$0] } },
                            display: shown ? keep.map { display[$0] } : [])
    }

    /// Every column not `null` on every row, nothing hoisted: what the CLI prints, since a CSV
    /// consumer wants each field on each row. Built when asked (the JSON answer never is).
    public var fullTable: AnswerTable {
        AnswerTable(columns: present.map { columns[$0] }, rows: present.count == columns.count ? rows : rows.map { row in present.map { row[$0] } },
                    display: display.isEmpty ? [] : present.map { display[$0] })
    }

    /// The members `sameOnEveryRow`, `columns` and `rows` of an answer object.
    public var members: [String: JSONValue] {
        ["sameOnEveryRow": .object(sameOnEveryRow), "columns": .array(table.columns.map(JSONValue.string)),
         "rows": .array(table.rows.map(JSONValue.array))]
    }
}

/// A cell of a row before it is JSON: an instant stays a number until it is written, so a page
/// written straight as text (`PageRows`) makes no string for it.
enum RowCell {
    case null
    case number(Double)
    case string(String)
    /// An instant shown on the wall clock of its day's zone (`LocalClock.shown`).
    case instant(Int64, zone: String?)

    /// The JSON value `HoistedRows` holds for it.
    func value(_ clock: LocalClock) -> JSONValue {
        switch self {
        case .null: .null
        case let .number(n): .number(n)
        case let .string(s): .string(s)
        case let .instant(seconds, zone): .string(clock.shown(seconds, in: zone))
        }
    }
}

/// The rows `HoistedRows` makes of the same cells, decided and written straight as JSON text:
/// the same columns dropped, the same ones moved into `sameOnEveryRow`, the same bytes, without a
/// JSON value made per cell (what a page of a thousand rows spent most of its time on).
struct PageRows {
    let sameOnEveryRow: [String: JSONValue]
    /// The names of the columns the rows keep, in order.
    let columns: [String]
    private let kept: [Int]
    private let rows: [[RowCell]]
    /// Each instant's text, and per column (none for a column without instants) each row's span of it.
    private let texts: [UInt8]
    private let spans: [[Range<Int>]]

    init(columns names: [String], rows: [[RowCell]], clock: LocalClock) {
        var texts = [UInt8](), spans = [[Range<Int>]](repeating: [], count: names.count)
        texts.reserveCapacity(rows.count * 50)
        for (row, cells) in rows.enumerated() {
            for (column, cell) in cells.enumerated() {
                guard case let .instant(seconds, zone) = cell else { continue }
                if spans[column].isEmpty { spans[column] = Array(repeating: 0..<0, count: rows.count) }
                let start = texts.count
                clock.appendShown(seconds, in: zone, to: &texts)
                spans[column][row] = start..<texts.count
            }
        }
        self.texts = texts
        self.spans = spans
        self.rows = rows
        // As `HoistedRows.init`: a column null on every row is dropped; with more than one row, a
        // column present on the first row and the same on every row moves into `sameOnEveryRow`.
        var kept = [Int](), same = [String: JSONValue]()
        for (column, name) in names.enumerated() {
            guard let firstPresent = rows.firstIndex(where: { if case .null = $0[column] { false } else { true } }) else { continue }
            if rows.count > 1, firstPresent == 0, !rows.indices.dropFirst().contains(where: { !Self.equal(rows, texts, spans[column], column, 0, $0) }) {
                same[name] = rows[0][column].value(clock)
            } else {
                kept.append(column)
            }
        }
        self.kept = kept
        sameOnEveryRow = same
        columns = kept.map { names[$0] }
    }

    /// Whether two rows' cells in `column` are equal as their JSON values are (numbers as
    /// Doubles, strings as Swift strings, instants by their text).
    private static func equal(_ rows: [[RowCell]], _ texts: [UInt8], _ spans: [Range<Int>], _ column: Int, _ a: Int, _ b: Int) -> Bool {
        switch (rows[a][column], rows[b][column]) {
        case (.null, .null): true
        case let (.number(x), .number(y)): x == y
        case let (.string(x), .string(y)): x == y
        case (.instant, .instant): texts[spans[a]] == texts[spans[b]]
        case let (.instant, .string(y)): String(decoding: texts[spans[a]], as: UTF8.self) == y
        case let (.string(x), .instant): x == String(decoding: texts[spans[b]], as: UTF8.self)
        default: false
        }
    }

    /// The members `sameOnEveryRow` and `columns` of an answer object (`rows` is written by `writeRows`).
    var members: [String: JSONValue] {
        ["sameOnEveryRow": .object(sameOnEveryRow), "columns": .array(columns.map(JSONValue.string))]
    }

    /// The value of `rows`: each row's kept cells.
    func writeRows(into writer: inout JSONWriter) throws(JSONError) {
        writer.raw(byte: UInt8(ascii: "["))
        for (row, cells) in rows.enumerated() {
            if row > 0 { writer.raw(byte: UInt8(ascii: ",")) }
            writer.raw(byte: UInt8(ascii: "["))
            for (position, column) in kept.enumerated() {
                if position > 0 { writer.raw(byte: UInt8(ascii: ",")) }
                switch cells[column] {
                case .null: writer.raw("null")
                case let .number(n): try writer.number(n)
                case let .string(s): writer.string(s)
                case .instant:
                    // ISO text needs no escape.
                    writer.raw(byte: UInt8(ascii: "\""))
                    writer.raw(contentsOf: texts[spans[column][row]])
                    writer.raw(byte: UInt8(ascii: "\""))
                }
            }
            writer.raw(byte: UInt8(ascii: "]"))
        }
        writer.raw(byte: UInt8(ascii: "]"))
    }
}
