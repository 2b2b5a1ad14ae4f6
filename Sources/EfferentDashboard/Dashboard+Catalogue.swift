import EfferentCore
import EfferentReader

/// The catalogue: every metric the mirror holds with its kind, unit, first and last day and event
/// count — the overview's lines, from the digest.
extension Dashboard {
    func cataloguePage() throws -> JSONValue {
        let overview = try snapshot().overview()
        return .object([
            "days": .number(Double(overview.readableDays)),
            "firstDay": overview.firstDay.map { .string($0.description) } ?? .null,
            "lastDay": overview.lastDay.map { .string($0.description) } ?? .null,
            "metrics": .array(overview.metrics.map { line in
                let page: JSONValue = switch line.metric {
                case "sleep": .string("/sleep")
                case "workout": .string("/workouts")
                case _ where MetricCatalogue.withoutValues.contains(line.metric): .null
                default: .string("/metrics/" + line.metric)
                }
                return .object([
                    "metric": .string(line.metric), "title": .string(MetricTitle.of(line.metric)),
                    "kind": .string(line.kind == .total ? "total" : "record"), "unit": line.unit.map(JSONValue.string) ?? .null,
                    "shownIn": .string(DisplayUnit.of(line.metric, unit: line.unit).symbol),
                    "firstDay": .string(line.firstDay.description), "lastDay": .string(line.lastDay.description),
                    "daysCovered": .number(Double(line.daysCovered)), "events": .number(Double(line.events)),
                    "note": line.unitNote.map(JSONValue.string) ?? .null, "page": page,
                ])
            }),
        ])
    }
}
