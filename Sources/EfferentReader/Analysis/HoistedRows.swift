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
