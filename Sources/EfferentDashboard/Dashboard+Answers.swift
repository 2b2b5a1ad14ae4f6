import EfferentCore
import EfferentHTTP
import EfferentReader

/// `/api/v1/<answer>`: the answers `efferent overview/daily/statistics/sleep/workouts/samples`
/// give, from the same functions over the same mirror, as the same JSON (§10.3) — a notebook or
/// Grafana's JSON data source reads exactly what the CLI prints with `--format json`.
extension Dashboard {
    /// The query parameters each answer takes.
    static let answerParameters: [AnswerRequest.Kind: Set<String>] = [
        .overview: ["since", "until"], .daily: ["since", "until", "metric"], .statistics: ["since", "until", "metric", "groupBy", "group_by"],
        .sleep: ["since", "until"], .workouts: ["since", "until", "activity", "offset"], .samples: ["since", "until", "metric", "limit", "offset"],
    ]

    func answer(_ kind: AnswerRequest.Kind, _ request: HTTPRequest) throws -> HTTPResponse {
        let query = try HTTPQuery(request.query)
        let asked = try Self.question(kind, query, allowed: Self.answerParameters[kind] ?? [])
        // The whole archive's overview comes from the digest, which tallies it exactly as the answer does.
        if kind == .overview, asked.since == nil, asked.until == nil { return try Self.json(try snapshot().overview().json) }
        let (question, notes) = try asked.resolvingNames(with: NameResolver(source: context.source))
        // The one rule of every surface (AnswerScope): since alone runs through today, the days are
        // cut to the archive before any is read, and a long range of days comes a page at a time.
        let (answer, scope) = try question.answer(from: context.source, today: today, pageDays: AnswerScope.pageDays)
        let body = try answer.jsonBytes { members in
            scope.annotate(&members)
            // Where a name was read otherwise than given (`Steps` as steps), the answer says so, as the CLI does on stderr.
            if !notes.isEmpty { members["nameNotes"] = .array(notes.map(JSONValue.string)) }
            // MCP's older spelling is taken here too, and said, as MCP says it.
            if query.names.contains("group_by") {
                let said = query.names.contains("groupBy") ? "group_by was left aside for groupBy, the spelling the API and MCP share."
                    : "group_by is read as groupBy, the spelling the API and MCP share."
                members["note"] = .string(members["note"]?.stringValue.map { $0 + " " + said } ?? said)
            }
        }
        return Self.json(bytes: body)
    }

    /// A question from a query: days, metrics (`metric` repeated for daily), grouping, activity, and
    /// a page (`limit`, `offset`) where the answer pages.
    /// A parameter the answer does not take is refused rather than ignored.
    static func question(_ kind: AnswerRequest.Kind, _ query: HTTPQuery, allowed: Set<String>) throws -> AnswerRequest {
        if let unknown = query.names.subtracting(allowed).sorted().first {
            throw HTTPError(400, "\(unknown.prefix(40)) is not a parameter of \(kind.rawValue); it takes \(allowed.sorted().joined(separator: ", "))")
        }
        let metrics = query.values("metric")
        if kind != .daily, metrics.count > 1 { throw HTTPError(400, "\(kind.rawValue) takes one metric") }
        var limit: Int?
        if let text = try query.value("limit") {
            guard let number = Int(text) else { throw HTTPError(400, "limit must be a whole number") }
            limit = number
        }
        var question = AnswerRequest(kind: kind, since: try day(query, "since"), until: try day(query, "until"), metrics: metrics,
                                     metric: metrics.first, groupBy: try query.value("groupBy") ?? query.value("group_by"), activity: try query.value("activity"), limit: limit)
        if let text = try query.value("offset") {
            guard let number = Int(text), (0...DayRange.Limits.maximumOffset).contains(number) else {
                throw HTTPError(400, "offset must be a whole number from 0 to \(DayRange.Limits.maximumOffset)")
            }
            question.offset = number
        }
        return question
    }

    static func day(_ query: HTTPQuery, _ name: String) throws -> CalendarDay? {
        guard let text = try query.value(name) else { return nil }
        guard let day = CalendarDay(text) else { throw HTTPError(400, "\(name) must be a real date written YYYY-MM-DD") }
        return day
    }
}
