import EfferentCore
import EfferentTestSupport

/// Valid lines of every kind, as the app writes them, for tests that change one thing at a time.
enum Lines {
    static let workoutUUID = "9F86D081-884C-4D7A-9F2E-0B8A6C3D4E5F"
    static let quantity = #"{"uuid":"11111111-1111-4111-8111-111111111111","type":"HKQuantityTypeIdentifierHeartRate","kind":"quantity","start":1718000000123.5,"end":1718000005000,"value":62,"unit":"count/min","sourceName":"Apple Watch","device":"Apple Watch"}"#
    static let category = #"{"uuid":"22222222-2222-4222-8222-222222222222","type":"HKCategoryTypeIdentifierSleepAnalysis","kind":"category","start":1718000000000,"end":1718003600000,"category":3,"sourceName":"Apple Watch"}"#
    static let workout = #"{"uuid":"9F86D081-884C-4D7A-9F2E-0B8A6C3D4E5F","type":"HKWorkoutTypeIdentifier","kind":"workout","start":1718000000000,"end":1718003600000,"sourceName":"Apple Watch","device":"Apple Watch","workout":{"activityType":"running","duration":3600,"totalEnergyKcal":450.2,"statisticsDetail":{"HKQuantityTypeIdentifierHeartRate":{"min":98,"avg":152,"max":178}}}}"#
    static let deletion = #"{"deleted":{"uuid":"11111111-1111-4111-8111-111111111111","type":"HKQuantityTypeIdentifierHeartRate"}}"#
    static let route = #"{"route":{"workoutUUID":"9F86D081-884C-4D7A-9F2E-0B8A6C3D4E5F","points":[{"t":1718000001000.5,"lat":37.3349,"lon":-122.009,"alt":12.5}]}}"#
    static let series = #"{"series":{"workoutUUID":"9F86D081-884C-4D7A-9F2E-0B8A6C3D4E5F","type":"HKQuantityTypeIdentifierHeartRate","unit":"count/min","points":[{"t":1718000001000.5,"value":120}]}}"#
    static let aggregate = #"{"aggregate":{"type":"HKQuantityTypeIdentifierStepCount","func":"sum","intervalValue":1,"intervalUnit":"day","deviceFilter":"all","bucketStart":1718000000000,"bucketEnd":1718086400000,"value":8000,"unit":"count"}}"#
    static let summary = #"{"activitySummary":{"date":1718000000000,"localDate":"2024-06-10","moveKcal":420.5,"moveGoalKcal":600,"moveMode":0}}"#
    static let profile = #"{"profile":{"name":null,"email":null,"dateOfBirth":631152000000,"biologicalSex":"female"}}"#

    /// A batch holding `line` in its kind's slot.
    static func batch(_ kind: String, _ line: String, id: String = "B0000000-0000-4000-8000-000000000001") -> String {
        switch kind {
        case "sample": PulsBatchText.batch(id: id, samples: [line])
        case "deletion": PulsBatchText.batch(id: id, deletions: [line])
        case "route": PulsBatchText.batch(id: id, routes: [line])
        case "series": PulsBatchText.batch(id: id, series: [line])
        case "aggregate": PulsBatchText.batch(id: id, aggregates: [line])
        case "activitySummary": PulsBatchText.batch(id: id, summaries: [line])
        default: PulsBatchText.batch(id: id, profile: line)
        }
    }

    /// `line` with `edit` applied to its object (or to its wrapped payload, given the wrapper key).
    static func edited(_ line: String, in wrapper: String? = nil, _ edit: (inout [String: JSONValue]) -> Void) -> String {
        guard case var .object(members) = (try? JSONParser.parse(line)) ?? .null else { return line }
        if let wrapper, case var .object(inner) = members[wrapper] ?? .null {
            edit(&inner)
            members[wrapper] = .object(inner)
        } else {
            edit(&members)
        }
        return String(decoding: (try? JSONValue.object(members).canonicalBytes()) ?? [], as: UTF8.self)
    }

    /// The batch's header line with `edit` applied.
    static func editedHeader(_ batch: String, _ edit: (inout [String: JSONValue]) -> Void) -> String {
        var lines = batch.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines[0] = edited(lines[0], edit)
        return lines.joined(separator: "\n")
    }
}
