import EfferentCore
import EfferentHTTP
import EfferentReader

/// `/api/v1/<answer>`: the answers `efferent overview/daily/statistics/sleep/workouts/samples`
/// give, from the same functions over the same mirror, as the same JSON (§10.3) — a notebook or
/// Grafana's JSON data source reads exactly what the CLI prints with `--format json`.
extension Dashboard {
    /// The query parameters each answer takes.
    static let answerParameters: [AnswerRequest.Kind: Set<String>] = [
        .overview: ["since", "until"], .daily: ["since", "until", "metric"], .statistics: ["since", "until", "metric", "groupBy"],
        .sleep: ["since", "until"], .workouts: ["since", "until", "activity"], .samples: ["since", "until", "metric", "limit"],
    ]

    func answer(_ kind: AnswerRequest.Kind, _ request: HTTPRequest) throws -> HTTPResponse {
        let query = try HTTPQuery(request.query)
        let question = try Self.question(kind, query, allowed: Self.answerParameters[kind] ?? [])
        // The whole archive's overview comes from the digest, which tallies it exactly as the answer does.
        if kind == .overview, question.since == nil, question.until == nil { return try Self.json(try snapshot().overview().json) }
        return try Self.json(try question.answer(from: context.source, today: today).json)
    }

    /// A question from a query: days, metrics (`metric` repeated for daily), grouping, activity, limit.
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
        return AnswerRequest(kind: kind, since: try day(query, "since"), until: try day(query, "until"), metrics: metrics, metric: metrics.first,
                             groupBy: try query.value("groupBy"), activity: try query.value("activity"), limit: limit)
    }

    static func day(_ query: HTTPQuery, _ name: String) throws -> CalendarDay? {
        guard let text = try query.value(name) else { return nil }
        guard let day = CalendarDay(text) else { throw HTTPError(400, "\(name) must be a real date written YYYY-MM-DD") }
        return day
    }
}
