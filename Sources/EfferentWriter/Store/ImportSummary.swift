import EfferentCore

/// What an import carried, per kind, and what it did not, by type and count (decision A.9): the
/// lines `efferent import` prints after the record counts. Nothing goes into a silent bucket.
public struct ImportSummary: Sendable, Equatable {
    /// One kind of record and how many were carried, with the metrics they went to.
    public struct Line: Sendable, Equatable {
        public let kind: String
        public let count: Int
        public let metrics: [String]
    }

    public let carried: [Line]
    /// Left out on purpose, by what and why.
    public let leftOut: [(what: LeftOut, count: Int)]
    /// Could not be read as the protocol needs.
    public let unreadable: [(what: LeftOut, count: Int)]

    public static func == (a: ImportSummary, b: ImportSummary) -> Bool {
        a.carried == b.carried && a.leftOut.map(\.what) == b.leftOut.map(\.what) && a.leftOut.map(\.count) == b.leftOut.map(\.count)
            && a.unreadable.map(\.what) == b.unreadable.map(\.what) && a.unreadable.map(\.count) == b.unreadable.map(\.count)
    }

    /// The kinds in the order the summary names them.
    enum Kind: String, CaseIterable {
        case totals = "samples summed into hour and day totals"
        case readings = "readings"
        case categories = "category records"
        case sleep = "sleep stretches"
        case workouts = "workouts"
        case workoutParts = "workout statistics, events, activities and measurements"
        case routes = "route fixes"
        case electrocardiograms = "ECGs"
        case voltages = "ECG voltages"
        case beats = "heartbeats"
        case rings = "activity ring figures"
        case other = "other records"

        /// The kind of a carried metric, from its name and what the catalogue says of it.
        init(metric: String, isTotal: Bool) {
            if isTotal { self = .totals; return }
            switch metric {
            case "sleep": self = .sleep
            case "workout": self = .workouts
            case RecordParts.electrocardiogram, RecordParts.ecgSamplingFrequency.metric, RecordParts.ecgAverageHeartRate.metric:
                self = .electrocardiograms
            case RecordParts.ecgVoltage.metric: self = .voltages
            case RecordParts.heartbeat.metric: self = .beats
            default:
                if metric.hasPrefix("workoutRoute.") { self = .routes }
                else if metric.hasPrefix("workout.") { self = .workoutParts }
                else if metric.hasPrefix("activitySummary.") { self = .rings }
                else if let description = HealthCatalogue.describe(metric) { self = description.unit == nil ? .categories : .readings }
                else { self = .other }
            }
        }
    }

    public init(carried byMetric: [String: (count: Int, isTotal: Bool)], notCarried: [LeftOut: Int]) {
        var groups = [Kind: (Int, [String])]()
        for (metric, entry) in byMetric {
            let kind = Kind(metric: metric, isTotal: entry.isTotal)
            // A fix is one row of each field: count fixes once, by their latitude.
            if kind == .routes, metric != RecordParts.route["latitude"]!.metric { continue }
            if kind == .electrocardiograms, metric != RecordParts.electrocardiogram { continue }
            groups[kind, default: (0, [])].0 += entry.count
            groups[kind, default: (0, [])].1.append(metric)
        }
        carried = Kind.allCases.compactMap { kind in
            groups[kind].map { Line(kind: kind.rawValue, count: $0.0, metrics: $0.1.sorted()) }
        }
        let sorted = notCarried.sorted { ($0.value, $1.key.description) > ($1.value, $0.key.description) }.map { (what: $0.key, count: $0.value) }
        leftOut = sorted.filter(\.what.isOnPurpose)
        unreadable = sorted.filter { !$0.what.isOnPurpose }
    }

    /// `carried: …`, `left out on purpose: …`, `not carried: …` — each line only when it has something.
    public var lines: [String] {
        var out = [String]()
        if !carried.isEmpty {
            out.append("carried: " + carried.map { line in
                let names = line.metrics.count <= 4 ? line.metrics.joined(separator: ", ")
                    : line.metrics.prefix(3).joined(separator: ", ") + " and \(line.metrics.count - 3) more"
                return "\(line.count) \(line.kind) (\(names))"
            }.joined(separator: "; "))
        }
        if !leftOut.isEmpty { out.append("left out on purpose: " + leftOut.map { "\($0.count) \($0.what)" }.joined(separator: "; ")) }
        if !unreadable.isEmpty { out.append("not carried: " + unreadable.map { "\($0.count) \($0.what)" }.joined(separator: "; ")) }
        return out
    }
}
