import EfferentCore

/// The questions people ask of their health data (PulsHealth's own, with sleep and weight), as MCP
/// prompts (`prompts/list`, `prompts/get`): each names the days it means, worked out from the
/// archive's today, and the tools that answer it, so an agent asks the right tool for the right
/// days and reads the answer's `coverage` rather than guessing why it is empty.
enum MCPPrompts {
    struct Prompt: Sendable {
        let name: String
        let title: String
        let description: String
        let arguments: [(name: String, description: String)]
        let text: @Sendable (_ today: CalendarDay, _ arguments: [String: String]) -> String
    }

    /// Said at the end of every prompt: what to do with an answer over days without data.
    static let coverage = "If the answer's coverage says the days hold no data, say so and name where the data is (coverage.metrics.*.dataBefore and dataAfter), rather than answering zero."

    static let all: [Prompt] = [
        Prompt(name: "steps_last_week", title: "Steps last week", description: "How many steps did I average last week?", arguments: []) { today, _ in
            let week = lastWeek(today)
            return "How many steps did I average a day last week (\(week.since) to \(week.until), Monday to Sunday)? "
                + "Call phone_data_daily with metrics [\"steps\"], since \(week.since) and until \(week.until); the mean is over the days that hold steps, "
                + "and say how many of the 7 that is. " + coverage
        },
        Prompt(name: "compare_runs", title: "Runs this month against last month", description: "Compare my runs this month to last month.",
               arguments: [("activity", "The activity to compare (default running), as phone_data_workouts names it.")]) { today, arguments in
            let activity = arguments["activity"] ?? "running"
            let this = month(of: today), last = month(of: this.since.previous)
            return "Compare my \(activity) this month (\(this.since) to \(today)) with last month (\(last.since) to \(last.until)): count, minutes and distance. "
                + "Call phone_data_compare with metric \"workouts\", activity \"\(activity)\", first {since \(last.since), until \(last.until)} "
                + "and second {since \(this.since), until \(today)}; this month is not over, so compare the pace as well as the totals. "
                + "If both periods hold none, phone_data_workouts over a longer span says when the last one was."
        },
        Prompt(name: "rings_yesterday", title: "Rings yesterday", description: "Did I close my rings yesterday?", arguments: []) { today, _ in
            let yesterday = today.previous
            return "Did I close my activity rings yesterday (\(yesterday))? Call phone_data_rings with since and until \(yesterday), "
                + "and say for move, exercise and stand the value against its goal. If there is no row for the day, say so: rings come from an Apple Watch."
        },
        Prompt(name: "sleep_last_week", title: "Sleep last week", description: "How did I sleep last week?", arguments: []) { today, _ in
            let since = today.adding(days: -7), until = today.previous
            return "How did I sleep over the last seven nights (the nights of \(since) to \(until), each named by its evening)? "
                + "Call phone_data_sleep with since \(since) and until \(until). Give the mean hours asleep with the number of nights it averages "
                + "(asleepHours.nights): a night with only time in bed has no asleep figure and is counted in nightsInBedOnly, not as 0 h. " + coverage
        },
        Prompt(name: "weight_trend", title: "Weight over the last months", description: "How has my weight changed?",
               arguments: [("months", "How many months to look back (default 6).")]) { today, arguments in
            let months = arguments["months"].flatMap { Int($0) }.map { min(max($0, 1), 120) } ?? 6
            let since = today.adding(days: -30 * months)
            return "How has my weight changed over the last \(months) months (\(since) to \(today))? Call phone_data_statistics with metric \"bodyMass\", "
                + "groupBy \"month\", since \(since) and until \(today), and phone_data_latest with metrics [\"bodyMass\"] for the latest weighing. "
                + "Give the change in the monthly means with its unit. " + coverage
        },
    ]

    /// The Monday-to-Sunday week before the one `today` is in.
    static func lastWeek(_ today: CalendarDay) -> DayRange {
        // 1970-01-01 was a Thursday: days since the epoch plus 3, modulo 7, is 0 on a Monday.
        let sinceMonday = Int(((today.daysSinceEpoch + 3) % 7 + 7) % 7)
        let monday = today.adding(days: -sinceMonday - 7)
        return try! DayRange(since: monday, until: monday.adding(days: 6))
    }

    /// The calendar month `day` is in.
    static func month(of day: CalendarDay) -> DayRange {
        let first = CalendarDay(year: day.year, month: day.month, day: 1)!
        return try! DayRange(since: first, until: first.adding(days: CalendarDay.daysIn(month: day.month, year: day.year) - 1))
    }

    static var list: JSONValue {
        .object(["prompts": .array(all.map { prompt in
            .object(["name": .string(prompt.name), "title": .string(prompt.title), "description": .string(prompt.description),
                     "arguments": .array(prompt.arguments.map { .object(["name": .string($0.name), "description": .string($0.description),
                                                                         "required": .bool(false)]) })])
        })])
    }

    /// `prompts/get`: the prompt's message for `today`; nil when no prompt has that name.
    static func get(_ name: String, arguments: [String: JSONValue], today: CalendarDay) -> JSONValue? {
        guard let prompt = all.first(where: { $0.name == name }) else { return nil }
        var given = [String: String]()
        for (key, value) in arguments where prompt.arguments.contains(where: { $0.name == key }) {
            if let text = value.stringValue { given[key] = text }
        }
        return .object(["description": .string(prompt.description), "messages": .array([.object([
            "role": .string("user"), "content": .object(["type": .string("text"), "text": .string(prompt.text(today, given))]),
        ])])])
    }
}
