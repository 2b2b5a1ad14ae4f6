/// A QR code drawn in a terminal: two rows of modules per line of half blocks, with the
/// 4-module quiet zone the standard asks for. Light modules are drawn (the block characters) and
/// dark ones left blank, so the code reads on a dark terminal; `colors` paints white on black so
/// it reads the same on a light one.
extension QRCode {
    public func terminalLines(colors: Bool) -> [String] {
        let quiet = 4
        let range = -quiet..<(size + quiet)
        var lines = [String]()
        for row in stride(from: range.lowerBound, to: range.upperBound, by: 2) {
            var line = colors ? "\u{1B}[38;5;231;48;5;16m" : ""
            for column in range {
                let top = !isDark(row: row, column: column)
                let bottom = row + 1 < range.upperBound && !isDark(row: row + 1, column: column)
                line += top && bottom ? "█" : top ? "▀" : bottom ? "▄" : " "
            }
            lines.append(line + (colors ? "\u{1B}[0m" : ""))
        }
        return lines
    }
}
