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
        }
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
