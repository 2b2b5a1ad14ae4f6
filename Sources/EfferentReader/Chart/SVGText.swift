/// The little an SVG writer needs: text escaped for XML, coordinates to a tenth of a pixel.
enum SVGText {
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.count)
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

    /// `12.3`, `12`, `-0.5`: a coordinate to a tenth, without Foundation's formatter.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        // Held to ±10¹² px before it becomes an integer: far outside any drawing, far inside Int.
        let tenths = Int((Swift.min(Swift.max(value, -1e12), 1e12) * 10).rounded())
        let whole = tenths / 10, fraction = abs(tenths % 10)
        if fraction == 0 { return String(whole) }
        return (tenths < 0 && whole == 0 ? "-0" : String(whole)) + "." + String(fraction)
    }
}
