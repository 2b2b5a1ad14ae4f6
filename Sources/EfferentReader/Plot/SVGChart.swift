import EfferentCore
import Foundation

/// A chart as a standalone SVG a browser opens: daily totals as bars, readings as a line, sleep
/// as stacked stages per night. Pure: values in, text out.
public enum SVGChart {
    static let width = 960.0, height = 360.0
    static let left = 64.0, right = 16.0, top = 36.0, bottom = 44.0
    static var plotWidth: Double { width - left - right }
    static var plotHeight: Double { height - top - bottom }

    /// Bars, one per day (a missing day is a gap).
    public static func bars(title: String, unit: String, days: [CalendarDay], values: [Double?]) -> String {
        let maximum = max(values.compactMap { $0 }.max() ?? 0, 1e-9)
        let slot = plotWidth / Double(max(days.count, 1))
        var body = ""
        for (index, value) in values.enumerated() {
            guard let value, value > 0 else { continue }
            let barHeight = value / maximum * plotHeight
            body += rect(x: left + Double(index) * slot + slot * 0.1, y: top + plotHeight - barHeight, width: max(slot * 0.8, 0.5),
                         height: barHeight, fill: "#4a7fb5", title: "\(days[index]): \(number(value)) \(unit)")
        }
        return document(title: title, body: body + axes(maximum: maximum, unit: unit, first: days.first, last: days.last))
    }

    /// A line through readings over time.
    public static func line(title: String, unit: String, points: [(seconds: Int64, value: Double)]) -> String {
        guard let first = points.first?.seconds, let last = points.last?.seconds else { return document(title: title, body: "") }
        let low = points.map(\.value).min() ?? 0, high = max(points.map(\.value).max() ?? 1, low + 1e-9)
        let span = Double(max(last - first, 1))
        let path = points.enumerated().map { index, point in
            let x = left + Double(point.seconds - first) / span * plotWidth
            let y = top + plotHeight - (point.value - low) / (high - low) * plotHeight
            return (index == 0 ? "M" : "L") + String(format: "%.1f %.1f", x, y)
        }.joined(separator: " ")
        let body = "<path d=\"\(path)\" fill=\"none\" stroke=\"#c0392b\" stroke-width=\"1.2\"/>\n"
            + text(x: left - 6, y: top + 4, anchor: "end", number(high)) + text(x: left - 6, y: top + plotHeight, anchor: "end", number(low))
        return document(title: title, body: body + axes(maximum: nil, unit: unit, first: CalendarDay(unixSeconds: first),
                                                        last: CalendarDay(unixSeconds: last)))
    }

    /// Stacked stage hours per night.
    public static func sleep(title: String, nights: [CalendarDay], stages: [[String: Double]]) -> String {
        let order: [(String, String)] = [("asleepDeep", "#1f3a68"), ("asleepCore", "#3c6fb0"), ("asleepREM", "#7aa9e0"),
                                         ("asleepUnspecified", "#5b8fd0"), ("awake", "#e0a040")]
        let maximum = max(stages.map { night in order.reduce(0) { $0 + (night[$1.0] ?? 0) } }.max() ?? 0, 1e-9)
        let slot = plotWidth / Double(max(nights.count, 1))
        var body = ""
        for (index, night) in stages.enumerated() {
            var base = top + plotHeight
            for (stage, color) in order {
                guard let hours = night[stage], hours > 0 else { continue }
                let barHeight = hours / maximum * plotHeight
                base -= barHeight
                body += rect(x: left + Double(index) * slot + slot * 0.1, y: base, width: max(slot * 0.8, 0.5), height: barHeight,
                             fill: color, title: "\(nights[index]) \(stage): \(number(hours)) h")
            }
        }
        for (index, (stage, color)) in order.enumerated() {
            body += rect(x: left + Double(index) * 130, y: height - 14, width: 10, height: 10, fill: color, title: stage)
                + text(x: left + Double(index) * 130 + 14, y: height - 5, anchor: "start", stage)
        }
        return document(title: title, body: body + axes(maximum: maximum, unit: "h", first: nights.first, last: nights.last))
    }

    static func axes(maximum: Double?, unit: String, first: CalendarDay?, last: CalendarDay?) -> String {
        var out = "<line x1=\"\(left)\" y1=\"\(top + plotHeight)\" x2=\"\(left + plotWidth)\" y2=\"\(top + plotHeight)\" stroke=\"#333\"/>\n"
            + "<line x1=\"\(left)\" y1=\"\(top)\" x2=\"\(left)\" y2=\"\(top + plotHeight)\" stroke=\"#333\"/>\n"
        if let maximum { out += text(x: left - 6, y: top + 4, anchor: "end", number(maximum)) + text(x: left - 6, y: top + plotHeight, anchor: "end", "0") }
        out += text(x: left - 6, y: top - 10, anchor: "end", unit)
        if let first { out += text(x: left, y: top + plotHeight + 16, anchor: "start", first.description) }
        if let last { out += text(x: left + plotWidth, y: top + plotHeight + 16, anchor: "end", last.description) }
        return out
    }

    static func document(title: String, body: String) -> String {
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" "
            + "font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
            + text(x: width / 2, y: 20, anchor: "middle", title, size: 14) + body + "</svg>\n"
    }

    static func rect(x: Double, y: Double, width: Double, height: Double, fill: String, title: String) -> String {
        String(format: "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%@\"><title>%@</title></rect>\n",
               x, y, width, height, fill, escape(title))
    }

    static func text(x: Double, y: Double, anchor: String, _ content: String, size: Int = 11) -> String {
        String(format: "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%@\" font-size=\"%d\">%@</text>\n", x, y, anchor, size, escape(content))
    }

    static func number(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e12 ? String(Int64(value)) : String(format: "%.2f", value)
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
