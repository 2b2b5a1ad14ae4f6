import EfferentCore

/// Each tool's `outputSchema` (MCP 2025-06-18, structured tool output): the members its answer
/// always has, and those any answer may add — `note`, `coverage`, `next`, `warning`. A result
/// carries the same object as `structuredContent` and as JSON text, for clients of either kind.
extension MCPTools {
    /// The members each tool's answer always has.
    static let outputMembers: [String: [String: String]] = [
        "phone_data_overview": ["metrics": "array", "readable": "object", "writable": "object", "howToRead": "array"],
        "phone_data_daily": ["columns": "array", "rows": "array", "units": "object"],
        "phone_data_statistics": ["metric": "string", "groupBy": "string", "over": "string", "rows": "array"],
        "phone_data_sleep": ["rows": "array", "nightsRecorded": "integer", "nightsInBedOnly": "integer", "nightsInRange": "integer",
                             "asleepHours": "object"],
        "phone_data_workouts": ["columns": "array", "rows": "array", "total": "integer", "byActivity": "object"],
        "phone_data_samples": ["metric": "string", "matched": "integer", "returned": "integer", "rows": "array"],
        "phone_data_latest": ["latest": "array", "today": "string"],
        "phone_data_rings": ["rows": "array", "daysWithRings": "integer", "closedDays": "object"],
        "phone_data_state_of_mind": ["rows": "array", "count": "integer"],
        "phone_data_workout": ["start": "string", "end": "string", "day": "string", "activity": "string", "minutes": "number",
                               "heartRate": "object"],
        "phone_data_compare": ["metric": "string", "first": "object", "second": "object", "change": "object"],
        "phone_data_sync": ["copied": "integer"],
        "phone_data_write": ["name": "string", "items": "integer", "status": "string"],
        "phone_data_edits": ["edits": "array"],
    ]

    /// What the archive holds of the question's metrics in the days answered (`Coverage.json`).
    static let coverageSchema: JSONValue = {
        let day: JSONValue = .object(["type": .array([.string("string"), .string("null")])])
        let count: JSONValue = .object(["type": .string("integer")])
        return .object([
            "type": .string("object"),
            "description": .string("What the archive holds of each metric asked for in the days answered; when they hold none, note says where its data is."),
            "required": .array(["days", "metrics"].map(JSONValue.string)),
            "properties": .object([
                "since": day, "until": day, "days": count, "note": .object(["type": .string("string")]),
                "metrics": .object(["type": .string("object"), "additionalProperties": .object([
                    "type": .string("object"),
                    "required": .array(["daysWithData", "daysMissing", "firstDay", "lastDay", "dataBefore", "dataAfter"].map(JSONValue.string)),
                    "properties": .object(["daysWithData": count, "daysMissing": count, "firstDay": day, "lastDay": day,
                                           "dataBefore": day, "dataAfter": day, "note": .object(["type": .string("string")])]),
                ])]),
            ]),
        ])
    }()

    static func outputSchema(_ tool: String) -> JSONValue {
        let members = outputMembers[tool] ?? [:]
        var properties: [String: JSONValue] = [
            "note": .object(["type": .string("string"), "description": .string("What a reader of the answer must know: a cut, a page, days without data.")]),
            "warning": .object(["type": .string("string"), "description": .string("The archive could not be reached; the answer comes from the mirror as it was.")]),
            "next": .object(["type": .string("object"), "description": .string("Where the rest of the answer starts: since and until, or offset.")]),
            "coverage": coverageSchema,
        ]
        for (name, type) in members { properties[name] = .object(["type": .string(type)]) }
        var schema: [String: JSONValue] = ["type": .string("object"), "properties": .object(properties)]
        if !members.isEmpty { schema["required"] = .array(members.keys.sorted().map(JSONValue.string)) }
        return .object(schema)
    }
}
