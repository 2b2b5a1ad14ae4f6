import EfferentTestSupport

/// `Workout` elements in the three shapes of their eras: legacy total attributes (old years),
/// `WorkoutStatistics` children (iOS 16 on), and nested `WorkoutActivity`/`WorkoutEvent` with a
/// `WorkoutRoute` → `FileReference` (recent years).
extension ExportXMLWriter {
    func writeWorkout(_ workout: DayPlan.Workout, plan: DayPlan) {
        let legacy = plan.fraction < 0.5
        let recent = plan.fraction >= 0.7
        let end = workout.start + Int64(workout.duration)
        let split = quirks.multiLineAttributes
        out.append(" <Workout workoutActivityType=\"")
        out.append(Array(workout.kind.rawValue.utf8))
        out.append("\" duration=\"")
        appendMinutes(workout.duration)
        out.append("\" durationUnit=\"min\"")
        if legacy {
            if let distance = workout.distanceCentimeters {
                out.append(" totalDistance=\"")
                out.appendDecimal(distance, scale: 5)
                out.append("\" totalDistanceUnit=\"km\"")
            }
            out.append(" totalEnergyBurned=\"")
            out.appendDecimal(workout.energyMillikcal, scale: 3)
            out.append("\" totalEnergyBurnedUnit=\"kcal\"")
        }
        appendSourceAttributes(workout.source, plan: plan, address: workout.start, split: split)
        appendDates(start: workout.start, end: end, split: split)
        out.append(">\n")
        let copies = recent && quirks.duplicateMetadataKeys ? 2 : 1
        for _ in 0..<copies {
            appendMetadata("HKTimeZone", ExportTimeline.zoneIdentifier, indent: "  ")
            appendMetadata("HKIndoorWorkout", workout.kind == .yoga || workout.kind == .strength ? "1" : "0", indent: "  ")
            if !legacy {
                out.append("  <MetadataEntry key=\"HKAverageMETs\" value=\"")
                out.appendDecimal(Int64(workout.energyMillikcal / Int64(max(workout.duration, 1))), scale: 2)
                out.append(quirks.characterReferenceInUnit ? " kcal/hr&#183;kg\"/>\n" : " kcal/hr·kg\"/>\n")
            }
        }
        if recent {
            appendEvent("HKWorkoutEventTypeSegment", at: workout.start, seconds: workout.duration / 2, indent: "  ")
            appendEvent("HKWorkoutEventTypeSegment", at: workout.start + Int64(workout.duration / 2),
                        seconds: workout.duration - workout.duration / 2, indent: "  ")
            out.append("  <WorkoutActivity uuid=\"")
            appendUUID(workout.start)
            out.append("\" startDate=\"")
            out.appendAppleDate(workout.start, offset: offset)
            out.append("\" endDate=\"")
            out.appendAppleDate(end, offset: offset)
            out.append("\" duration=\"")
            appendMinutes(workout.duration)
            out.append("\" durationUnit=\"min\">\n")
            appendEvent("HKWorkoutEventTypePause", at: workout.start + 600, seconds: nil, indent: "   ")
            appendEvent("HKWorkoutEventTypeResume", at: workout.start + 600, seconds: nil, indent: "   ")
            appendStatistics(workout, plan: plan, indent: "   ")
            out.append("  </WorkoutActivity>\n")
        }
        if !legacy { appendStatistics(workout, plan: plan, indent: "  ") }
        if workout.hasRoute {
            let path = TruthBuilder.routePath(workout, timeline: timeline)
            out.append("  <WorkoutRoute sourceName=\"")
            out.append(workout.source.attribute(quirks: quirks))
            out.append("\" sourceVersion=\"")
            out.append(Array(workout.source.version(year: plan.date.year).utf8))
            out.append("\"")
            appendDates(start: workout.start, end: end, split: false)
            out.append(">\n   <FileReference path=\"/")
            out.append(Array(path.utf8))
            out.append("\"/>\n  </WorkoutRoute>\n")
        }
        out.append(" </Workout>\n")
    }

    /// Minutes with five decimals, from whole seconds.
    private func appendMinutes(_ seconds: Int) {
        out.appendDecimal(Int64(seconds) * 100_000 / 60, scale: 5)
    }

    private func appendEvent(_ type: StaticString, at instant: Int64, seconds: Int?, indent: StaticString) {
        out.append(indent)
        out.append("<WorkoutEvent type=\"")
        out.append(type)
        out.append("\" date=\"")
        out.appendAppleDate(instant, offset: offset)
        out.append("\"")
        if let seconds {
            out.append(" duration=\"")
            appendMinutes(seconds)
            out.append("\" durationUnit=\"min\"")
        }
        out.append("/>\n")
    }

    private func appendStatistics(_ workout: DayPlan.Workout, plan: DayPlan, indent: StaticString) {
        let end = workout.start + Int64(workout.duration)
        out.append(indent)
        out.append("<WorkoutStatistics type=\"HKQuantityTypeIdentifierActiveEnergyBurned\" startDate=\"")
        out.appendAppleDate(workout.start, offset: offset)
        out.append("\" endDate=\"")
        out.appendAppleDate(end, offset: offset)
        out.append("\" sum=\"")
        out.appendDecimal(workout.energyMillikcal, scale: 3)
        // Some sources write the same kilocalorie as "Cal".
        out.append(plan.index % 4 == 1 ? "\" unit=\"Cal\"/>\n" : "\" unit=\"kcal\"/>\n")
        if let distance = workout.distanceCentimeters {
            out.append(indent)
            out.append(workout.kind == .cycling
                       ? "<WorkoutStatistics type=\"HKQuantityTypeIdentifierDistanceCycling\" startDate=\""
                       : "<WorkoutStatistics type=\"HKQuantityTypeIdentifierDistanceWalkingRunning\" startDate=\"")
            out.appendAppleDate(workout.start, offset: offset)
            out.append("\" endDate=\"")
            out.appendAppleDate(end, offset: offset)
            out.append("\" sum=\"")
            out.appendDecimal(distance, scale: 5)
            out.append("\" unit=\"km\"/>\n")
        }
        out.append(indent)
        out.append("<WorkoutStatistics type=\"HKQuantityTypeIdentifierHeartRate\" startDate=\"")
        out.appendAppleDate(workout.start, offset: offset)
        out.append("\" endDate=\"")
        out.appendAppleDate(end, offset: offset)
        out.append("\" average=\"")
        out.appendDecimal(Int64(120_000 + workout.start % 30_000), scale: 3)
        out.append("\" minimum=\"87\" maximum=\"162\" unit=\"count/min\"/>\n")
    }

    /// A UUID-shaped identifier derived from `value`.
    private func appendUUID(_ value: Int64) {
        var rng = SplitMix64(seed: UInt64(bitPattern: value))
        let hex = Array("0123456789ABCDEF".utf8)
        for index in 0..<32 {
            if index == 8 || index == 12 || index == 16 || index == 20 { out.append(byte: UInt8(ascii: "-")) }
            out.append(byte: hex[Int(rng.next() & 0xF)])
        }
    }
}
