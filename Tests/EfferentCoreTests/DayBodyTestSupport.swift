import EfferentTestSupport
@testable import EfferentCore


/// Builds events for tests, where every event is valid by construction.
func event(_ kind: DayEvent.Kind, _ metric: String, bucket: DayEvent.Bucket? = nil, unit: String? = nil,
           source: String? = nil, start: Int64, end: Int64, value: Double? = nil, stage: String? = nil,
           activity: String? = nil, duration: Double? = nil) throws -> DayEvent {
    try DayEvent(kind: kind, metric: metric, bucket: bucket, unit: unit, source: source, start: start, end: end,
                 value: value, stage: stage, activity: activity, duration: duration)
}

func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

/// Random days drawn from small pools, so that series share keys, rows tie on start and ids
/// collide, with awkward strings and numbers mixed in.
struct RandomDays {
    var rng: SplitMix64

    init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    static let metrics = ["steps", "heartRate", "sleep", "workout", "oxygenSaturation", "ü/\"m\\"]
    static let units: [String?] = [nil, "count", "count/min", "%", "kcal"]
    static let sources: [String?] = [nil, "iPhone", "iPhone 15", "Apple Watch", "Ärger ☃", "a\"b\\c/d\n\u{1}", "", "e\u{301}", "\u{e9}"]
    static let stages: [String?] = [nil, "asleepCore", "asleepDeep", "awake", "inBed", "\u{e9}", "e\u{301}"]
    static let activities: [String?] = [nil, "37", "52", "3000", "9"]

    mutating func pick<T>(_ pool: [T]) -> T { pool[Int.random(in: 0..<pool.count, using: &rng)] }

    mutating func number() -> Double? {
        switch Int.random(in: 0..<8, using: &rng) {
        case 0: return nil
        case 1: return Double(Int.random(in: -5...5000, using: &rng))
        case 2: return Double(Int.random(in: 0...100, using: &rng)) / 100
        case 3: return [0.1, 1e-7, 1e15, 1e16, 123456789.125, -0.0, .leastNonzeroMagnitude, 1.7976931348623157e308][Int.random(in: 0..<8, using: &rng)]
        case 4:
            let n = Double(bitPattern: rng.next())
            return n.isFinite ? n : 1.5
        default: return Double(Int.random(in: 55...70, using: &rng))
        }
    }

    mutating func event(dayStart: Int64) -> DayEvent {
        let kind: DayEvent.Kind = Bool.random(using: &rng) ? .total : .record
        let start = dayStart + Int64(Int.random(in: 0..<24, using: &rng)) * 3600 + Int64(pick([0, 0, 0, 42, 59, 1800]))
        let end = start + Int64(pick([0, 0, 60, 1800, 3600, 86_399]))
        let bucket: DayEvent.Bucket? = kind == .total ? pick([.hour, .day]) : nil
        // Every combination here is valid, so `try?` never drops an event.
        return (try? DayEvent(kind: kind, metric: pick(Self.metrics), bucket: bucket, unit: pick(Self.units),
                              source: pick(Self.sources), start: start, end: end, value: number(),
                              stage: pick(Self.stages), activity: pick(Self.activities),
                              duration: Bool.random(using: &rng) ? nil : number()))!
    }

    mutating func day(maxEvents: Int = 40) -> [DayEvent] {
        let dayStart = Int64(Int.random(in: -3650...20_000, using: &rng)) * 86_400
        let count = Int.random(in: 0...maxEvents, using: &rng)
        var events = (0..<count).map { _ in event(dayStart: dayStart) }
        // Exact duplicates happen in real exports; keep some.
        if let first = events.first, Bool.random(using: &rng) { events.append(first) }
        return events
    }
}

/// How many times each event occurs: the multiset equality of a round trip.
func tally(_ events: [DayEvent]) -> [DayEvent: Int] {
    events.reduce(into: [:]) { $0[$1, default: 0] += 1 }
}
