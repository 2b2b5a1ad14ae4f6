import EfferentCore

/// One night's stages over time, a lane each (awake at the top, deep at the bottom), drawn from
/// the union of each stage's stretches across sources — the same unions `sleep` sums into hours.
public struct Hypnogram: Sendable {
    public struct Lane: Sendable, Equatable {
        public let key: String
        public let name: String
        public let intervals: [Range<Int64>]
    }

    public let title: String
    public let start: Int64
    public let end: Int64
    public let zones: ZoneTimeline
    /// Top to bottom; stages the night lacks are left out.
    public let lanes: [Lane]

    /// Lanes in the order a hypnogram reads: awake, REM, core, deep, then unspecified sleep, in bed.
    public static let order: [(key: String, name: String)] = [
        ("awake", "Awake"), ("asleepREM", "REM"), ("asleepCore", "Core"), ("asleepDeep", "Deep"),
        ("asleepUnspecified", "Unspecified"), ("inBed", "In bed"), ("unknown", "Unknown"),
    ]

    public init(title: String, start: Int64, end: Int64, zones: ZoneTimeline, stages: [String: [Range<Int64>]]) {
        self.title = title
        self.start = start
        self.end = end
        self.zones = zones
        lanes = Self.order.compactMap { key, name in
            guard let intervals = stages[key], !intervals.isEmpty else { return nil }
            return Lane(key: key, name: name, intervals: intervals)
        }
    }
}

extension ChartRenderer {
    /// A hypnogram: stage names on the left, a block for each stretch of a stage, the clock below.
    public func svg(_ hypnogram: Hypnogram) -> String {
        let chart = Chart(title: hypnogram.title, unit: DisplayUnit(symbol: "h"), style: .bars,
                          domain: .instants(start: hypnogram.start, end: max(hypnogram.end, hypnogram.start + 1), zones: hypnogram.zones),
                          bins: [], emptyNote: "No sleep recorded this night")
        let left = Double((hypnogram.lanes.map(\.name.count).max() ?? 5)) * 6.4 + 14
        let top = standalone ? 36.0 : 10.0
        let frame = Frame(left: left, top: top, width: Double(width) - left - 14, height: Double(height) - top - 26)
        let span = Double(max(hypnogram.end - hypnogram.start, 1))
        func x(_ value: Double) -> Double { frame.left + (value - Double(hypnogram.start)) / span * frame.width }
        var out = open(chart)
        out += timeAxis(chart, frame: frame, x: x)
        guard !hypnogram.lanes.isEmpty else {
            return out + "<text class=\"c-empty\" x=\"\(SVGText.number(frame.left + frame.width / 2))\" y=\"\(SVGText.number(frame.top + frame.height / 2))\" "
                + "text-anchor=\"middle\">\(SVGText.escape(chart.emptyNote))</text>\n</svg>\n"
        }
        let laneHeight = frame.height / Double(hypnogram.lanes.count)
        out += "<g class=\"c-grid\">"
        for index in 0...hypnogram.lanes.count {
            let at = SVGText.number(frame.top + Double(index) * laneHeight)
            out += "<line x1=\"\(SVGText.number(frame.left))\" x2=\"\(SVGText.number(frame.left + frame.width))\" y1=\"\(at)\" y2=\"\(at)\"/>"
        }
        out += "</g>\n<g class=\"c-yaxis\" text-anchor=\"end\">"
        for (index, lane) in hypnogram.lanes.enumerated() {
            out += "<text x=\"\(SVGText.number(frame.left - 6))\" y=\"\(SVGText.number(frame.top + (Double(index) + 0.5) * laneHeight + 4))\">"
                + SVGText.escape(lane.name) + "</text>"
        }
        out += "</g>\n<g class=\"c-data\">"
        for (index, lane) in hypnogram.lanes.enumerated() {
            let top = frame.top + Double(index) * laneHeight + laneHeight * 0.15
            for interval in lane.intervals {
                let left = x(Double(interval.lowerBound)), right = x(Double(interval.upperBound))
                out += "<rect class=\"st-\(SVGText.escape(lane.key))\" x=\"\(SVGText.number(left))\" y=\"\(SVGText.number(top))\" "
                    + "width=\"\(SVGText.number(max(right - left, 0.6)))\" height=\"\(SVGText.number(laneHeight * 0.7))\">"
                if standalone {
                    out += "<title>\(SVGText.escape("\(lane.name) \(hypnogram.zones.clock(interval.lowerBound))–\(hypnogram.zones.clock(interval.upperBound))"))</title>"
                }
                out += "</rect>"
            }
        }
        return out + "</g>\n</svg>\n"
    }
}
