import EfferentCore
import EfferentQRCode

/// A sheet as a page to print: one A4 or US Letter sheet (the content fits the smaller of the two
/// with 12 mm margins), with the QR code of the sheet's text drawn as SVG, the 24 words in
/// numbered lines of four, and what to do with them. Self-contained HTML: no script, no outside
/// file, a Content-Security-Policy that allows only its own inline style.
public enum KitPage {
    public static func html(_ sheet: KitSheet) throws -> String {
        let qr = try QRCode(encoding: sheet.qrPayload, correction: .medium)
        let words = sheet.words
        var rows = ""
        for start in stride(from: 0, to: words.count, by: KitSheet.wordsPerLine) {
            rows += "<tr><th>\(start / KitSheet.wordsPerLine + 1)</th>"
            for index in start..<min(start + KitSheet.wordsPerLine, words.count) {
                rows += "<td><span class=n>\(index + 1).</span> \(escape(words[index]))</td>"
            }
            rows += "</tr>\n"
        }
        let title = sheet.isShare ? "Efferent recovery kit — sheet \(sheet.number) of \(sheet.count)" : "Efferent recovery kit"
        let who = sheet.isShare
            ? "<p class=note>This is one of \(sheet.count) sheets; any \(sheet.threshold) of them together restore the archive, and one alone reveals nothing. Keep each with a different person you trust.</p>"
            : "<p class=note>Keep this sheet where you keep important papers, away from the computer it protects. It opens nothing without its passphrase, which is not on it: keep that somewhere else.</p>"
        let passphrase = sheet.passphrase.map {
            "<p class=pass>Passphrase: <b>\(escape($0))</b> <span>(case-sensitive; printed on every sheet of this split)</span></p>"
        } ?? ""
        return """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src 'none'">
        <title>\(escape(title))</title>
        <style>
        @page { size: auto; margin: 12mm; }
        * { box-sizing: border-box; }
        html, body { margin: 0; padding: 0; }
        body { font: 10.5pt/1.35 -apple-system, "Helvetica Neue", Arial, sans-serif; color: #000; width: 186mm; }
        h1 { font-size: 17pt; margin: 0 0 2mm; }
        .meta { border-collapse: collapse; margin: 0 0 3mm; }
        .meta td { padding: 0.4mm 4mm 0.4mm 0; vertical-align: top; }
        .meta td:first-child { color: #444; }
        .mono { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; word-break: break-all; }
        .top { display: flex; gap: 6mm; align-items: flex-start; }
        .qr { width: 74mm; height: 74mm; flex: none; }
        .qr svg { width: 100%; height: 100%; display: block; }
        .words { border-collapse: collapse; margin: 3mm 0; font: 12.5pt/1.5 "DejaVu Sans Mono", Menlo, Consolas, monospace; }
        .words th { font: 8pt sans-serif; color: #666; padding-right: 3mm; text-align: right; }
        .words td { padding: 0.6mm 6mm 0.6mm 0; width: 42mm; border-bottom: 0.2mm solid #bbb; }
        .n { color: #666; font-size: 9pt; }
        .note { margin: 2mm 0; }
        .pass { font-size: 11pt; margin: 2mm 0; }
        .pass span { color: #555; font-size: 9pt; }
        ol { margin: 2mm 0 0 5mm; padding: 0; }
        li { margin: 0.8mm 0; }
        code { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 9.5pt; }
        footer { margin-top: 3mm; color: #555; font-size: 8.5pt; }
        </style>
        </head>
        <body>
        <h1>\(escape(title))</h1>
        <div class=top>
        <div class=qr>\(svg(qr))</div>
        <div>
        <table class=meta>
        <tr><td>Archive</td><td class=mono>\(sheet.bucket.rawValue)</td></tr>
        <tr><td>Service</td><td class=mono>\(escape(sheet.endpoint))</td></tr>
        <tr><td>Written</td><td>\(sheet.writtenDay)</td></tr>
        <tr><td>Sheet</td><td>\(escape(sheet.sheetLine))</td></tr>
        </table>
        \(who)
        \(passphrase)
        </div>
        </div>
        <table class=words>
        \(rows)</table>
        <h2 style="font-size:12pt;margin:3mm 0 1mm">To restore on a new machine</h2>
        <ol>
        <li>Install Efferent, then scan the QR code into a file (any phone camera app shows its text), or type the 24 words into a file, four to a line as above\(sheet.isShare ? ", with the line <code>Sheet: \(escape(sheet.sheetLine))</code>" : "").</li>
        <li>Run <code>efferent init --recover FILE\(sheet.isShare ? " FILE2" : "")</code>\(sheet.isShare ? " with \(sheet.threshold) sheets" : ""); with the words alone add <code>--server \(escape(sheet.endpoint))</code>. It asks for the passphrase.</li>
        <li>A reader instead of the writer: <code>efferent keys restore FILE --reader</code>. Check a kit any time with <code>efferent keys verify FILE</code>.</li>
        </ol>
        <footer>Efferent recovery kit, format 1. The words are BIP-39 (English list). The QR code holds the same secret and the kit's sealed record; the service keeps a sealed copy too, which neither it nor anyone opens without the passphrase.</footer>
        </body>
        </html>

        """
    }

    /// The code as one SVG path of its dark modules, with the four-module quiet zone.
    static func svg(_ code: QRCode) -> String {
        let side = code.size + 8
        var path = ""
        for row in 0..<code.size {
            var column = 0
            while column < code.size {
                guard code.isDark(row: row, column: column) else { column += 1; continue }
                var run = 1
                while column + run < code.size, code.isDark(row: row, column: column + run) { run += 1 }
                path += "M\(column + 4) \(row + 4)h\(run)v1h-\(run)z"
                column += run
            }
        }
        return "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(side) \(side)\" shape-rendering=\"crispEdges\">"
            + "<rect width=\"\(side)\" height=\"\(side)\" fill=\"#fff\"/><path fill=\"#000\" d=\"\(path)\"/></svg>"
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
