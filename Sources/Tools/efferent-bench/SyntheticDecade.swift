import EfferentTestSupport
import EfferentCore


/// A decade of one person's days shaped like the reference archive of protocol §11: heart rate
/// from the Watch every few minutes (most events, as in "a decade of heart rate ≈ 800 000
/// readings"), daily totals every day and hourly totals only in the last year (§4.1: hour buckets
/// start at the writer's install day), nightly sleep stages from two sources, a workout every
/// third day, a few daily readings. About 260 events a day, a million over 3,650 days.
enum SyntheticDecade {
    static let start = CalendarDay(year: 2016, month: 1, day: 1)!

    /// The decade; with `everyType`, each day also holds what decision A.9 carries beyond the
    /// catalogue (`SyntheticDecade+EveryType`), drawn from a second generator so the catalogue's
    /// events are the same either way.
    static func days(count: Int = 3650, seed: UInt64 = 2026, everyType: Bool = false) -> [(CalendarDay, [DayEvent])] {
        days(0..<count, of: count, seed: seed, everyType: everyType)
    }

    /// The days `range` of the decade only (the catalogue's draws run from day 0, so they are
    /// the same whichever part is asked; the further types draw per day): a decade of GPS fixes
    /// is measured a year at a time rather than held whole.
    static func days(_ range: Range<Int>, of count: Int = 3650, seed: UInt64 = 2026, everyType: Bool) -> [(CalendarDay, [DayEvent])] {
        var random = SplitMix64(seed: seed)
        var out = [(CalendarDay, [DayEvent])]()
        for index in 0..<range.upperBound {
            let day = start.adding(days: index)
            let base = events(for: day, random: &random, hourly: index >= count - 365)
            guard range.contains(index) else { continue }
            var extra = SplitMix64(seed: seed ^ 0xA9 &+ UInt64(index) &* 0x9E37_79B9_7F4A_7C15)
            out.append((day, everyType ? base + extraEvents(for: day, index: index, base: base, random: &extra) : base))
        }
        return out
    }

    static func events(for day: CalendarDay, random: inout SplitMix64, hourly: Bool) -> [DayEvent] {
        let midnight = day.startUnixSeconds
        var events = [DayEvent]()
        func total(_ metric: String, _ unit: String, hours: ClosedRange<Int>, _ value: (inout SplitMix64) -> Double) {
            var sum = 0.0
            for hour in hours {
                let v = value(&random)
                guard v > 0 else { continue }
                sum += v
                guard hourly else { continue }
                events.append(try! DayEvent(kind: .total, metric: metric, bucket: .hour, unit: unit,
                                            start: midnight + Int64(hour) * 3600, end: midnight + Int64(hour + 1) * 3600, value: v))
            }
            events.append(try! DayEvent(kind: .total, metric: metric, bucket: .day, unit: unit, start: midnight, end: midnight + 86_400,
                                        value: (sum * 1000).rounded() / 1000))
        }
        total("steps", "count", hours: 7...22) { Double(Int.random(in: 0...1400, using: &$0)) }
        total("distanceWalkingRunning", "m", hours: 7...22) { (Double.random(in: 0...900, using: &$0) * 10).rounded() / 10 }
        total("activeEnergy", "kcal", hours: 0...23) { (Double.random(in: 1...60, using: &$0) * 1000).rounded() / 1000 }
        total("basalEnergy", "kcal", hours: 0...23) { (Double.random(in: 60...75, using: &$0) * 1000).rounded() / 1000 }
        total("flightsClimbed", "count", hours: 8...11) { Double(Int.random(in: 0...4, using: &$0)) }
        total("exerciseTime", "min", hours: 17...18) { Double(Int.random(in: 0...30, using: &$0)) }
        total("standTime", "min", hours: 8...19) { Double(Int.random(in: 1...10, using: &$0)) }

        // Heart rate from the Watch every 4–8 minutes while awake, every 10 asleep.
        var moment = midnight + Int64.random(in: 0...300, using: &random)
        var rate = 62.0
        while moment < midnight + 86_400 {
            let hour = (moment - midnight) / 3600
            rate = min(170, max(48, rate + Double.random(in: -4...4, using: &random).rounded()))
            events.append(try! DayEvent(kind: .record, metric: "heartRate", unit: "count/min", source: "Apple Watch",
                                        start: moment, end: moment, value: rate.rounded()))
            moment += (hour < 7 ? 600 : Int64.random(in: 240...480, using: &random))
        }
        events.append(try! DayEvent(kind: .record, metric: "restingHeartRate", unit: "count/min", source: "Apple Watch",
                                    start: midnight + 30_000, end: midnight + 30_000, value: Double(Int.random(in: 52...64, using: &random))))
        for i in 0..<4 {
            let at = midnight + 7_200 * Int64(i + 1)
            events.append(try! DayEvent(kind: .record, metric: "heartRateVariability", unit: "ms", source: "Apple Watch",
                                        start: at, end: at, value: (Double.random(in: 20...90, using: &random) * 100).rounded() / 100))
            events.append(try! DayEvent(kind: .record, metric: "oxygenSaturation", unit: "%", source: "Apple Watch",
                                        start: at + 60, end: at + 60, value: Double(Int.random(in: 94...99, using: &random)) / 100))
            events.append(try! DayEvent(kind: .record, metric: "respiratoryRate", unit: "count/min", source: "Apple Watch",
                                        start: at + 120, end: at + 900, value: (Double.random(in: 12...17, using: &random) * 2).rounded() / 2))
        }

        // Tonight's sleep begins this evening: stages from the Watch, in bed from the iPhone.
        var sleep = midnight + 22 * 3600 + Int64.random(in: 0...5400, using: &random)
        events.append(try! DayEvent(kind: .record, metric: "sleep", source: "iPhone", start: sleep - 600, end: sleep + 8 * 3600, stage: "inBed"))
        let stages = ["asleepCore", "asleepDeep", "asleepCore", "asleepREM", "awake"]
        for index in 0..<18 {
            let length = Int64.random(in: 600...2400, using: &random)
            events.append(try! DayEvent(kind: .record, metric: "sleep", source: "Apple Watch", start: sleep, end: sleep + length,
                                        stage: stages[index % stages.count]))
            sleep += length
        }
        if Int.random(in: 0..<3, using: &random) == 0 {
            let begin = midnight + 18 * 3600
            let duration = Double(Int.random(in: 1200...4200, using: &random))
            events.append(try! DayEvent(kind: .record, metric: "workout", source: "Apple Watch", start: begin, end: begin + Int64(duration),
                                        activity: ["37", "52", "13"][Int.random(in: 0..<3, using: &random)], duration: duration))
        }
        return events
    }
}
