/// What a `Workout` element holds in its era — legacy total attributes, metadata, statistics,
/// events, a nested `WorkoutActivity` — computed once, so the XML writer writes exactly what the
/// truths count.
struct WorkoutElements {
    /// A fixed-point number written with `scale` decimals.
    struct Number {
        var value: Int64
        var scale: Int
    }

    struct Statistic {
        var type: String
        /// `sum`, `average`, `minimum`, `maximum` as present.
        var values: [(name: String, number: Number)]
        var unit: String
    }

    struct Event {
        var type: String
        var at: Int64
        var seconds: Int?
    }

    struct Metadata {
        var key: String
        /// Already escaped for XML.
        var text: [UInt8]
    }

    let kind: DayPlan.WorkoutKind
    /// Before iOS 16 totals lived in attributes; recent workouts nest a `WorkoutActivity`.
    let legacy: Bool
    let recent: Bool
    let legacyDistance: Number?
    let legacyEnergy: Number?
    /// Every `MetadataEntry` but `HKTimeZone`, once (recent workouts write the list twice).
    let metadata: [Metadata]
    let statistics: [Statistic]
    let events: [Event]
    /// The nested activity's own events and statistics (recent workouts only).
    let activityEvents: [Event]
    let activityStatistics: [Statistic]

    init(_ workout: DayPlan.Workout, plan: DayPlan, quirks: ExportQuirks) {
        kind = workout.kind
        legacy = plan.fraction < 0.5
        recent = plan.fraction >= 0.7
        legacyDistance = legacy ? workout.distanceCentimeters.map { Number(value: $0, scale: 5) } : nil
        legacyEnergy = legacy ? Number(value: workout.energyMillikcal, scale: 3) : nil
        var metadata = [Metadata(key: "HKIndoorWorkout", text: Array((workout.kind.isOutdoor ? "0" : "1").utf8))]
        if !legacy {
            var mets = TextBuffer()
            mets.appendDecimal(Int64(workout.energyMillikcal / Int64(max(workout.duration, 1))), scale: 2)
            mets.append(quirks.characterReferenceInUnit ? " kcal/hr&#183;kg" : " kcal/hr·kg")
            metadata.append(Metadata(key: "HKAverageMETs", text: mets.bytes))
        }
        if let elevation = workout.elevationCentimeters {
            var text = TextBuffer()
            text.appendInt(elevation)
            text.append(" cm")
            metadata.append(Metadata(key: "HKElevationAscended", text: text.bytes))
            // Weather, as the Watch writes it outdoors: °F, and humidity ×100 (6400 % is 64 %).
            var temperature = TextBuffer()
            temperature.appendDecimal(Int64(500 + elevation % 400), scale: 1)
            temperature.append(" degF")
            metadata.append(Metadata(key: "HKWeatherTemperature", text: temperature.bytes))
            var humidity = TextBuffer()
            humidity.appendInt(Int64(3000 + elevation % 60 * 100))
            humidity.append(" %")
            metadata.append(Metadata(key: "HKWeatherHumidity", text: humidity.bytes))
        }
        if workout.kind == .swimming {
            metadata.append(Metadata(key: "HKSwimmingLocationType", text: Array("1".utf8)))
            metadata.append(Metadata(key: "HKLapLength", text: Array("25 m".utf8)))
        }
        self.metadata = metadata
        var statistics = [Statistic]()
        if !legacy {
            // Some sources write the same kilocalorie as "Cal".
            statistics.append(Statistic(type: "HKQuantityTypeIdentifierActiveEnergyBurned",
                                        values: [("sum", Number(value: workout.energyMillikcal, scale: 3))],
                                        unit: plan.index % 4 == 1 ? "Cal" : "kcal"))
            if let distance = workout.distanceCentimeters {
                let type = switch workout.kind {
                case .cycling: "HKQuantityTypeIdentifierDistanceCycling"
                case .swimming: "HKQuantityTypeIdentifierDistanceSwimming"
                default: "HKQuantityTypeIdentifierDistanceWalkingRunning"
                }
                statistics.append(Statistic(type: type, values: [("sum", Number(value: distance, scale: 5))], unit: "km"))
            }
            if let strokes = workout.strokes {
                statistics.append(Statistic(type: "HKQuantityTypeIdentifierSwimmingStrokeCount",
                                            values: [("sum", Number(value: strokes, scale: 0))], unit: "count"))
            }
            statistics.append(Statistic(type: "HKQuantityTypeIdentifierHeartRate",
                                        values: [("average", Number(value: Int64(120_000 + workout.start % 30_000), scale: 3)),
                                                 ("minimum", Number(value: 87, scale: 0)), ("maximum", Number(value: 162, scale: 0))],
                                        unit: "count/min"))
        }
        self.statistics = statistics
        if recent {
            let half = workout.duration / 2
            events = [Event(type: "HKWorkoutEventTypeSegment", at: workout.start, seconds: half),
                      Event(type: "HKWorkoutEventTypeSegment", at: workout.start + Int64(half), seconds: workout.duration - half)]
            activityEvents = [Event(type: "HKWorkoutEventTypePause", at: workout.start + 600, seconds: nil),
                              Event(type: "HKWorkoutEventTypeResume", at: workout.start + 600, seconds: nil)]
            activityStatistics = statistics
        } else {
            events = []
            activityEvents = []
            activityStatistics = []
        }
    }

    /// What the truths count for this workout, by the element each part comes from:
    /// `WorkoutStatistics <type> <aggregate>` (with `WorkoutActivity ` in front when nested),
    /// `Workout@totalDistance <activity type>`, `MetadataEntry <key>`, `WorkoutEvent`, `WorkoutActivity`.
    var counts: [String: Int] {
        var counts = [String: Int]()
        for statistic in statistics { for value in statistic.values { counts["WorkoutStatistics \(statistic.type) \(value.name)", default: 0] += 1 } }
        for statistic in activityStatistics {
            for value in statistic.values { counts["WorkoutActivity WorkoutStatistics \(statistic.type) \(value.name)", default: 0] += 1 }
        }
        if legacyDistance != nil { counts["Workout@totalDistance \(kind.rawValue)", default: 0] += 1 }
        if legacyEnergy != nil { counts["Workout@totalEnergyBurned", default: 0] += 1 }
        for entry in metadata { counts["MetadataEntry \(entry.key)", default: 0] += 1 }
        counts["WorkoutEvent", default: 0] += events.count + activityEvents.count
        if recent { counts["WorkoutActivity", default: 0] += 1 }
        return counts.filter { $0.value > 0 }
    }
}
