import EfferentCore

/// The days an answer covers, decided by one rule for the CLI, the dashboard's JSON API and the
/// MCP tools (protocol.md, decision A.13), so none of them answers a window nobody asked for:
///
/// 1. What was left out is filled in: `since` alone runs through today; `until` alone, or
///    neither, takes the answer's usual window ending there (`DayRange.Limits`).
/// 2. The range is cut to the days the archive holds — its first day through its last or today,
///    whichever is later — before a day is read, and the answer says so: a question about
///    0001-01-01 … 9999-12-31 reads the archive's decade, never ten thousand years of empty rows.
/// 3. A surface that pages (JSON answers of daily, sleep and statistics by day) cuts it to a page
///    of `pageDays` and says where the next page starts; a file or the terminal gets every day.
public struct AnswerScope: Sendable, Equatable {
    /// The days asked for once the defaults are filled in; nil for an overview of every day.
    public let asked: DayRange?
    /// The days answered: `asked` cut to the archive and to a page (empty when they share no day).
    public let range: DayRange?
    /// The rest of `asked` after this page, when the answer is a part.
    public let next: DayRange?
    /// Sentences saying how `range` differs from `asked`, for stderr or the JSON's `note`.
    public let notes: [String]
    /// What the archive holds of the question's metrics in `range`, and where their data is when
    /// it holds none (`Coverage`); set by `AnswerRequest.answer`, nil for an overview.
    public internal(set) var coverage: Coverage?

    /// `notes`, then the sentence saying where the data is for each metric `range` holds none of:
    /// what stderr or the JSON's `note` says.
    public var said: [String] {
        guard let coverage, !coverage.sentences.isEmpty else { return notes }
        return notes + [coverage.sentences.joined(separator: "; ") + "."]
    }

    /// Days a JSON answer of daily, sleep or statistics by day covers at most (the MCP tools' page).
    public static let pageDays = 400

    /// Applies the rule. `held` are the days the source holds (ascending); `pageDays` is given by
    /// the surfaces that page; `unusable` are held days that cannot be read now (ascending), named
    /// when the answer covers any of them, so a missing day is never taken for an empty one.
    public init(_ request: AnswerRequest, today: CalendarDay, held: [CalendarDay], pageDays: Int? = nil, unusable: [CalendarDay] = []) throws {
        guard let asked = try request.range(today: today) else {
            self.asked = nil
            range = nil
            next = nil
            notes = Self.unusableNote(unusable).map { [$0] } ?? []
            return
        }
        self.asked = asked
        var notes = [String]()
        guard let first = held.first, let last = held.last else {
            range = DayRange.nothing(from: asked.since)
            next = nil
            notes.append("the mirror holds no day yet, so nothing was read (efferent sync fetches the archive).")
            self.notes = notes
            return
        }
        let end = max(last, today)
        let since = max(asked.since, first), until = min(asked.until, end)
        var cut: DayRange
        if since > until {
            cut = DayRange.nothing(from: asked.since)
            notes.append("the archive holds \(first) … \(end), none of \(asked.since) … \(asked.until), so nothing was read.")
        } else {
            cut = try DayRange(since: since, until: until)
            if cut != asked {
                notes.append("cut to \(since) … \(until), the days the archive holds (\(first) … \(end)); \(asked.since) … \(asked.until) was asked.")
            }
        }
        var rest: DayRange?
        if let pageDays, request.pages, cut.dayCount > pageDays {
            let page = try DayRange(since: cut.since, until: cut.since.adding(days: pageDays - 1))
            // The next page starts at the next day the archive holds: a stray reading decades
            // before the rest (the writer leaves such gaps unfilled, A.12) costs one page, not one
            // for every 400 days of nothing.
            if let resume = Self.firstHeld(after: page.until, in: held), resume <= cut.until {
                let next = try DayRange(since: resume, until: cut.until)
                rest = next
                let skipped = resume == page.until.next ? "" : " (the archive holds no day from \(page.until.next) to \(resume.previous))"
                notes.append("this page covers \(page.since) … \(page.until), the first \(pageDays) days; "
                             + "ask again with since \(next.since) and until \(next.until) for the rest\(skipped).")
            } else {
                notes.append("this answer covers \(page.since) … \(page.until); the archive holds no day from \(page.until.next) to \(cut.until).")
            }
            cut = page
        }
        if let note = Self.unusableNote(unusable.filter { cut.contains($0) }) { notes.append(note) }
        range = cut
        next = rest
        self.notes = notes
    }

    /// The sentence naming held days an answer could not read (the first three, and how many more).
    static func unusableNote(_ days: [CalendarDay]) -> String? {
        guard !days.isEmpty else { return nil }
        let named = days.prefix(3).map(\.description).joined(separator: ", ") + (days.count > 3 ? " and \(days.count - 3) more" : "")
        return "the mirror's copy of \(named) is missing or is not what was fetched, so "
            + (days.count == 1 ? "that day was" : "those days were") + " left out of this answer, not read as empty (efferent sync fetches "
            + (days.count == 1 ? "it" : "them") + " again)."
    }

    /// The first of `held` (ascending) after `day`.
    static func firstHeld(after day: CalendarDay, in held: [CalendarDay]) -> CalendarDay? {
        var low = 0, high = held.count
        while low < high {
            let middle = (low + high) / 2
            if held[middle] <= day { low = middle + 1 } else { high = middle }
        }
        return low < held.count ? held[low] : nil
    }

    /// A JSON answer with what a reader of it must know: `next` (where the rest starts) when it is
    /// a page, `coverage`, and `note` when its days differ from those asked for or hold no data.
    public func annotated(_ json: JSONValue) -> JSONValue {
        guard case var .object(members) = json, !notes.isEmpty || next != nil || coverage != nil else { return json }
        annotate(&members)
        return .object(members)
    }

    /// What `annotated` adds, to an answer's members.
    public func annotate(_ members: inout [String: JSONValue]) {
        if let next { members["next"] = .object(["since": .string(next.since.description), "until": .string(next.until.description)]) }
        if let coverage { members["coverage"] = coverage.json }
        let said = said
        if !said.isEmpty {
            let joined = said.joined(separator: " ")
            if case let .string(existing)? = members["note"] { members["note"] = .string(existing + " " + joined) } else { members["note"] = .string(joined) }
        }
    }
}

extension AnswerRequest {
    /// Whether a JSON answer of this kind pages by days (its rows are days or nights).
    var pages: Bool {
        !complete && (kind == .daily || kind == .sleep || (kind == .statistics && (groupBy ?? "month") == "day"))
    }

    /// The scope by the one rule, then the answer over it: what every surface calls.
    public func answer(from source: EventSource, today: CalendarDay, archive: ArchiveFacts? = nil,
                       pageDays: Int?) throws -> (answer: any Answer, scope: AnswerScope) {
        var scope = try AnswerScope(self, today: today, held: try source.days(), pageDays: pageDays, unusable: try source.unusableDays())
        let answer = try answer(from: source, range: scope.range, archive: archive)
        if let range = scope.range, !coveredMetrics.isEmpty { scope.coverage = try Coverage(span: range, metrics: coveredMetrics, of: source) }
        return (answer, scope)
    }

    /// The metrics whose coverage an answer of this kind carries: those it reads (none for an
    /// overview, which lists every metric with its first and last day).
    var coveredMetrics: [String] {
        switch kind {
        case .overview: []
        case .daily: metrics.isEmpty ? ["steps", "activeEnergy"] : metrics
        case .statistics, .samples: metric.map { [$0] } ?? []
        case .sleep: ["sleep"]
        case .workouts: ["workout"]
        }
    }
}
