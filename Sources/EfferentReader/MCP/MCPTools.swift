import EfferentCore

/// The local MCP tools (§10.3): their schemas, and their arguments read into an `AnswerRequest`.
enum MCPTools {
    /// Days one answer of `daily`, `sleep` or `statistics` by day covers; a longer range is paged
    /// (the answer names the next page's `since` and `until`): `AnswerScope`'s page, as the API's.
    static let dayWindow = AnswerScope.pageDays

    /// What a tool does to the world (MCP `ToolAnnotations`): every reading tool only reads the
    /// mirror, and asking twice gives the same answer.
    static func annotations(readOnly: Bool, destructive: Bool = false, idempotent: Bool = true, openWorld: Bool = false) -> JSONValue {
        .object(["readOnlyHint": .bool(readOnly), "destructiveHint": .bool(destructive), "idempotentHint": .bool(idempotent),
                 "openWorldHint": .bool(openWorld)])
    }

    /// The tools, their name arguments listing what the archive holds: `numeric` the metrics with
    /// numbers (daily, statistics), `metrics` every metric (samples), `activities` the workouts'.
    /// An empty list leaves the argument open (a mirror not synced yet holds nothing to list).
    static func list(numeric: [String], metrics: [String], activities: [String]) -> [JSONValue] {
        let day: JSONValue = .object(["type": .string("string"),
                                      "description": .string("YYYY-MM-DD, a local day of the archive; since alone runs through today, and days outside the archive are left out (the answer's note says so)")])
        func tool(_ name: String, _ description: String, _ properties: [String: JSONValue] = [:], required: [String] = []) -> JSONValue {
            var schema: [String: JSONValue] = ["type": .string("object"), "properties": .object(properties)]
            if !required.isEmpty { schema["required"] = .array(required.map { .string($0) }) }
            return .object(["name": .string(name), "description": .string(description), "inputSchema": .object(schema),
                            "outputSchema": outputSchema(name),
                            "annotations": name == "phone_data_sync" ? annotations(readOnly: false, openWorld: true) : annotations(readOnly: true)])
        }
        func names(_ list: [String], _ description: String) -> JSONValue {
            var schema: [String: JSONValue] = ["type": .string("string"), "description": .string(description)]
            if !list.isEmpty { schema["enum"] = .array(list.map(JSONValue.string)) }
            return .object(schema)
        }
        let range: [String: JSONValue] = ["since": day, "until": day]
        func grouping(_ description: String) -> JSONValue {
            .object(["type": .string("string"), "enum": .array(["day", "week", "month", "year"].map { .string($0) }), "description": .string(description)])
        }
        let period: JSONValue = .object(["type": .string("object"), "required": .array([.string("since"), .string("until")]),
                                         "properties": .object(["since": day, "until": day])])
        let offset: JSONValue = .object(["type": .string("integer"), "minimum": .number(0), "maximum": .number(Double(DayRange.Limits.maximumOffset)),
                                         "description": .string("Rows to skip: the next page's offset, as an answer's next.offset gives it")])
        return [
            tool("phone_data_overview", "What the archive holds: every metric, kind, unit, days covered and events. Call this first."),
            tool("phone_data_daily", "Per day: totals summed (steps, activeEnergy, …), readings as min, mean and max (heartRate, bloodPressureSystolic, …); default the last 90 days, since alone through today; a longer range comes \(dayWindow) days a page, with next.since and next.until.",
                 range.merging(["metrics": .object(["type": .string("array"), "items": names(numeric, "a metric the archive holds")])]) { a, _ in a }),
            tool("phone_data_statistics", "Distribution per day/week/month/year of a total or of readings (heartRate, bodyMass, …); sum only for totals.",
                 range.merging(["metric": names(numeric, "a metric the archive holds"), "groupBy": grouping("day, week, month (the default) or year"),
                                "group_by": grouping("the older spelling of groupBy, still accepted (the answer's note says so)")]) { a, _ in a },
                 required: ["metric"]),
            tool("phone_data_sleep", "Nights stitched from every source (stage unions, never sums), named by their evening; naps apart; \(dayWindow) nights a page.", range),
            tool("phone_data_workouts", "Workouts with activity, minutes, source, distance, energy, heart rate and route fixes; counts per activity; 1000 rows a page.",
                 range.merging(["activity": names(activities, "a workout activity the archive holds"), "offset": offset]) { a, _ in a }),
            tool("phone_data_samples", "The events of one metric as they are; default the last 7 days, 500 rows a page (at most 5000), matched and returned said, next.offset for the rest.",
                 range.merging(["metric": names(metrics, "a metric the archive holds"), "offset": offset,
                                "limit": .object(["type": .string("integer"), "minimum": .number(1), "maximum": .number(5000)])]) { a, _ in a },
                 required: ["metric"]),
            tool("phone_data_latest", "Each metric's latest value with its day, time, source and unit (a total: the last day's, as daily gives it; a reading: the last one); default the headline metrics the archive holds.",
                 ["metrics": .object(["type": .string("array"), "items": names(metrics, "a metric the archive holds")])]),
            tool("phone_data_rings", "Apple's activity rings per day: move, exercise, stand (and move time) with their goals and whether each closed; counts of closed days; default the last 7 days.",
                 range),
            tool("phone_data_state_of_mind", "Each State of Mind logged (iOS 18): valence from −1 very unpleasant to +1 very pleasant, momentary emotion or daily mood, its classification; default the last 30 days.",
                 range),
            tool("phone_data_workout", "One workout in detail: its figures, heart rate during it (≤ 300 points), its route as coordinates (≤ 500) with the distance covered and a split per kilometre.",
                 ["start": .object(["type": .string("string"), "description": .string("the workout's start as phone_data_workouts lists it (2025-06-01T07:00:00+02:00), or Unix seconds")])],
                 required: ["start"]),
            tool("phone_data_compare", "One metric over two periods side by side, with the change: a total's days, sum and mean a day; a reading's count, mean, min and max; workouts (optionally one activity) their count, minutes and distance. E.g. runs this month against last month.",
                 ["metric": names(numeric.isEmpty ? [] : (["workouts"] + numeric), "a metric the archive holds, or workouts"),
                  "activity": names(activities, "with metric workouts: one activity"), "first": period, "second": period],
                 required: ["metric", "first", "second"]),
            tool("phone_data_sync", "Bring the local copy up to date now with a full walk of the archive's listing."),
        ]
    }

    /// Offered when the profile holds an editor key (§8).
    static let writeTools: [JSONValue] = {
        let item: JSONValue = .object([
            "type": .string("object"),
            "properties": .object([
                "op": .object(["type": .string("string"), "enum": .array([.string("put"), .string("delete")])]),
                "id": .object(["type": .string("string"), "description": .string("Your handle for the entry, [A-Za-z0-9._:-]{1,120}, e.g. agent:meal:2026-09-07:lunch; a put under the same id replaces it")]),
                "metric": .object(["type": .string("string"), "enum": .array(WritableMetric.allCases.map { .string($0.rawValue) })]),
                "start": .object(["type": .string("integer"), "description": .string("Unix seconds")]),
                "end": .object(["type": .string("integer"), "description": .string("Unix seconds, not in the future")]),
                "value": .object(["type": .string("number")]),
                "unit": .object(["type": .string("string"), "description": .string("exactly: dietaryEnergy kcal; dietaryProtein, dietaryCarbohydrates, dietaryFat g; dietaryWater mL; bodyMass kg; none for sleep")]),
                "stage": .object(["type": .string("string"), "enum": .array(WritableMetric.sleepStages.sorted().map { .string($0) })]),
            ]),
            "required": .array([.string("op"), .string("id")]),
        ])
        return [
            .object(["name": .string("phone_data_write"),
                     // A write: it queues an edit each call, and a put or delete replaces or removes an agent's earlier entry.
                     "annotations": annotations(readOnly: false, destructive: true, idempotent: false, openWorld: true),
                     "outputSchema": outputSchema("phone_data_write"),
                     "description": .string("Log entries (meals, water, weight, sleep) into the owner's Health: sealed so only the owner's writer reads them, applied on its next push, reversible by the owner."),
                     "inputSchema": .object(["type": .string("object"), "required": .array([.string("items")]),
                                             "properties": .object(["items": .object(["type": .string("array"), "items": item,
                                                                                       "minItems": .number(1), "maxItems": .number(500)])])])]),
            .object(["name": .string("phone_data_edits"),
                     "annotations": annotations(readOnly: true, openWorld: true),
                     "outputSchema": outputSchema("phone_data_edits"),
                     "description": .string("Edits sent and what the writer answered: pending, applied, or each failed item's index, id and word."),
                     "inputSchema": .object(["type": .string("object"),
                                             "properties": .object(["all": .object(["type": .string("boolean"), "description": .string("include answered edits")])])])]),
        ]
    }()

    /// The day under `key`, nil when absent; refused when it is no real date.
    static func day(_ key: String, in arguments: [String: JSONValue]) throws -> CalendarDay? {
        guard let value = arguments[key], !value.isNull else { return nil }
        guard let text = value.stringValue, let day = CalendarDay(text) else { throw MCPError.badDay(key) }
        return day
    }

    static func request(_ name: String, _ arguments: [String: JSONValue]) throws -> AnswerRequest {
        let since = try day("since", in: arguments), until = try day("until", in: arguments)
        switch name {
        case "phone_data_overview": return AnswerRequest(kind: .overview, since: since, until: until)
        case "phone_data_daily":
            let metrics = arguments["metrics"]?.arrayValue?.compactMap(\.stringValue) ?? []
            return AnswerRequest(kind: .daily, since: since, until: until, metrics: metrics)
        case "phone_data_statistics":
            return AnswerRequest(kind: .statistics, since: since, until: until, metric: arguments["metric"]?.stringValue,
                                 groupBy: (arguments["groupBy"] ?? arguments["group_by"])?.stringValue)
        case "phone_data_sleep": return AnswerRequest(kind: .sleep, since: since, until: until)
        case "phone_data_workouts":
            var request = AnswerRequest(kind: .workouts, since: since, until: until, activity: arguments["activity"]?.stringValue)
            request.offset = arguments["offset"]?.integerValue.map(Int.init) ?? 0
            return request
        case "phone_data_samples":
            var request = AnswerRequest(kind: .samples, since: since, until: until, metric: arguments["metric"]?.stringValue,
                                        limit: arguments["limit"]?.integerValue.map(Int.init))
            request.offset = arguments["offset"]?.integerValue.map(Int.init) ?? 0
            return request
        default: throw MCPError.unknownTool(name)
        }
    }
}

extension MCPTools {
    /// Arguments spelt the older way, read as the one spelling the API and MCP share, each said
    /// in a sentence the answer's note carries.
    static func spellingNotes(_ name: String, _ arguments: [String: JSONValue]) -> [String] {
        guard name == "phone_data_statistics", arguments["group_by"] != nil else { return [] }
        return arguments["groupBy"] == nil ? ["group_by is read as groupBy, the spelling the API and MCP share."]
            : ["group_by was left aside for groupBy, the spelling the API and MCP share."]
    }
}

enum MCPError: Error, CustomStringConvertible {
    case badDay(String)
    case unknownTool(String)
    case noItems

    var description: String {
        switch self {
        case .noItems: "phone_data_write needs items: a list of §8 items."
        case let .badDay(key): "\(key) must be a real date written YYYY-MM-DD."
        case let .unknownTool(name): "\(name.prefix(60)) is not a tool of this server; tools/list names them."
        }
    }
}
