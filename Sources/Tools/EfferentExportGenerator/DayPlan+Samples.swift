/// The records of one stream on one day, derived from the plan. Chunkings shared by two streams
/// (steps and distance) draw from the same generator so they agree sample for sample.
extension DayPlan {
    /// Energy records are written in kJ on these days (an en_FR-style unit setting, §1.6).
    var energyInKilojoules: Bool { index % 11 == 5 }

    func samples(_ stream: RecordStream) -> [Sample] {
        var rng = rng(UInt64(stream.rawValue) + 1)
        switch stream {
        case .stepsWatch: return watchChunks().map { Sample(start: $0.start, end: $0.end, value: $0.steps) }
        case .distanceWatch: return watchChunks().map { Sample(start: $0.start, end: $0.end, value: $0.steps * 76) }
        case .stepsPhone: return phoneChunks().map { Sample(start: $0.start, end: $0.end, value: $0.steps) }
        case .distancePhone: return phoneChunks().map { Sample(start: $0.start, end: $0.end, value: $0.steps * 72) }
        case .flightsWatch:
            return bouts.filter { $0.flights > 0 && $0.coverage != .phoneOnly }
                .map { Sample(start: $0.start + 60, end: $0.start + 180, value: Int64($0.flights)) }
        case .flightsPhone:
            return bouts.filter { $0.flights > 0 && $0.coverage != .watchOnly }
                .map { Sample(start: $0.start + 90, end: $0.start + 150, value: Int64($0.flights)) }
        case .activeEnergy:
            guard watchWorn else { return [] }
            var out = [Sample]()
            var at = midnight + 25200
            while at < midnight + Int64(Self.cumulativeWindow.upperBound) - 300 {
                let length = Int64(rng.int(120...240))
                out.append(Sample(start: at, end: at + length, value: Int64(rng.int(150...1500)), variant: energyInKilojoules ? 1 : 0))
                at += length
            }
            return out
        case .basalEnergy:
            guard watchWorn else { return [] }
            var out = [Sample]()
            var at = midnight + Int64(Self.cumulativeWindow.lowerBound)
            while at + 600 <= midnight + Int64(Self.cumulativeWindow.upperBound) {
                out.append(Sample(start: at, end: at + 600, value: Int64(rng.int(1050...1200)), variant: energyInKilojoules ? 1 : 0))
                at += 600
            }
            return out
        case .exercise:
            return exerciseMinutes.map { Sample(start: midnight + Int64($0 * 60), end: midnight + Int64($0 * 60 + 60), value: 1) }
        case .stand:
            guard watchWorn else { return [] }
            var out = [Sample]()
            for hour in 7...21 where rng.chance(0.8) {
                let start = midnight + Int64(hour * 3600 + rng.int(0...10) * 300)
                out.append(Sample(start: start, end: start + 300, value: Int64(rng.int(1...5))))
            }
            return out
        case .heartRate:
            guard watchWorn else { return [] }
            var out = [Sample]()
            var at = midnight + Int64(rng.int(0...300))
            while at < midnight + 86400 - 60 {
                let resting = at < midnight + 25200
                let bpm = resting ? rng.int(50...62) : rng.int(62...95)
                out.append(Sample(start: at, end: at, value: Int64(bpm), variant: UInt8(resting ? 0 : rng.int(0...2))))
                at += Int64(rng.int(240...420))
            }
            // During a Watch workout the Watch reads the heart every five seconds.
            if let workout, workout.source == .watch {
                var during = self.rng(300)
                for at in stride(from: workout.start, to: workout.end, by: 5) {
                    out.append(Sample(start: at, end: at, value: Int64(during.int(110...165)), variant: 2))
                }
                out.sort { $0.start < $1.start }
            }
            return out
        case .restingHeartRate:
            guard watchWorn else { return [] }
            let at = midnight + Int64(rng.int(25200...28800))
            return [Sample(start: at, end: at, value: Int64(rng.int(50...62)))]
        case .heartRateVariability:
            guard watchWorn else { return [] }
            return [4, 11, 17].map { hour in
                let at = midnight + Int64(hour * 3600 + rng.int(0...3000))
                return Sample(start: at, end: at + 60, value: Int64(rng.int(20000...90000)))
            }
        case .respiratoryRate:
            guard watchWorn, let night, let first = night.stretches.first, let last = night.stretches.last else { return [] }
            var out = [Sample]()
            var at = first.start + 300
            while at + 120 < last.end {
                out.append(Sample(start: at, end: at + 120, value: Int64(rng.int(120...180))))
                at += Int64(rng.int(1500...2100))
            }
            return out
        case .oxygenSaturation:
            guard watchWorn, let night, let first = night.stretches.first, let last = night.stretches.last else { return [] }
            let step = max((last.end - first.start) / 5, 1)
            return (1...4).map { Sample(start: first.start + step * Int64($0), end: first.start + step * Int64($0), value: Int64(rng.int(93...100))) }
        case .vo2Max:
            guard let workout, workout.kind == .running, workout.source == .watch else { return [] }
            let at = workout.start + Int64(workout.duration)
            return [Sample(start: at, end: at, value: Int64(rng.int(380...520)))]
        case .bodyMassScale:
            guard fraction >= 0.1, index % 3 == 0 else { return [] }
            let at = midnight + Int64(rng.int(25200...27000))
            return [Sample(start: at, end: at, value: Int64(rng.int(700...760)))]
        case .bodyMassManual:
            guard index % 30 == 7 else { return [] }
            let at = midnight + Int64(rng.int(72000...75600))
            return [Sample(start: at, end: at, value: Int64(rng.int(1540...1680)), variant: 1)]
        case .dietaryEnergy: return meals().map { Sample(start: $0.at, end: $0.at, value: $0.energy) }
        case .dietaryProtein: return meals().map { Sample(start: $0.at, end: $0.at, value: $0.protein) }
        case .systolic: return bloodPressure().map { Sample(start: $0.at, end: $0.at, value: $0.systolic) }
        case .diastolic: return bloodPressure().map { Sample(start: $0.at, end: $0.at, value: $0.diastolic) }
        case .sleepWatch:
            return (night?.stretches ?? []).map {
                Sample(start: $0.start, end: $0.end, value: 0, variant: UInt8(SleepStage.allCases.firstIndex(of: $0.stage) ?? 0))
            }
        case .sleepPhone:
            guard let inBed = night?.inBed else { return [] }
            return [Sample(start: inBed.start, end: inBed.end, value: 0, variant: 0)]
        case .distanceCycling:
            guard let workout, workout.kind == .cycling, workout.source == .watch else { return [] }
            return workoutChunks(workout, total: workout.distanceCentimeters ?? 0)
        case .distanceSwimming:
            guard let workout, workout.kind == .swimming, workout.source == .watch else { return [] }
            return workoutChunks(workout, total: workout.distanceCentimeters ?? 0)
        case .swimmingStrokes:
            guard let workout, workout.kind == .swimming, workout.source == .watch else { return [] }
            return workoutChunks(workout, total: workout.strokes ?? 0)
        case .walkingHeartRateAverage:
            guard watchWorn else { return [] }
            let at = midnight + Int64(rng.int(64800...68400))
            return [Sample(start: at, end: at, value: Int64(rng.int(85...110)))]
        case .bodyFat:
            guard fraction >= 0.1, index % 3 == 0 else { return [] }
            let at = midnight + Int64(rng.int(25200...27000))
            return [Sample(start: at, end: at, value: Int64(rng.int(180...260)))]
        case .standHour:
            guard watchWorn else { return [] }
            return (7...22).map { hour in
                let start = midnight + Int64(hour * 3600)
                return Sample(start: start, end: start + 3600, value: 0, variant: rng.chance(0.7) ? 0 : 1)
            }
        case .mindfulSession:
            guard watchWorn, index % 4 == 1 else { return [] }
            let start = midnight + Int64(rng.int(27000...28800))
            return [Sample(start: start, end: start + Int64(rng.int(60...600)), value: 0)]
        case .audioExposure:
            guard watchWorn else { return [] }
            return (8...21).map { hour in
                let start = midnight + Int64(hour * 3600 + rng.int(0...1800))
                return Sample(start: start, end: start + 1800, value: Int64(rng.int(450...780)))
            }
        case .walkingSpeed, .walkingStepLength:
            var rng = self.rng(202)
            return bouts.filter { $0.coverage != .watchOnly && $0.duration >= 600 }.map { bout in
                let speed = Int64(rng.int(380...560)), length = Int64(rng.int(60...80))
                return Sample(start: bout.start, end: bout.start + Int64(bout.duration), value: stream == .walkingSpeed ? speed : length)
            }
        }
    }

    /// A workout's cumulative samples in minute chunks whose values add up to `total` exactly.
    private func workoutChunks(_ workout: Workout, total: Int64) -> [Sample] {
        guard total > 0 else { return [] }
        var out = [Sample]()
        var given: Int64 = 0
        for at in stride(from: workout.start, to: workout.end, by: 60) {
            let end = min(at + 60, workout.end)
            let share = end == workout.end ? total - given : total * (end - workout.start) / Int64(workout.duration) - given
            out.append(Sample(start: at, end: end, value: share))
            given += share
        }
        return out
    }

    /// One ECG a month on the Watch (in the second half of the range): 30 s at 512 Hz at midday.
    var electrocardiogram: (start: Int64, voltages: [Int64])? {
        guard watchWorn, fraction >= 0.5, index % 30 == 11 else { return nil }
        var rng = rng(203)
        let start = midnight + Int64(rng.int(43_200...46_800))
        var level: Int64 = 0
        let voltages = (0..<(30 * 512)).map { sample -> Int64 in
            // A beat a second: a spike on a wandering baseline, in thousandths of a microvolt.
            let phase = sample % 512
            level += Int64(rng.int(-2_000...2_000))
            level = max(-80_000, min(80_000, level))
            return level + (phase < 12 ? Int64(900_000 - phase * 60_000) : 0)
        }
        return (start, voltages)
    }

    /// The Watch's short, back-to-back step samples over each walk it saw.
    private func watchChunks() -> [(start: Int64, end: Int64, steps: Int64)] {
        var rng = rng(100)
        var out = [(start: Int64, end: Int64, steps: Int64)]()
        for bout in bouts where bout.coverage != .phoneOnly {
            var at = bout.start
            let end = bout.start + Int64(bout.duration)
            while at < end {
                let next = min(at + Int64(rng.int(60...150)), end)
                out.append((at, next, Int64(bout.cadence) * (next - at) / 60))
                at = next
            }
        }
        return out
    }

    /// The iPhone's longer step samples: inside the Watch's span for `.both`, over the whole walk
    /// for `.phoneOnly`, and for `.partial` a first sample of 600 s (an even count) that starts
    /// 300 s before the Watch's first.
    private func phoneChunks() -> [(start: Int64, end: Int64, steps: Int64)] {
        var rng = rng(101)
        var out = [(start: Int64, end: Int64, steps: Int64)]()
        for bout in bouts where bout.coverage != .watchOnly {
            var at = bout.start
            let end = bout.start + Int64(bout.duration)
            if bout.coverage == .partial {
                let steps = (Int64(bout.cadence) * 10 * 93 / 100) & ~1
                out.append((bout.start - 300, bout.start + 300, steps))
                at = bout.start + 300
            }
            while at < end {
                let next = min(at + Int64(rng.int(300...600)), end)
                out.append((at, next, Int64(bout.cadence) * (next - at) / 60 * 93 / 100))
                at = next
            }
        }
        return out
    }

    /// Three logged meals a day while the person used a food diary (the middle of the range).
    func meals() -> [(at: Int64, energy: Int64, protein: Int64)] {
        guard fraction >= 0.2 && fraction < 0.6 else { return [] }
        var rng = rng(200)
        return [28800, 45000, 70200].map { base in
            (midnight + Int64(base + rng.int(0...1800)), Int64(rng.int(3000...9000)), Int64(rng.int(100...500)))
        }
    }

    /// A weekly blood-pressure reading from the connected cuff.
    func bloodPressure() -> [(at: Int64, systolic: Int64, diastolic: Int64)] {
        guard fraction >= 0.1, index % 7 == 2 else { return [] }
        var rng = rng(201)
        return [(midnight + Int64(29700 + rng.int(0...900)), Int64(rng.int(105...135)), Int64(rng.int(65...85)))]
    }
}
