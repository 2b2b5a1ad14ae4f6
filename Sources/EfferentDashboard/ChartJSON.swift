import EfferentCore
import EfferentReader

/// A chart as the pages take it: the SVG the renderer drew, where its plot area lies and what
/// its domain spans (to map a pointer or a key press to a bin), and each bin's read-out — label,
/// text and the exact numbers behind it.
enum ChartJSON {
    static func make(_ chart: Chart, renderer: ChartRenderer) -> JSONValue {
        let frame = renderer.frame(for: chart)
        let (lower, upper): (Double, Double)
        switch chart.domain {
        case let .days(_, count): (lower, upper) = (0, Double(count))
        case let .instants(start, end, _): (lower, upper) = (Double(start), Double(end))
        }
        return .object([
            "style": .string(chart.style.rawValue), "title": .string(chart.title), "svg": .string(renderer.svg(chart)),
            "width": .number(Double(renderer.width)), "height": .number(Double(renderer.height)),
            "frame": .object(["left": .number(round(frame.left)), "top": .number(round(frame.top)),
                              "width": .number(round(frame.width)), "height": .number(round(frame.height))]),
            "domain": .array([.number(lower), .number(upper)]),
            "empty": .bool(chart.isEmpty),
            "unit": .string(chart.unit.symbol),
            "bins": .array(chart.bins.map { bin(chart, $0) }),
        ])
    }

    /// A bin's read-out: `Tue 3 Jun 2025: 10,234 steps`, `…: 58–131 bpm, mean 72 bpm (212 readings)`.
    static func bin(_ chart: Chart, _ bin: ChartBin) -> JSONValue {
        var members: [String: JSONValue] = ["s": .number(bin.start), "e": .number(bin.end), "label": .string(bin.label)]
        if case let .days(since, _) = chart.domain {
            members["first"] = .string(since.adding(days: Int(bin.start)).description)
            members["last"] = .string(since.adding(days: Int(bin.end) - 1).description)
        }
        guard !bin.isEmpty else { return .object(members) }
        // Exact, as the answers give them: a page's numbers can be held to `efferent daily`'s.
        func number(_ value: Double?) -> JSONValue { value.map(JSONValue.number) ?? .null }
        members["n"] = .number(Double(bin.count))
        let unit = chart.unit
        switch chart.style {
        case .bars:
            members["value"] = number(bin.value)
            var text = bin.value.map { unit.text($0) } ?? ""
            if bin.end - bin.start > 1, case .days = chart.domain, let low = bin.min, let high = bin.max {
                text = "\(text) a day on average (\(unit.text(low)) to \(unit.text(high)), \(bin.count) days)"
            }
            members["text"] = .string(text)
        case .band:
            members["min"] = number(bin.min)
            members["max"] = number(bin.max)
            members["mean"] = number(bin.mean)
            let readings = bin.count == 1 ? "1 reading" : "\(bin.count) readings"
            if let low = bin.min, let high = bin.max, let mean = bin.mean {
                members["text"] = .string(low == high ? "\(unit.text(mean)) (\(readings))"
                                          : "\(unit.text(low)) to \(unit.text(high)), mean \(unit.text(mean)) (\(readings))")
            }
        case .stacked:
            members["parts"] = .object(bin.parts.mapValues(JSONValue.number))
            members["value"] = number(bin.value)
            let stages = chart.parts.compactMap { part in bin.parts[part.key].map { "\(part.name) \(unit.text($0))" } }
            guard let value = bin.value else {
                members["text"] = .string(bin.count == 1 ? "in bed only, no time asleep recorded" : "\(bin.count) nights in bed only, no time asleep recorded")
                break
            }
            members["text"] = .string("asleep \(unit.text(value))" + (stages.isEmpty ? "" : " · " + stages.joined(separator: ", ")))
        }
        return .object(members)
    }

    static func round(_ value: Double) -> Double { (value * 10).rounded() / 10 }
}
