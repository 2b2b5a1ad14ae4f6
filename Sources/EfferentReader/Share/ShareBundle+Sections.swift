import EfferentCore

/// Each section's narrative: what a person reads first, in words and the dashboard's units, from
/// the same answers as the Observations.
extension ShareBundle {
    func dailySection(_ metric: String, _ answer: DailyAnswer) -> Section {
        let coding = FHIRTerms.coding(of: metric, unit: answer.units[metric])
        let code = coding.loinc.map { (FHIRTerms.loinc, $0.code, Optional($0.display)) } ?? (FHIRTerms.metricSystem, metric, nil)
        return Section(title: MetricTitle.of(metric), code: code, lines: Self.summary(metric, answer), entries: [])
    }

    /// One metric over the span: days with data, its range of daily figures and the latest.
    static func summary(_ metric: String, _ answer: DailyAnswer) -> [String] {
        let unit = DisplayUnit.of(metric, unit: answer.units[metric])
        let days = answer.range.dayCount
        let series = answer.series(of: metric)
        let held = series.enumerated().compactMap { index, value in value.map { (answer.range.since.adding(days: index), $0) } }
        guard let first = held.first, let last = held.last else { return ["No \(MetricTitle.of(metric).lowercased()) was recorded in these \(days) days."] }
        let isTotal = answer.columns.contains { $0.metric == metric && $0.statistic == .sum }
        var lines = ["\(held.count) of \(days) days have \(isTotal ? "a total" : "readings"), from \(first.0) to \(last.0)."]
        let lowest = held.min { $0.1 < $1.1 }!, highest = held.max { $0.1 < $1.1 }!
        let average = held.reduce(0) { $0 + $1.1 } / Double(held.count)
        if isTotal {
            lines.append("Average per day \(unit.text(average)); lowest day \(unit.text(lowest.1)) (\(lowest.0)), highest \(unit.text(highest.1)) (\(highest.0)).")
        } else {
            lines.append("The days' means run from \(unit.text(lowest.1)) (\(lowest.0)) to \(unit.text(highest.1)) (\(highest.0)), averaging \(unit.text(average)).")
            if let minColumn = answer.columns.firstIndex(where: { $0.metric == metric && $0.statistic == .min }),
               let maxColumn = answer.columns.firstIndex(where: { $0.metric == metric && $0.statistic == .max }) {
                let lows = answer.values.enumerated().compactMap { index, row in row[minColumn].map { (answer.range.since.adding(days: index), $0) } }
                let highs = answer.values.enumerated().compactMap { index, row in row[maxColumn].map { (answer.range.since.adding(days: index), $0) } }
                if let low = lows.min(by: { $0.1 < $1.1 }), let high = highs.max(by: { $0.1 < $1.1 }) {
                    lines.append("Lowest reading \(unit.text(low.1)) (\(low.0)); highest \(unit.text(high.1)) (\(high.0)).")
                }
            }
        }
        lines.append("Latest: \(unit.text(last.1)) on \(last.0)\(isTotal ? "" : " (that day's mean)").")
        return lines
    }

    func bloodPressureSection(_ answer: DailyAnswer) -> Section {
        let systolic = Self.summary("bloodPressureSystolic", answer), diastolic = Self.summary("bloodPressureDiastolic", answer)
        return Section(title: "Blood pressure", code: (FHIRTerms.loinc, FHIRTerms.bloodPressurePanel.code, FHIRTerms.bloodPressurePanel.display),
                       lines: systolic.map { "Systolic: " + $0 } + diastolic.map { "Diastolic: " + $0 }, entries: [])
    }

    func sleepSection(_ answer: SleepAnswer) -> Section {
        var lines: [String]
        if let distribution = answer.asleepDistribution {
            lines = ["\(answer.nights.count) of \(answer.range.dayCount) nights recorded.",
                     "Asleep per night: median \(Self.hours(distribution.median)), from \(Self.hours(distribution.min)) to \(Self.hours(distribution.max)), "
                     + "mean \(Self.hours(distribution.mean))."]
            if let last = answer.nights.last {
                lines.append("Latest: the night of \(last.night), "
                             + (last.asleepHours.map { "\(Self.hours($0)) asleep." } ?? "only time in bed recorded, no time asleep."))
            }
        } else {
            lines = ["No sleep was recorded in these \(answer.range.dayCount) nights."]
        }
        return Section(title: "Sleep", code: (FHIRTerms.loinc, FHIRTerms.sleepDuration.code, FHIRTerms.sleepDuration.display), lines: lines, entries: [])
    }

    static func hours(_ value: Double) -> String {
        let minutes = Int((value * 60).rounded())
        return "\(minutes / 60) h \(minutes % 60) min"
    }

    func workoutSection(_ answer: WorkoutsAnswer, _ workouts: [WorkoutsAnswer.Workout]) -> Section {
        var lines = ["\(workouts.count) workout\(workouts.count == 1 ? "" : "s") from \(content.range.since) to \(content.range.until)."]
        for (activity, tally) in answer.byActivity.sorted(by: { ($0.value.count, $1.key) > ($1.value.count, $0.key) }) {
            lines.append("\(MetricTitle.of(activity)): \(tally.count), \(Int(tally.minutes.rounded())) min in all.")
        }
        return Section(title: "Workouts", code: (FHIRTerms.loinc, FHIRTerms.exerciseActivity.code, FHIRTerms.exerciseActivity.display),
                       lines: lines, entries: [])
    }
}
