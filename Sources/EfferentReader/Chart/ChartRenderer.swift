/// Draws a `Chart` as SVG: value ticks at round numbers with the unit on the top one, time ticks
/// at round moments in each day's zone, gaps left as gaps, stacked parts in their own colours
/// with a legend, and "no data in this range" written out when nothing is there. Pure: a chart in,
/// text out — `efferent plot` saves it, the dashboard puts it in the page.
public struct ChartRenderer: Sendable {
    /// The plot area inside the SVG, in its own units: where a page maps a pointer to a bin.
    public struct Frame: Sendable, Equatable {
        public let left: Double
        public let top: Double
        public let width: Double
        public let height: Double
    }

    public var width: Int
    public var height: Int
    /// A file of its own: size, background, title and both themes' colours inside the SVG. In a
    /// page the SVG scales to its box and the page's stylesheet colours it.
    public var standalone: Bool

    public init(width: Int = 800, height: Int = 260, standalone: Bool = false) {
        self.width = max(120, width)
        self.height = max(100, height)
        self.standalone = standalone
    }

    /// The value axis the chart is drawn against.
    public func scale(for chart: Chart) -> NiceScale {
        let factor = chart.unit.factor
        let target = max(2, min(6, Int(Double(height) / 45)))
        switch chart.style {
        case .bars:
            let high = chart.bins.compactMap { bin in [bin.value, bin.max].compactMap { $0 }.max() }.max() ?? 1
            return NiceScale(low: 0, high: high * factor, target: target, zero: true)
        case .band:
            let low = chart.bins.compactMap(\.min).min(), high = chart.bins.compactMap(\.max).max()
            return NiceScale(low: (low ?? 0) * factor, high: (high ?? 1) * factor, target: target)
        case .stacked:
            let high = chart.bins.map { bin in chart.parts.reduce(0) { $0 + (bin.parts[$1.key] ?? 0) } }.max() ?? 1
            return NiceScale(low: 0, high: Swift.max(high, 1e-9) * factor, target: target, zero: true)
        }
    }

    /// Tick labels of the value axis; the top one carries the unit.
    func tickLabels(_ scale: NiceScale, unit: DisplayUnit) -> [String] {
        let ticks = scale.ticks
        return ticks.enumerated().map { index, tick in
            let number = DisplayUnit.number(tick, decimals: scale.decimals)
            return index == ticks.count - 1 && !unit.symbol.isEmpty ? number + " " + unit.symbol : number
        }
    }

    public func frame(for chart: Chart) -> Frame {
        let labels = tickLabels(scale(for: chart), unit: chart.unit)
        let left = Double(labels.map(\.count).max() ?? 1) * 6.4 + 12
        let top = standalone ? 36.0 : 10.0
        let bottom = 26.0 + (chart.style == .stacked ? 24 : 0)
        return Frame(left: left, top: top, width: Double(width) - left - 14, height: Double(height) - top - bottom)
    }

    public func svg(_ chart: Chart) -> String {
        let scale = scale(for: chart)
        let frame = frame(for: chart)
        let lower = chart.domain.lower, span = Swift.max(chart.domain.upper - lower, 1e-9)
        func x(_ value: Double) -> Double { frame.left + (value - lower) / span * frame.width }
        func y(_ value: Double) -> Double { frame.top + frame.height - scale.fraction(value * chart.unit.factor) * frame.height }

        var out = open(chart)
        // Grid and value axis.
        out += "<g class=\"c-grid\">"
        for tick in scale.ticks {
            let at = SVGText.number(frame.top + frame.height - scale.fraction(tick) * frame.height)
            out += "<line x1=\"\(SVGText.number(frame.left))\" x2=\"\(SVGText.number(frame.left + frame.width))\" y1=\"\(at)\" y2=\"\(at)\"/>"
        }
        out += "</g>\n<g class=\"c-yaxis\" text-anchor=\"end\">"
        for (tick, label) in zip(scale.ticks, tickLabels(scale, unit: chart.unit)) {
            let at = frame.top + frame.height - scale.fraction(tick) * frame.height
            out += "<text x=\"\(SVGText.number(frame.left - 6))\" y=\"\(SVGText.number(at + 4))\">\(SVGText.escape(label))</text>"
        }
        out += "</g>\n"
        out += timeAxis(chart, frame: frame, x: x)
        if chart.isEmpty {
            out += "<text class=\"c-empty\" x=\"\(SVGText.number(frame.left + frame.width / 2))\" y=\"\(SVGText.number(frame.top + frame.height / 2))\" "
                + "text-anchor=\"middle\">\(SVGText.escape(chart.emptyNote))</text>\n"
        } else {
            switch chart.style {
            case .bars: out += bars(chart, x: x, y: y)
            case .band: out += band(chart, x: x, y: y)
            case .stacked: out += stacked(chart, x: x, y: y)
            }
        }
        if chart.style == .stacked { out += legend(chart.parts, frame: frame) }
        return out + "</svg>\n"
    }

    /// The opening tag, and for a file of its own its size, colours, background and title.
    func open(_ chart: Chart) -> String {
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart chart-\(chart.style.rawValue)\" viewBox=\"0 0 \(width) \(height)\""
        if standalone { out += " width=\"\(width)\" height=\"\(height)\"" }
        out += " role=\"img\" aria-label=\"\(SVGText.escape(chart.title))\">\n"
        if standalone {
            out += "<style>\n" + ChartStyle.rules + ChartStyle.themes + "</style>\n"
            out += "<rect class=\"c-bg\" width=\"100%\" height=\"100%\"/>\n"
            out += "<text class=\"c-title\" x=\"\(width / 2)\" y=\"22\" text-anchor=\"middle\">\(SVGText.escape(chart.title))</text>\n"
        }
        return out
    }

    func timeAxis(_ chart: Chart, frame: Frame, x: (Double) -> Double) -> String {
        let base = SVGText.number(frame.top + frame.height)
        var out = "<line class=\"c-axis\" x1=\"\(SVGText.number(frame.left))\" x2=\"\(SVGText.number(frame.left + frame.width))\" y1=\"\(base)\" y2=\"\(base)\"/>\n"
        let ticks = TimeTicks.ticks(for: chart.domain, maxCount: Int(frame.width / 62))
        // A day wide enough to hold its label has it centred; otherwise the label marks where the day begins.
        var shift = 0.0
        if case let .days(_, count) = chart.domain, frame.width / Double(Swift.max(count, 1)) >= 24 { shift = 0.5 }
        out += "<g class=\"c-xaxis\" text-anchor=\"middle\">"
        for tick in ticks {
            let at = x(tick.x)
            out += "<line class=\"c-axis\" x1=\"\(SVGText.number(at))\" x2=\"\(SVGText.number(at))\" y1=\"\(base)\" y2=\"\(SVGText.number(frame.top + frame.height + 4))\"/>"
            let labelAt = Swift.min(Swift.max(x(tick.x + shift), frame.left + 14), frame.left + frame.width - 14)
            out += "<text x=\"\(SVGText.number(labelAt))\" y=\"\(SVGText.number(frame.top + frame.height + 17))\">\(SVGText.escape(tick.label))</text>"
        }
        return out + "</g>\n"
    }

    func title(_ chart: Chart, _ bin: ChartBin, _ text: String) -> String {
        standalone ? "<title>\(SVGText.escape(bin.label + ": " + text))</title>" : ""
    }

    func bars(_ chart: Chart, x: (Double) -> Double, y: (Double) -> Double) -> String {
        var out = "<g class=\"c-data\">"
        for bin in chart.bins {
            guard let value = bin.value else { continue }
            let left = x(bin.start), right = x(bin.end)
            let gap = right - left >= 4 ? (right - left) * 0.12 : 0
            let top = y(Swift.max(value, 0)), bottom = y(0)
            out += "<rect class=\"c-bar\" x=\"\(SVGText.number(left + gap))\" y=\"\(SVGText.number(top))\" "
                + "width=\"\(SVGText.number(Swift.max(right - left - 2 * gap, 0.6)))\" height=\"\(SVGText.number(Swift.max(bottom - top, 0)))\">"
                + title(chart, bin, chart.unit.text(value)) + "</rect>"
            if let low = bin.min, let high = bin.max, high > low, bin.count > 1 {
                let middle = SVGText.number((left + right) / 2)
                out += "<line class=\"c-whisker\" x1=\"\(middle)\" x2=\"\(middle)\" y1=\"\(SVGText.number(y(low)))\" y2=\"\(SVGText.number(y(high)))\"/>"
            }
        }
        return out + "</g>\n"
    }

    /// Runs of bins with readings become a band and a mean line; an empty bin ends a run, so a gap
    /// in the data is a gap in the chart. A run of one bin is a dot with its range.
    func band(_ chart: Chart, x: (Double) -> Double, y: (Double) -> Double) -> String {
        var runs = [[ChartBin]]()
        var current = [ChartBin]()
        for bin in chart.bins {
            if bin.mean == nil || bin.min == nil || bin.max == nil {
                if !current.isEmpty { runs.append(current); current = [] }
            } else {
                current.append(bin)
            }
        }
        if !current.isEmpty { runs.append(current) }
        var out = "<g class=\"c-data\">"
        for run in runs {
            let centres = run.map { SVGText.number(x(($0.start + $0.end) / 2)) }
            if run.count == 1, let bin = run.first, let mean = bin.mean, let low = bin.min, let high = bin.max {
                if high > low {
                    out += "<line class=\"c-whisker\" x1=\"\(centres[0])\" x2=\"\(centres[0])\" y1=\"\(SVGText.number(y(low)))\" y2=\"\(SVGText.number(y(high)))\"/>"
                }
                out += "<circle class=\"c-dot\" cx=\"\(centres[0])\" cy=\"\(SVGText.number(y(mean)))\" r=\"2.5\">"
                    + title(chart, bin, chart.unit.text(mean)) + "</circle>"
                continue
            }
            var band = "M"
            for (index, bin) in run.enumerated() { band += (index == 0 ? "" : "L") + centres[index] + " " + SVGText.number(y(bin.max!)) }
            for (index, bin) in run.enumerated().reversed() { band += "L" + centres[index] + " " + SVGText.number(y(bin.min!)) }
            out += "<path class=\"c-band\" d=\"\(band)Z\"/>"
            var line = "M"
            for (index, bin) in run.enumerated() { line += (index == 0 ? "" : "L") + centres[index] + " " + SVGText.number(y(bin.mean!)) }
            out += "<path class=\"c-mean\" d=\"\(line)\"/>"
        }
        return out + "</g>\n"
    }

    func stacked(_ chart: Chart, x: (Double) -> Double, y: (Double) -> Double) -> String {
        var out = "<g class=\"c-data\">"
        for bin in chart.bins where !bin.parts.isEmpty {
            let left = x(bin.start), right = x(bin.end)
            let gap = right - left >= 4 ? (right - left) * 0.12 : 0
            var base = 0.0
            for part in chart.parts {
                guard let amount = bin.parts[part.key], amount > 0 else { continue }
                let top = y(base + amount), bottom = y(base)
                out += "<rect class=\"st-\(SVGText.escape(part.key))\" x=\"\(SVGText.number(left + gap))\" y=\"\(SVGText.number(top))\" "
                    + "width=\"\(SVGText.number(Swift.max(right - left - 2 * gap, 0.6)))\" height=\"\(SVGText.number(Swift.max(bottom - top, 0)))\">"
                    + title(chart, bin, part.name + " " + chart.unit.text(amount)) + "</rect>"
                base += amount
            }
        }
        return out + "</g>\n"
    }

    /// A swatch and a name for each part, in stacking order, under the time axis.
    func legend(_ parts: [Chart.Part], frame: Frame) -> String {
        var out = "<g class=\"c-legend\">"
        var at = frame.left
        let row = frame.top + frame.height + 30
        for part in parts {
            out += "<rect class=\"st-\(SVGText.escape(part.key))\" x=\"\(SVGText.number(at))\" y=\"\(SVGText.number(row))\" width=\"10\" height=\"10\"/>"
            out += "<text x=\"\(SVGText.number(at + 14))\" y=\"\(SVGText.number(row + 9))\">\(SVGText.escape(part.name))</text>"
            at += 22 + Double(part.name.count) * 6.4
        }
        return out + "</g>\n"
    }
}
