/// Computes `ExportTruths` from the day plans — the same plans the XML is written from, so what
/// the file says and what the truths claim cannot drift apart.
struct TruthBuilder {
    let options: ExportOptions
    let timeline: ExportTimeline

    func build() -> ExportTruths {
        var days = [DailyTotals]()
        var counts = [String: Int]()
        var types = [String: Int]()
        var parts = [String: Int]()
        var total = 0
        var nights = [ExportTruths.SleepNight]()
        var workouts = [ExportTruths.Workout]()
        var summaries = [ExportTruths.ActivitySummary]()
        var tallies = [String: OverlapTally]()
        var partials = 0

        for index in 0..<timeline.dayCount {
            let plan = DayPlan(index: index, timeline: timeline, seed: options.seed)
            var totals = DailyTotals(date: plan.date)
            var byMetric = [DailyTotals.Metric: [(sample: Sample, priority: Int)]]()
            var standHours = 0
            for stream in RecordStream.allCases {
                let samples = plan.samples(stream)
                counts[stream.countedMetric, default: 0] += samples.count
                types[stream.type, default: 0] += samples.count
                if stream == .heartRateVariability { parts["InstantaneousBeatsPerMinute", default: 0] += samples.count * 8 }
                total += samples.count
                if stream == .stand { standHours = samples.count }
                guard let metric = stream.totalMetric, !samples.isEmpty else { continue }
                byMetric[metric, default: []] += samples.map { ($0, stream.source.priority) }
            }
            for (metric, samples) in byMetric {
                let (sum, tally) = CoverageDeduplicator.total(samples)
                totals[metric] = Self.canonical(sum, metric: metric)
                if metric == .steps || metric == .distance {
                    var running = tallies[metric.rawValue] ?? OverlapTally(fullyCovered: 0, partlyCovered: 0, uncovered: 0)
                    running.fullyCovered += tally.fullyCovered
                    running.partlyCovered += tally.partlyCovered
                    running.uncovered += tally.uncovered
                    tallies[metric.rawValue] = running
                }
            }
            partials += plan.bouts.filter { $0.coverage == .partial }.count
            if !byMetric.isEmpty { days.append(totals) }

            if plan.watchEra {
                for attribute in ["activeEnergyBurned", "activeEnergyBurnedGoal", "appleMoveTime", "appleMoveTimeGoal", "appleExerciseTime",
                                  "appleExerciseTimeGoal", "appleStandHours", "appleStandHoursGoal"] {
                    parts["ActivitySummary \(attribute)", default: 0] += 1
                }
                summaries.append(ExportTruths.ActivitySummary(date: plan.date, activeEnergyKcal: totals.activeEnergyKcal ?? 0,
                                                              exerciseMinutes: Int(totals.exerciseMinutes ?? 0), standHours: standHours))
            }
            if let night = plan.night { nights.append(Self.night(night, date: plan.date)) }
            if let workout = plan.workout {
                let elements = WorkoutElements(workout, plan: plan, quirks: options.quirks)
                for (key, count) in elements.counts { parts[key, default: 0] += count }
                let fixes = workout.hasRoute ? GPXRoute.fixCount(for: workout) : nil
                if let fixes { parts["WorkoutRoute trkpt", default: 0] += fixes }
                let heart = elements.statistics.first { $0.type == "HKQuantityTypeIdentifierHeartRate" }?.values.first { $0.name == "average" }
                workouts.append(ExportTruths.Workout(
                    activityType: workout.kind.rawValue, start: workout.start, durationSeconds: workout.duration,
                    source: workout.source.name, energyKcal: Double(workout.energyMillikcal) / 1000,
                    distanceMeters: workout.distanceCentimeters.map { Double($0) / 100 },
                    routeFile: workout.hasRoute ? Self.routePath(workout, timeline: timeline) : nil,
                    routeFixes: fixes, averageHeartRate: heart.map { Double($0.number.value) / 1000 },
                    swimmingStrokes: workout.strokes.map(Int.init)))
            }
            if let ecg = plan.electrocardiogram {
                parts["Electrocardiogram", default: 0] += 1
                parts["Electrocardiogram voltage", default: 0] += ecg.voltages.count
            }
        }
        var future = [LocalDate]()
        if options.quirks.futureDatedRecord {
            future.append(FutureRecord.date)
            counts["bodyMass", default: 0] += 1
            types["HKQuantityTypeIdentifierBodyMass", default: 0] += 1
            total += 1
        }
        var offsetText = TextBuffer()
        offsetText.appendAppleDate(0, offset: timeline.exportOffset)
        return ExportTruths(
            seed: options.seed, years: options.years, timeZone: ExportTimeline.zoneIdentifier,
            exportOffset: String(decoding: offsetText.bytes.suffix(5), as: UTF8.self),
            firstDate: timeline.date(ofDay: 0), lastDate: timeline.date(ofDay: timeline.dayCount - 1),
            days: days, recordCounts: counts, typeCounts: types, partCounts: parts, totalRecords: total, sleepNights: nights, workouts: workouts,
            activitySummaries: summaries, overlapTallies: tallies, plannedPartialOverlaps: partials,
            futureDatedRecordDates: future,
            mainXMLPath: "apple_health_export/" + (options.quirks.localizedFileName ? "eksport.xml" : "export.xml"))
    }

    /// A fixed-point sum in the metric's protocol unit.
    static func canonical(_ sum: Double, metric: DailyTotals.Metric) -> Double {
        switch metric {
        case .distance, .distanceCycling, .distanceSwimming: sum / 100 // centimetres → m
        case .activeEnergy, .basalEnergy: sum / 1000 // millikilocalories → kcal
        case .dietaryEnergy: sum / 10 // tenths of kcal → kcal
        default: sum
        }
    }

    static func night(_ night: DayPlan.Night, date: LocalDate) -> ExportTruths.SleepNight {
        var truth = ExportTruths.SleepNight(wakeDate: date, inBedSeconds: 0, asleepSeconds: 0, awakeSeconds: 0,
                                            coreSeconds: 0, deepSeconds: 0, remSeconds: 0, unspecifiedSeconds: 0)
        if let inBed = night.inBed { truth.inBedSeconds = Int(inBed.end - inBed.start) }
        for stretch in night.stretches {
            let length = Int(stretch.end - stretch.start)
            switch stretch.stage {
            case .core: truth.coreSeconds += length
            case .deep: truth.deepSeconds += length
            case .rem: truth.remSeconds += length
            case .awake: truth.awakeSeconds += length
            case .legacyAsleep, .unspecified: truth.unspecifiedSeconds += length
            case .inBed: break
            }
            if stretch.stage.isAsleep { truth.asleepSeconds += length }
        }
        return truth
    }

    /// `workout-routes/route_2025-09-16_6.15pm.gpx` (under `apple_health_export/`): named after the local
    /// END time with the zone's true offset that day (§1.1, §1.4).
    static func routePath(_ workout: DayPlan.Workout, timeline: ExportTimeline) -> String {
        let end = workout.start + Int64(workout.duration)
        let wall = end + Int64(timeline.localOffset(at: end))
        let days = Int(wall / 86400)
        let second = Int(wall % 86400)
        let hour24 = second / 3600
        let hour = hour24 % 12 == 0 ? 12 : hour24 % 12
        var text = TextBuffer()
        text.append("workout-routes/route_")
        text.appendDate(LocalDate(daysSinceEpoch: days))
        text.append("_")
        text.appendInt(hour)
        text.append(".")
        text.appendTwoDigits(second / 60 % 60)
        text.append(hour24 < 12 ? "am.gpx" : "pm.gpx")
        return String(decoding: text.bytes, as: UTF8.self)
    }
}
