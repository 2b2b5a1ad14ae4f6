import EfferentCore
import EfferentTestSupport

/// What a Watch wearer's day holds beyond the first catalogue (decision A.9), added to the
/// synthetic decade from a generator of its own so the catalogue's days stay as they were: GPS
/// routes at a fix a second on every workout (they dominate), heart rate every 5 s during it, its
/// statistics, events and activity; beats from the HRV readings, stand hours, audio exposure,
/// walking metrics, the activity rings, weekly blood pressure, body fat, and an ECG a month.
extension SyntheticDecade {
    static func extraEvents(for day: CalendarDay, index: Int, base: [DayEvent], random: inout SplitMix64) -> [DayEvent] {
        let midnight = day.startUnixSeconds
        var events = [DayEvent]()
        func record(_ metric: String, _ unit: String?, _ start: Int64, _ end: Int64, _ value: Double?, source: String? = "Apple Watch",
                    activity: String? = nil, duration: Double? = nil) {
            events.append(try! DayEvent(kind: .record, metric: metric, unit: unit, source: source, start: start, end: end, value: value,
                                        activity: activity, duration: duration))
        }
        if let workout = base.first(where: { $0.metric == "workout" }) {
            let start = workout.start, end = workout.end
            for at in stride(from: start, to: end, by: 5) { record("heartRate", "count/min", at, at, Double(Int.random(in: 110...165, using: &random))) }
            var lat = 48.8566, lon = 2.3522, altitude = 35.0
            for second in start...end {
                for ordinal in 0..<((second - start) % 10 == 7 ? 2 : 1) {
                    lat += Double.random(in: -0.00002...0.00003, using: &random)
                    lon += Double.random(in: -0.00002...0.00003, using: &random)
                    altitude += Double.random(in: -0.3...0.3, using: &random)
                    let fields: [(String, String, Double, Double)] = [
                        ("latitude", "deg", lat, 1e7), ("longitude", "deg", lon, 1e7), ("altitude", "m", altitude, 100),
                        ("speed", "m/s", Double.random(in: 2.4...3.6, using: &random), 100),
                        ("course", "deg", Double.random(in: 0..<360, using: &random), 10),
                        ("horizontalAccuracy", "m", Double.random(in: 1.5...9, using: &random), 10),
                        ("verticalAccuracy", "m", Double.random(in: 1...6, using: &random), 10)]
                    for (field, unit, value, scale) in fields {
                        record("workoutRoute." + field, unit, second, second + Int64(ordinal), (value * scale).rounded() / scale)
                    }
                }
            }
            let energy = (Double.random(in: 200...700, using: &random) * 1000).rounded() / 1000
            let distance = (Double.random(in: 3000...15000, using: &random) * 100).rounded() / 100
            for (metric, unit, value) in [("workout.activeEnergy.sum", "kcal", energy), ("workout.distanceWalkingRunning.sum", "m", distance),
                                          ("workout.heartRate.average", "count/min", 142.5), ("workout.heartRate.minimum", "count/min", 96),
                                          ("workout.heartRate.maximum", "count/min", 171), ("workout.activity.activeEnergy.sum", "kcal", energy),
                                          ("workout.activity.heartRate.average", "count/min", 142.5), ("workout.elevationAscended", "m", 84),
                                          ("workout.averageMETs", "kcal/hr*kg", 9.2), ("workout.indoorWorkout", "count", 0)] {
                record(metric, unit, start, end, value)
            }
            record("workout.activity", nil, start, end, nil, activity: workout.activity, duration: workout.duration)
            record("workout.event", nil, start, start + (end - start) / 2, 7)
            record("workout.event", nil, start + (end - start) / 2, end, 7)
        }
        // Beats of the four HRV readings, eight each, up to two in a second.
        for reading in base where reading.metric == "heartRateVariability" {
            var second = reading.start, ordinal: Int64 = 0
            for beat in 0..<8 {
                if beat > 0 {
                    if Int.random(in: 0..<3, using: &random) == 0 { ordinal += 1 } else { second += 1; ordinal = 0 }
                }
                record("heartbeatSeries", "count/min", second, second + ordinal, Double(Int.random(in: 55...80, using: &random)))
            }
        }
        for hour in 7...22 { record("appleStandHour", nil, midnight + Int64(hour) * 3600, midnight + Int64(hour + 1) * 3600, Double(Int.random(in: 0...1, using: &random))) }
        for hour in 8...21 {
            let at = midnight + Int64(hour) * 3600 + Int64.random(in: 0...1800, using: &random)
            record("environmentalAudioExposure", "dBASPL", at, at + 1800, (Double.random(in: 45...78, using: &random) * 10).rounded() / 10)
        }
        for walk in 0..<6 {
            let at = midnight + Int64(8 + walk * 2) * 3600
            record("walkingSpeed", "m/s", at, at + 600, (Double.random(in: 1.0...1.6, using: &random) * 100).rounded() / 100, source: "iPhone")
            record("walkingStepLength", "m", at, at + 600, (Double.random(in: 0.6...0.8, using: &random) * 100).rounded() / 100, source: "iPhone")
        }
        record("walkingHeartRateAverage", "count/min", midnight + 65_000, midnight + 65_000, Double(Int.random(in: 85...110, using: &random)))
        for (name, unit, value) in [("activeEnergyBurned", "kcal", 512.4), ("activeEnergyBurnedGoal", "kcal", 500), ("appleMoveTime", "min", 0),
                                    ("appleMoveTimeGoal", "min", 0), ("appleExerciseTime", "min", Double(Int.random(in: 5...90, using: &random))),
                                    ("appleExerciseTimeGoal", "min", 30), ("appleStandHours", "count", Double(Int.random(in: 6...14, using: &random))),
                                    ("appleStandHoursGoal", "count", 12)] {
            record("activitySummary." + name, unit, midnight, midnight + 86_400, value, source: nil)
        }
        if index % 7 == 2 {
            let at = midnight + 29_700
            record("bloodPressureSystolic", "mmHg", at, at, Double(Int.random(in: 105...135, using: &random)), source: "Health Mate")
            record("bloodPressureDiastolic", "mmHg", at, at, Double(Int.random(in: 65...85, using: &random)), source: "Health Mate")
        }
        if index % 3 == 0 {
            record("bodyFatPercentage", "%", midnight + 26_000, midnight + 26_000, Double(Int.random(in: 180...260, using: &random)) / 1000,
                   source: "Health Mate")
        }
        if index % 30 == 11 {
            let at = midnight + 44_000
            record("electrocardiogram", nil, at, at + 30, 1)
            record("electrocardiogram.samplingFrequency", "Hz", at, at + 30, 512)
            var level = 0.0
            for sample in 0..<(30 * 512) {
                level = max(-80, min(80, level + Double.random(in: -2...2, using: &random)))
                let voltage = level + (sample % 512 < 12 ? 900 - Double(sample % 512) * 60 : 0)
                record("electrocardiogram.voltage", "mcV", at + Int64(sample / 512), at + Int64(sample / 512) + Int64(sample % 512),
                       (voltage * 1000).rounded() / 1000)
            }
        }
        return events
    }
}
