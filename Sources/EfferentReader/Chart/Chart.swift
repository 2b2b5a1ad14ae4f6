import EfferentCore

/// A chart as values, before it is drawn: what `efferent plot` writes as an SVG file and what the
/// dashboard draws in the page — one model, one renderer (`ChartRenderer`).
///
/// The bins have already been brought down to at most one per pixel column; each keeps the
/// minimum and maximum of what it holds, so a spike survives the downsampling.
public struct Chart: Sendable {
    public enum Style: String, Sendable {
        /// A bar per bin from zero: totals (a day's steps, an hour's energy).
        case bars
        /// A band from each bin's minimum to its maximum with a line through the means: readings.
        case band
        /// Parts stacked per bin, each its own colour, with a legend: a night's sleep stages.
        case stacked
    }

    /// What the horizontal axis runs over.
    public enum Domain: Sendable {
        /// Local days: one unit a day from `since`, `count` days, so a 23-hour day is as wide as any.
        case days(since: CalendarDay, count: Int)
        /// Instants in seconds, `[start, end)`, labelled in each day's own zone.
        case instants(start: Int64, end: Int64, zones: ZoneTimeline)

        var lower: Double {
            switch self {
            case .days: 0
            case let .instants(start, _, _): Double(start)
            }
        }

        var upper: Double {
            switch self {
            case let .days(_, count): Double(count)
            case let .instants(_, end, _): Double(end)
            }
        }
    }

    /// One stacked part: its key (a stage, which names its colour) and its name in the legend.
    public struct Part: Sendable, Equatable {
        public let key: String
        public let name: String
        public init(key: String, name: String) {
            self.key = key
            self.name = name
        }
    }

    public var title: String
    public var unit: DisplayUnit
    public var style: Style
    public var domain: Domain
    public var bins: [ChartBin]
    /// The parts of a stacked chart, bottom first.
    public var parts: [Part]
    /// What the chart says when no bin holds anything.
    public var emptyNote: String

    public init(title: String, unit: DisplayUnit, style: Style, domain: Domain, bins: [ChartBin], parts: [Part] = [],
                emptyNote: String = "No data in this range") {
        self.title = title
        self.unit = unit
        self.style = style
        self.domain = domain
        self.bins = bins
        self.parts = parts
        self.emptyNote = emptyNote
    }

    /// Whether no bin holds anything: the chart then draws its `emptyNote` rather than an empty frame.
    public var isEmpty: Bool { bins.allSatisfy(\.isEmpty) }
}

/// One bin of a chart: where it runs on the domain, how it reads out, and what it holds (values
/// in the metric's wire unit; the renderer applies the display unit).
public struct ChartBin: Sendable, Equatable {
    /// Where the bin runs: day indices from the domain's first day, or seconds.
    public let start: Double
    public let end: Double
    /// How the bin reads out: `Tue 3 Jun 2025`, `3–9 Jun 2025`, `Tue 3 Jun, 14:00–14:15`.
    public let label: String
    /// Readings, or days with a total, the bin holds.
    public var count: Int
    public var min: Double?
    public var max: Double?
    public var mean: Double?
    /// A bar's height: the total, or for a bin of several days the mean daily total.
    public var value: Double?
    /// A stacked bin's parts by key.
    public var parts: [String: Double]

    public init(start: Double, end: Double, label: String, count: Int = 0, min: Double? = nil, max: Double? = nil, mean: Double? = nil,
                value: Double? = nil, parts: [String: Double] = [:]) {
        self.start = start
        self.end = end
        self.label = label
        self.count = count
        self.min = min
        self.max = max
        self.mean = mean
        self.value = value
        self.parts = parts
    }

    public var isEmpty: Bool { count == 0 && value == nil && parts.isEmpty }
}
