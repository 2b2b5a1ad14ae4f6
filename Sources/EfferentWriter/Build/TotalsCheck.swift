import EfferentCore

/// Our daily totals against what Apple itself computed (the export's `ActivitySummary`: active
/// energy and exercise minutes for Watch days), to show the de-duplication agrees with the Health app.
public struct TotalsCheck: Sendable, Equatable {
    public struct Metric: Sendable, Equatable {
        public var compared = 0
        public var agreeing = 0
        /// The largest difference seen, in the metric's unit, and its day.
        public var worst: Double = 0
        public var worstDay: CalendarDay?
    }

    public var activeEnergy = Metric()
    public var exerciseTime = Metric()

    /// Compares every day that has an ActivitySummary. Active energy agrees within 1 % (or 1 kcal),
    /// exercise within 1 minute.
    public static func run(builder: DayBuilder) throws -> TotalsCheck {
        var check = TotalsCheck()
        for day in try builder.store.activitySummaryDays() {
            guard let summary = try builder.store.activitySummary(on: day) else { continue }
            let events = try builder.events(for: day)
            func total(_ metric: String) -> Double {
                events.first { $0.metric == metric && $0.bucket == .day }?.value ?? 0
            }
            if let apple = summary.activeEnergyKilocalories {
                check.activeEnergy.record(ours: total("activeEnergy"), apple: apple, tolerance: max(1, apple * 0.01), day: day)
            }
            if let apple = summary.exerciseMinutes {
                check.exerciseTime.record(ours: total("exerciseTime"), apple: apple, tolerance: 1, day: day)
            }
        }
        return check
    }
}

extension TotalsCheck.Metric {
    mutating func record(ours: Double, apple: Double, tolerance: Double, day: CalendarDay) {
        compared += 1
        let difference = abs(ours - apple)
        if difference <= tolerance { agreeing += 1 }
        if difference > worst {
            worst = difference
            worstDay = day
        }
    }
}
