import EfferentCore
import EfferentHTTP
import EfferentReader

/// What a page's API call asks for: a chart's pixel width, a range ending on a day, a day.
/// Parameters a view does not take are refused, as the answers refuse them.
struct PageQuery {
    let query: HTTPQuery

    init(_ request: HTTPRequest, allowed: Set<String>) throws {
        query = try HTTPQuery(request.query)
        if let unknown = query.names.subtracting(allowed).sorted().first {
            throw HTTPError(400, "\(unknown.prefix(40)) is not a parameter here; this view takes \(allowed.sorted().joined(separator: ", "))")
        }
    }

    /// The chart's width in pixels (the page sends its box's), 240 to 2400; 800 when not given.
    var width: Int {
        get throws {
            guard let text = try query.value("width") else { return 800 }
            guard let width = Int(text), (240...2400).contains(width) else { throw HTTPError(400, "width must be a whole number of pixels from 240 to 2400") }
            return width
        }
    }

    func range(default fallback: ChartRange) throws -> ChartRange {
        guard let text = try query.value("range") else { return fallback }
        guard let range = ChartRange(rawValue: text.uppercased()) else {
            throw HTTPError(400, "range takes \(ChartRange.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return range
    }

    func day(_ name: String) throws -> CalendarDay? { try Dashboard.day(query, name) }
}

extension Dashboard {
    /// The range a view shows, with the `until` of the ranges before and after it (nil past today).
    static func rangeJSON(_ name: ChartRange, _ days: DayRange, today: CalendarDay) -> JSONValue {
        let span = days.dayCount
        let next = days.until < today ? min(days.until.adding(days: span), today) : nil
        return .object([
            "name": .string(name.rawValue), "since": .string(days.since.description), "until": .string(days.until.description),
            "label": .string(DayText.span(days.since, days.until)),
            "previous": name == .all ? .null : .string(days.since.previous.description),
            "next": name == .all ? .null : next.map { .string($0.description) } ?? .null,
        ])
    }

    /// What a page's range holds of `metric`, by the answers' one definition (`Coverage`), and,
    /// when it holds none, the sentence naming where the data is and the range to jump to: the
    /// same span ending on the last day with data before it, or else starting on the first after.
    static func coverageJSON(_ metric: String, _ name: ChartRange, _ days: DayRange, snapshot: DigestSnapshot) -> JSONValue {
        let coverage = Coverage(span: days, metrics: [metric], index: snapshot)
        let line = coverage.lines[0]
        var members: [String: JSONValue] = ["daysWithData": .number(Double(line.daysWithData)), "daysMissing": .number(Double(line.daysMissing))]
        if let sentence = line.sentence(span: days) {
            members["note"] = .string(sentence.prefix(1).uppercased() + sentence.dropFirst() + ".")
            let until = line.before ?? line.after.map { $0.adding(days: days.dayCount - 1) }
            if let until, name != .all {
                members["jump"] = .object(["until": .string(until.description),
                                           "label": .string(line.before != nil ? "Show the latest data" : "Show the first data")])
            }
        }
        return .object(members)
    }

    /// A renderer for a chart `width` pixels wide: a little lower on a phone.
    static func renderer(width: Int, height: Int? = nil) -> ChartRenderer {
        ChartRenderer(width: width, height: height ?? (width < 520 ? 220 : 280))
    }
}
