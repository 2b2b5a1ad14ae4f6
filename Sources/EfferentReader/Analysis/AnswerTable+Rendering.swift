import EfferentCore

extension AnswerTable {
    /// Columns padded to their widest cell, numbers right-aligned, two spaces between columns;
    /// an absent value prints as `-`. With `display`, headers carry units and numbers are rounded
    /// to what each measurement means.
    public func alignedText() -> String {
        let scales = display.indices.map { column in display[column].scale(of: rows.map { column < $0.count ? $0[column] : .null }) }
        let headers = display.isEmpty ? columns : columns.indices.map { display[$0].header(columns[$0], scale: scales[$0]) }
        let cells = rows.map { row in
            row.enumerated().map { column, value in
                (display.isEmpty ? AnswerTable.cellText(value) : display[column].text(value, scale: scales[column])) ?? "-"
            }
        }
        var widths = headers.map(\.count)
        for row in cells {
            for (index, cell) in row.enumerated() where index < widths.count { widths[index] = max(widths[index], cell.count) }
        }
        func line(_ values: [String], numeric: [Bool]) -> String {
            var parts: [String] = []
            for (index, value) in values.enumerated() {
                let padding = String(repeating: " ", count: max(0, widths[index] - value.count))
                parts.append(numeric[index] ? padding + value : value + padding)
            }
            var text = parts.joined(separator: "  ")
            while text.last == " " { text.removeLast() }
            return text
        }
        var out = line(headers, numeric: headers.map { _ in false }) + "\n"
        for (row, texts) in zip(rows, cells) {
            out += line(texts, numeric: row.map { $0.numberValue != nil }) + "\n"
        }
        return out
    }

    /// One compact JSON object per row, members in column order, each line ending in `\n`.
    public func ndjson() throws(JSONError) -> String {
        try collected(.ndjson)
    }

    /// RFC 4180 §2: records end in CRLF, a field holding a comma, a quote, CR or LF is quoted
    /// and its quotes doubled; an absent value is an empty field.
    public func csv() throws(JSONError) -> String {
        try collected(.csv)
    }

    /// The table as CSV or NDJSON (`table` and `json` as `alignedText`), handed to `output` about
    /// a mebibyte at a time, so a file of millions of rows is written without being held as text.
    public func write(as format: AnswerFormat, to output: (String) throws -> Void) throws {
        var piece = ""
        func flushIfFull() throws {
            if piece.utf8.count >= 1 << 20 {
                try output(piece)
                piece = ""
            }
        }
        switch format {
        case .csv:
            piece = columns.map(Self.csvField).joined(separator: ",") + "\r\n"
            for row in rows {
                piece += row.map { Self.csvField(AnswerTable.cellText($0) ?? "") }.joined(separator: ",") + "\r\n"
                try flushIfFull()
            }
        case .ndjson:
            for row in rows {
                var writer = JSONWriter()
                writer.raw(byte: UInt8(ascii: "{"))
                for (index, column) in columns.enumerated() {
                    if index > 0 { writer.raw(byte: UInt8(ascii: ",")) }
                    writer.string(column)
                    writer.raw(byte: UInt8(ascii: ":"))
                    try writer.write(index < row.count ? row[index] : .null)
                }
                writer.raw(byte: UInt8(ascii: "}"))
                piece += String(decoding: writer.bytes, as: UTF8.self) + "\n"
                try flushIfFull()
            }
        case .table, .json:
            piece = alignedText()
        }
        if !piece.isEmpty { try output(piece) }
    }

    /// The whole text; the only error is the JSON writer's (collecting into a string cannot fail).
    private func collected(_ format: AnswerFormat) throws(JSONError) -> String {
        var out = ""
        do { try write(as: format) { out += $0 } } catch let error as JSONError { throw error } catch {}
        return out
    }

    /// `csvField(text)` appended to `writer`; text with no comma, quote, CR or LF (nearly all)
    /// is copied as it is.
    static func writeCSVField(_ text: String, into writer: inout JSONWriter) {
        writer.text(needsQuoting(text) ? csvField(text) : text)
    }

    /// RFC 4180: a field holding a comma, a quote, a CR or an LF is quoted, its quotes doubled.
    /// Both are done on the bytes, not on Characters: a comma or a quote followed by a combining
    /// mark is one Character that is neither, and went out unquoted.
    static func csvField(_ text: String) -> String {
        guard needsQuoting(text) else { return text }
        var quoted: [UInt8] = [0x22]
        quoted.reserveCapacity(text.utf8.count + 8)
        for byte in text.utf8 {
            quoted.append(byte)
            if byte == 0x22 { quoted.append(0x22) }
        }
        quoted.append(0x22)
        return String(decoding: quoted, as: UTF8.self)
    }

    private static func needsQuoting(_ text: String) -> Bool {
        text.utf8.contains { $0 == 0x2C || $0 == 0x22 || $0 == 0x0D || $0 == 0x0A }
    }

    /// A cell as text: a string as itself, a number as JSON writes it, anything else as compact
    /// JSON; `nil` for `null`.
    static func cellText(_ value: JSONValue) -> String? {
        switch value {
        case .null: return nil
        case let .string(text): return text
        default: return (try? value.canonicalBytes()).map { String(decoding: $0, as: UTF8.self) } ?? ""
        }
    }
}
