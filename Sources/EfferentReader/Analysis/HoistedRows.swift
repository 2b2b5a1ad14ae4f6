import EfferentCore

/// Rows with the fields every row shares lifted out (`sameOnEveryRow` of §10.3), so a long
/// answer does not repeat one source or one unit a thousand times.
public struct HoistedRows: Sendable, Equatable {
    /// The fields every row shares, by column name; empty for zero or one row.
    public let sameOnEveryRow: [String: JSONValue]
    public let table: AnswerTable
    /// Every column not `null` on every row, nothing hoisted: what the CLI prints, since a CSV
    /// consumer wants each field on each row.
    public let fullTable: AnswerTable

    /// Columns `null` on every row are dropped; with more than one row, a column whose value is
    /// the same on every row moves into `sameOnEveryRow`.
    public init(columns: [String], display: [ColumnDisplay] = [], rows: [[JSONValue]]) {
        var keep: [Int] = []
        var present: [Int] = []
        var same: [String: JSONValue] = [:]
        for (index, column) in columns.enumerated() {
            let values = rows.map { $0[index] }
            if values.allSatisfy({ $0 == .null }) { continue }
            present.append(index)
            if values.count > 1, values.allSatisfy({ $0 == values[0] }) {
                same[column] = values[0]
            } else {
                keep.append(index)
            }
        }
        sameOnEveryRow = same
        let shown = display.count == columns.count
        table = AnswerTable(columns: keep.map { columns[$0] }, rows: rows.map { row in keep.map { row[$0] } },
                            display: shown ? keep.map { display[$0] } : [])
        fullTable = AnswerTable(columns: present.map { columns[$0] }, rows: rows.map { row in present.map { row[$0] } },
                                display: shown ? present.map { display[$0] } : [])
    }

    /// The members `sameOnEveryRow`, `columns` and `rows` of an answer object.
    public var members: [String: JSONValue] {
        ["sameOnEveryRow": .object(sameOnEveryRow), "columns": .array(table.columns.map(JSONValue.string)),
         "rows": .array(table.rows.map(JSONValue.array))]
    }
}
