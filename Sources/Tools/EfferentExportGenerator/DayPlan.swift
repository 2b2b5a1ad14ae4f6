import EfferentTestSupport

/// What the generated person did on one local day: walks, a workout, the night that ended that
/// morning. Every record of the day is derived from the plan, and the plan from (seed, day) alone,
/// so any one (type, source) stream can be regenerated without the others — that is how records
/// are written grouped by type and source while memory stays bounded.
struct DayPlan {
    /// How the Watch and the iPhone saw one walk.
    enum Coverage: Equatable {
        /// Both counted it; the iPhone's samples lie wholly inside the Watch's.
        case both
        /// Only the iPhone was there (Watch off the wrist or not yet owned).
        case phoneOnly
        /// Only the Watch (the phone on a desk).
        case watchOnly
        /// Both, and the iPhone's first sample starts half its length before the Watch's first:
        /// exactly half of that sample is uncovered.
        case partial
    }

    struct Bout {
        var start: Int64
        var duration: Int
        /// Steps a minute; 110 and up counts as exercise.
        var cadence: Int
        var coverage: Coverage
        var flights: Int
    }

    enum WorkoutKind: String, CaseIterable {
        case running = "HKWorkoutActivityTypeRunning"
        case walking = "HKWorkoutActivityTypeWalking"
        case cycling = "HKWorkoutActivityTypeCycling"
        case yoga = "HKWorkoutActivityTypeYoga"
        case strength = "HKWorkoutActivityTypeTraditionalStrengthTraining"
        case swimming = "HKWorkoutActivityTypeSwimming"

        /// Outdoors with the Watch's GPS: these record a route.
        var isOutdoor: Bool { self == .running || self == .walking || self == .cycling }
    }

    struct Workout {
        var kind: WorkoutKind
        var start: Int64
        var duration: Int
        var source: ExportSource
        var energyMillikcal: Int64
        var distanceCentimeters: Int64?
        var hasRoute: Bool
        /// Swimming: strokes, about 30 a minute.
        var strokes: Int64?
        /// Outdoor workouts from the second half on: metres climbed, in centimetres (`HKElevationAscended`).
        var elevationCentimeters: Int64?

        var end: Int64 { start + Int64(duration) }
    }

    /// One stretch of a night as a sleep record value.
    struct SleepStretch {
        var start: Int64
        var end: Int64
        var stage: SleepStage
    }

    struct Night {
        var inBed: (start: Int64, end: Int64)?
        var stretches: [SleepStretch]
    }

    /// Cumulative samples (steps, energy, …) lie inside this window of seconds after local
    /// midnight, so the day a sample falls on is the same whether an importer uses the zone
    /// (Europe/Paris) or the export's uniform offset (+0200, never more than an hour ahead).
    static let cumulativeWindow: Range<Int> = 1800..<81000

    let index: Int
    let date: LocalDate
    let midnight: Int64
    let fraction: Double
    let watchEra: Bool
    let watchWorn: Bool
    let bouts: [Bout]
    let workout: Workout?
    let night: Night?
    let seed: UInt64

    init(index: Int, timeline: ExportTimeline, seed: UInt64) {
        self.index = index
        self.seed = seed
        date = timeline.date(ofDay: index)
        midnight = timeline.midnights[index]
        fraction = timeline.fraction(ofDay: index)
        var rng = SplitMix64(seed: seed, day: index, stream: 0)
        watchEra = fraction >= 0.3
        watchWorn = watchEra && !rng.chance(0.05)

        // A workout most days out of three, at 07:00 or in the early evening.
        var workout: Workout?
        if rng.chance(0.4) {
            let kind = WorkoutKind.allCases[rng.int(0...(WorkoutKind.allCases.count - 1))]
            let morning = rng.chance(0.4)
            let start = midnight + Int64(morning ? rng.int(25200...26400) : rng.int(61200...66600))
            let duration = rng.int(20...70) * 60 + rng.int(0...59)
            let source: ExportSource = watchWorn ? .watch : .iPhone
            let perMinute: Int64 = switch kind {
            case .running: 11_000
            case .cycling: 9_000
            case .walking: 5_000
            case .yoga: 3_000
            case .strength: 6_000
            case .swimming: 8_000
            }
            let energy = perMinute * Int64(duration) / 60 + Int64(rng.int(0...999))
            var distance: Int64?
            if kind == .running { distance = Int64(duration) * Int64(rng.int(250...330)) }
            if kind == .walking { distance = Int64(duration) * Int64(rng.int(120...150)) }
            if kind == .cycling { distance = Int64(duration) * Int64(rng.int(500...700)) }
            var strokes: Int64?
            if kind == .swimming {
                distance = Int64(duration) * Int64(rng.int(30...45))
                strokes = Int64(duration) * Int64(rng.int(26...34)) / 60
            }
            let route = kind.isOutdoor && source == .watch && fraction >= 0.5 && rng.chance(0.6)
            let elevation: Int64? = kind.isOutdoor && fraction >= 0.5 ? Int64(rng.int(500...40_000)) : nil
            workout = Workout(kind: kind, start: start, duration: duration, source: source,
                              energyMillikcal: energy, distanceCentimeters: distance, hasRoute: route, strokes: strokes,
                              elevationCentimeters: elevation)
        }
        self.workout = workout

        // Walks through the day, never overlapping each other or the workout.
        var bouts = [Bout]()
        var cursor = midnight + Int64(rng.int(23400...27000))
        let dayEnd = midnight + Int64(Self.cumulativeWindow.upperBound) - 3600
        while cursor < dayEnd {
            let duration = rng.int(5...35) * 60 + rng.int(0...59)
            var start = cursor
            if let workout, start < workout.start + Int64(workout.duration) + 120,
               start + Int64(duration) + 120 > workout.start {
                start = workout.start + Int64(workout.duration) + 600
            }
            guard start + Int64(duration) < dayEnd else { break }
            var coverage: Coverage
            if !watchWorn {
                coverage = .phoneOnly
            } else {
                let roll = rng.int(0...99)
                coverage = roll < 70 ? .both : roll < 82 ? .watchOnly : roll < 94 ? .phoneOnly : .partial
            }
            let cadence = rng.chance(0.2) ? rng.int(110...130) : rng.int(70...105)
            let flights = rng.chance(0.2) ? rng.int(1...4) : 0
            bouts.append(Bout(start: start, duration: duration, cadence: cadence, coverage: coverage, flights: flights))
            cursor = start + Int64(duration) + Int64(rng.int(900...5400))
        }
        // A run or a walk is a walk too, seen by the device that recorded the workout.
        if let workout, workout.kind == .running || workout.kind == .walking {
            let cadence = workout.kind == .running ? 160 : 112
            let bout = Bout(start: workout.start, duration: workout.duration, cadence: cadence,
                            coverage: workout.source == .watch ? .watchOnly : .phoneOnly, flights: 0)
            let position = bouts.firstIndex { $0.start > workout.start } ?? bouts.count
            bouts.insert(bout, at: position)
        }
        self.bouts = bouts

        // The night that ended this morning.
        if index > 0 {
            let bed = midnight - Int64(rng.int(1800...5400))
            let wake = midnight + Int64(rng.int(23400...27900))
            let inBed: (Int64, Int64)? = rng.chance(0.95) ? (bed, wake) : nil
            var stretches = [SleepStretch]()
            if watchWorn {
                let onset = bed + Int64(rng.int(600...1500))
                let asleepEnd = wake - Int64(rng.int(60...600))
                if fraction >= 0.7 {
                    var at = onset
                    var cycle = 0
                    while at < asleepEnd {
                        let stage: SleepStage
                        let length: Int
                        switch cycle % 4 {
                        case 0: stage = .core; length = rng.int(1200...2400)
                        case 1: stage = .deep; length = rng.int(600...1800)
                        case 2: stage = .core; length = rng.int(600...1500)
                        default:
                            stage = rng.chance(0.3) ? .awake : .rem
                            length = stage == .awake ? rng.int(60...300) : rng.int(600...1500)
                        }
                        let end = min(at + Int64(length), asleepEnd)
                        stretches.append(SleepStretch(start: at, end: end, stage: stage))
                        at = end
                        cycle += 1
                    }
                } else {
                    let stage: SleepStage = fraction < 0.5 ? .legacyAsleep : .unspecified
                    stretches.append(SleepStretch(start: onset, end: asleepEnd, stage: stage))
                }
            }
            night = inBed == nil && stretches.isEmpty ? nil : Night(inBed: inBed, stretches: stretches)
        } else {
            night = nil
        }
    }

    /// A generator for `stream` on this day, independent of every other stream.
    func rng(_ stream: UInt64) -> SplitMix64 { SplitMix64(seed: seed, day: index, stream: stream) }

    /// The minutes (since midnight) the Watch counts as exercise: every minute of a Watch
    /// workout and of a brisk walk the Watch saw.
    var exerciseMinutes: [Int] {
        guard watchWorn else { return [] }
        var minutes = Set<Int>()
        for bout in bouts where bout.cadence >= 110 && bout.coverage != .phoneOnly {
            let first = Int(bout.start - midnight) / 60
            for minute in first..<(first + bout.duration / 60) { minutes.insert(minute) }
        }
        if let workout, workout.source == .watch {
            let first = Int(workout.start - midnight) / 60
            for minute in first..<(first + workout.duration / 60) { minutes.insert(minute) }
        }
        return minutes.sorted()
    }
}
