import EfferentCore
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// What an export holds, counted by Foundation's own `XMLParser` and `JSONSerialization` — not
/// by the importer under test — per HealthKit type or part, with the metric decision A.9 names
/// for each (samples have no DTD, so the parser's DTD crash, apple-health-export.md §1.9, is moot).
final class ExportCensus: NSObject, XMLParserDelegate {
    private(set) var counts: [String: Int] = [:]
    private(set) var metrics: [String: String] = [:]
    /// Cumulative types' values added up, as written (the samples write them in the wire unit).
    private(set) var sums: [String: Double] = [:]
    private(set) var routeFiles: [String] = []
    private var stack: [String] = []
    private var workoutActivity: String?
    private var gpxField: String?

    static let rings = ["activeEnergyBurned", "activeEnergyBurnedGoal", "appleMoveTime", "appleMoveTimeGoal", "appleExerciseTime",
                        "appleExerciseTimeGoal", "appleStandHours", "appleStandHoursGoal"]
    static let aggregates = ["sum": "sum", "average": "average", "minimum": "minimum", "maximum": "maximum",
                             "avg": "average", "min": "minimum", "max": "maximum"]

    init(xml: URL) throws {
        super.init()
        try parse(xml)
    }

    init(pulsHealth url: URL) throws {
        super.init()
        for line in try String(contentsOf: url, encoding: .utf8).split(separator: "\n") {
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { continue }
            if let route = object["route"] as? [String: Any] {
                for point in route["points"] as? [[String: Any]] ?? [] {
                    for (field, name) in [("lat", "latitude"), ("lon", "longitude"), ("alt", "altitude"), ("speed", "speed"), ("course", "course"),
                                          ("hAcc", "horizontalAccuracy"), ("vAcc", "verticalAccuracy")] where point[field] is NSNumber {
                        add("route \(field)", "workoutRoute.\(name)")
                    }
                }
            } else if let series = object["series"] as? [String: Any], let type = series["type"] as? String {
                for _ in series["points"] as? [Any] ?? [] { add("series \(type)", HealthKitName.metric(for: type)) }
            } else if let type = object["type"] as? String, object["uuid"] != nil {
                add(type, HealthKitName.metric(for: type))
                guard let workout = object["workout"] as? [String: Any] else { continue }
                let statistics = workout["statisticsDetail"] as? [String: [String: Any]] ?? [:]
                addStatistics(statistics, prefix: "workout")
                if statistics["HKQuantityTypeIdentifierActiveEnergyBurned"]?["sum"] == nil, workout["totalEnergyKcal"] != nil {
                    add("totalEnergyKcal", "workout.activeEnergy.sum")
                }
                if workout["totalDistanceMeters"] != nil { add("totalDistanceMeters", "workout.distanceWalkingRunning.sum") }
                for _ in workout["events"] as? [Any] ?? [] { add("workout events", "workout.event") }
                for activity in workout["activities"] as? [[String: Any]] ?? [] {
                    add("workout activities", "workout.activity")
                    addStatistics(activity["statistics"] as? [String: [String: Any]] ?? [:], prefix: "workout.activity")
                }
            }
        }
    }

    /// Counts a GPX file's fixes and the fields each carries.
    func addGPX(_ url: URL) throws { try parse(url) }

    private func parse(_ url: URL) throws {
        let parser = try XMLParser(data: Data(contentsOf: url))
        parser.delegate = self
        stack = []
        guard parser.parse() else { throw CocoaError(.fileReadCorruptFile) }
    }

    private func add(_ key: String, _ metric: String, value: Double? = nil) {
        counts[key, default: 0] += 1
        metrics[key] = metric
        if let value { sums[key, default: 0] += value }
    }

    private func addStatistics(_ statistics: [String: [String: Any]], prefix: String) {
        for (type, values) in statistics {
            for (name, aggregate) in Self.aggregates where values[name] != nil {
                add("\(prefix) \(type) \(aggregate)", "\(prefix).\(HealthKitName.metric(for: type)).\(aggregate)")
            }
        }
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        defer { stack.append(name) }
        let parent = stack.last
        let inWorkout = stack.count >= 2 && stack[1] == "Workout"
        switch name {
        case "Record" where stack.count == 1:
            guard let type = attributes["type"] else { return }
            add(type, HealthKitName.metric(for: type), value: attributes["value"].flatMap(Double.init))
        case "InstantaneousBeatsPerMinute": add(name, "heartbeatSeries")
        case "Workout" where stack.count == 1:
            add("Workout", "workout")
            workoutActivity = attributes["workoutActivityType"]
            if attributes["totalDistance"] != nil { add("Workout@totalDistance", "workout.distanceWalkingRunning.sum") }
            if attributes["totalEnergyBurned"] != nil { add("Workout@totalEnergyBurned", "workout.activeEnergy.sum") }
        case "ActivitySummary" where stack.count == 1:
            for ring in Self.rings where attributes[ring] != nil { add("ActivitySummary \(ring)", "activitySummary.\(ring)") }
        case "MetadataEntry" where inWorkout && parent == "Workout":
            guard let key = attributes["key"], RecordParts.workoutMetadata[key] != nil else { return }
            add("MetadataEntry \(key)", "workout." + HealthKitName.lowerCamel(key.dropFirst(2)))
        case "WorkoutStatistics" where inWorkout:
            let prefix = parent == "WorkoutActivity" ? "workout.activity" : "workout"
            guard let type = attributes["type"] else { return }
            for aggregate in ["sum", "average", "minimum", "maximum"] where attributes[aggregate] != nil {
                add("\(prefix) \(type) \(aggregate)", "\(prefix).\(HealthKitName.metric(for: type)).\(aggregate)")
            }
        case "WorkoutEvent" where inWorkout: add(name, "workout.event")
        case "WorkoutActivity" where inWorkout: add(name, "workout.activity")
        case "Location" where inWorkout:
            add("Location latitude", "workoutRoute.latitude")
            add("Location longitude", "workoutRoute.longitude")
            for (attribute, field) in [("altitude", "altitude"), ("speed", "speed"), ("course", "course"),
                                       ("horizontalAccuracy", "horizontalAccuracy"), ("verticalAccuracy", "verticalAccuracy")] {
                // A negative speed, course or accuracy is Core Location's "invalid".
                guard let value = attributes[attribute].flatMap(Double.init), attribute == "altitude" || value >= 0 else { continue }
                add("Location \(attribute)", "workoutRoute.\(field)")
            }
        case "FileReference" where inWorkout:
            if let path = attributes["path"] { routeFiles.append(path.hasPrefix("/") ? String(path.dropFirst()) : path) }
        case "trkpt":
            add("trkpt lat", "workoutRoute.latitude")
            add("trkpt lon", "workoutRoute.longitude")
        case "ele", "speed", "course", "hAcc", "vAcc":
            if stack.contains("trkpt") { gpxField = name }
        default:
            return
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard let field = gpxField, let value = Double(string.trimmingCharacters(in: .whitespacesAndNewlines)) else { return }
        gpxField = nil
        let names = ["ele": "altitude", "speed": "speed", "course": "course", "hAcc": "horizontalAccuracy", "vAcc": "verticalAccuracy"]
        guard field == "ele" || value >= 0 else { return }
        add("trkpt \(field)", "workoutRoute.\(names[field]!)")
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        stack.removeLast()
        gpxField = nil
    }
}
