import EfferentClient
import EfferentCore
import EfferentTestSupport
import Foundation

/// Days built by hand for the dashboard: steps (day and hour totals), heart rate, weight, sleep
/// stages, a run with its distance and GPS route every fifth day, and Apple's activity rings, in
/// Berlin; the last day holds 6,000 heart-rate readings (more than `samples` returns at once).
enum SampleDays {
    static let first = CalendarDay("2025-05-01")!
    static let count = 40
    static var last: CalendarDay { first.adding(days: count - 1) }

    static func make() throws -> [(CalendarDay, String)] {
        var random = SplitMix64(seed: 2016)
        let zone = ZoneCalendar(identifier: "Europe/Berlin")!
        return try (0..<count).map { offset in
            let date = first.adding(days: offset)
            let (start, end) = zone.bounds(of: date)
            var events = [DayEvent]()
            var total = 0.0
            for hour in 8..<21 {
                let steps = Double(Int.random(in: 100...1500, using: &random)) + 0.25
                total += steps
                events.append(try DayEvent(kind: .total, metric: "steps", bucket: .hour, unit: "count", start: start + Int64(hour) * 3600,
                                           end: start + Int64(hour + 1) * 3600, value: steps))
            }
            events.append(try DayEvent(kind: .total, metric: "steps", bucket: .day, unit: "count", start: start, end: end, value: total))
            let readings = offset == count - 1 ? 6000 : 40
            for index in 0..<readings {
                let at = start + Int64(index) * (end - start) / Int64(readings)
                events.append(try DayEvent(kind: .record, metric: "heartRate", unit: "count/min", source: "Watch", start: at, end: at,
                                           value: Double(Int.random(in: 50...160, using: &random))))
            }
            if offset % 4 == 0 {
                events.append(try DayEvent(kind: .record, metric: "bodyMass", unit: "kg", source: "Scale", start: start + 7 * 3600,
                                           end: start + 7 * 3600, value: 71 + Double(offset % 7) / 10))
            }
            // The night that begins this evening: core, deep, REM and a moment awake, in bed throughout.
            let evening = start + 22 * 3600 + 30 * 60
            events.append(try DayEvent(kind: .record, metric: "sleep", source: "Watch", start: evening, end: evening + 8 * 3600, stage: "inBed"))
            events.append(try DayEvent(kind: .record, metric: "sleep", source: "Watch", start: evening + 600, end: evening + 3 * 3600, stage: "asleepCore"))
            events.append(try DayEvent(kind: .record, metric: "sleep", source: "Watch", start: evening + 3 * 3600, end: evening + 4 * 3600 + 1200, stage: "asleepDeep"))
            events.append(try DayEvent(kind: .record, metric: "sleep", source: "Watch", start: evening + 4 * 3600 + 1200, end: evening + 4 * 3600 + 1500, stage: "awake"))
            events.append(try DayEvent(kind: .record, metric: "sleep", source: "Watch", start: evening + 4 * 3600 + 1500, end: evening + 7 * 3600, stage: "asleepREM"))
            events.append(try DayEvent(kind: .record, metric: "sleep", source: "Phone", start: evening + 5 * 3600, end: evening + 7 * 3600 + 1800, stage: "asleepCore"))
            if offset % 5 == 0 {
                let run = start + 18 * 3600
                events.append(try DayEvent(kind: .record, metric: "workout", source: "Watch", start: run, end: run + 1800, activity: "37", duration: 1800))
                events.append(try DayEvent(kind: .record, metric: "workout.distanceWalkingRunning.sum", unit: "m", source: "Watch",
                                           start: run, end: run + 1800, value: 5000 + Double(offset) * 10.5))
                events.append(try DayEvent(kind: .record, metric: "workout.heartRate.average", unit: "count/min", source: "Watch",
                                           start: run, end: run + 1800, value: 141))
                for fix in 0..<60 {
                    let at = run + Int64(fix * 30)
                    events.append(try DayEvent(kind: .record, metric: "workoutRoute.latitude", unit: "deg", source: "Watch", start: at, end: at,
                                               value: 52.52 + Double(fix) * 0.0003))
                    events.append(try DayEvent(kind: .record, metric: "workoutRoute.longitude", unit: "deg", source: "Watch", start: at, end: at,
                                               value: 13.40 + sin(Double(fix) / 9) * 0.004))
                }
            }
            for (attribute, value) in [("activeEnergyBurned", 420.0 + Double(offset)), ("activeEnergyBurnedGoal", 500), ("appleExerciseTime", 35),
                                       ("appleExerciseTimeGoal", 30), ("appleStandHours", 10), ("appleStandHoursGoal", 12)] {
                events.append(try DayEvent(kind: .record, metric: "activitySummary." + attribute, unit: attribute.contains("Stand") ? "count" : attribute.contains("Energy") ? "kcal" : "min",
                                           start: start, end: start, value: value))
            }
            return (date, String(decoding: DayBody(events: events, timeZone: "Europe/Berlin").bytes, as: UTF8.self))
        }
    }
}
