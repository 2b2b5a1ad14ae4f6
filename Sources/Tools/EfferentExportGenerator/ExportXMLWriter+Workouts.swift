import EfferentTestSupport

/// `Workout` elements in the three shapes of their eras: legacy total attributes (old years),
/// `WorkoutStatistics` children (iOS 16 on), and nested `WorkoutActivity`/`WorkoutEvent` with a
/// `WorkoutRoute` → `FileReference` (recent years); what each holds is `WorkoutElements`'.
extension ExportXMLWriter {
    func writeWorkout(_ workout: DayPlan.Workout, plan: DayPlan) {
        let elements = WorkoutElements(workout, plan: plan, quirks: quirks)
        let end = workout.end
        let split = quirks.multiLineAttributes
        out.append(" <Workout workoutActivityType=\"")
        out.append(Array(workout.kind.rawValue.utf8))
        out.append("\" duration=\"")
        appendMinutes(workout.duration)
        out.append("\" durationUnit=\"min\"")
        if let distance = elements.legacyDistance {
            out.append(" totalDistance=\"")
            out.appendDecimal(distance.value, scale: distance.scale)
            out.append("\" totalDistanceUnit=\"km\"")
        }
        if let energy = elements.legacyEnergy {
            out.append(" totalEnergyBurned=\"")
            out.appendDecimal(energy.value, scale: energy.scale)
            out.append("\" totalEnergyBurnedUnit=\"kcal\"")
        }
        appendSourceAttributes(workout.source, plan: plan, address: workout.start, split: split)
        appendDates(start: workout.start, end: end, split: split)
        out.append(">\n")
        let copies = elements.recent && quirks.duplicateMetadataKeys ? 2 : 1
        for _ in 0..<copies {
            appendMetadata("HKTimeZone", ExportTimeline.zoneIdentifier, indent: "  ")
            for entry in elements.metadata {
                out.append("  <MetadataEntry key=\"")
                out.append(Array(entry.key.utf8))
                out.append("\" value=\"")
                out.append(entry.text)
                out.append("\"/>\n")
            }
        }
        for event in elements.events { appendEvent(event, indent: "  ") }
        if elements.recent {
            out.append("  <WorkoutActivity uuid=\"")
            appendUUID(workout.start)
            out.append("\" startDate=\"")
            out.appendAppleDate(workout.start, offset: offset)
            out.append("\" endDate=\"")
            out.appendAppleDate(end, offset: offset)
            out.append("\" duration=\"")
            appendMinutes(workout.duration)
            out.append("\" durationUnit=\"min\">\n")
            for event in elements.activityEvents { appendEvent(event, indent: "   ") }
            for statistic in elements.activityStatistics { appendStatistic(statistic, workout, indent: "   ") }
            out.append("  </WorkoutActivity>\n")
        }
        for statistic in elements.statistics { appendStatistic(statistic, workout, indent: "  ") }
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

    private func appendEvent(_ event: WorkoutElements.Event, indent: String) {
        out.append(indent)
        out.append("<WorkoutEvent type=\"")
        out.append(Array(event.type.utf8))
        out.append("\" date=\"")
        out.appendAppleDate(event.at, offset: offset)
        out.append("\"")
        if let seconds = event.seconds {
            out.append(" duration=\"")
            appendMinutes(seconds)
            out.append("\" durationUnit=\"min\"")
        }
        out.append("/>\n")
    }

    private func appendStatistic(_ statistic: WorkoutElements.Statistic, _ workout: DayPlan.Workout, indent: String) {
        out.append(indent)
        out.append("<WorkoutStatistics type=\"")
        out.append(Array(statistic.type.utf8))
        out.append("\" startDate=\"")
        out.appendAppleDate(workout.start, offset: offset)
        out.append("\" endDate=\"")
        out.appendAppleDate(workout.end, offset: offset)
        out.append("\"")
        for (name, number) in statistic.values {
            out.append(" ")
            out.append(Array(name.utf8))
            out.append("=\"")
            out.appendDecimal(number.value, scale: number.scale)
            out.append("\"")
        }
        out.append(" unit=\"")
        out.append(Array(statistic.unit.utf8))
        out.append("\"/>\n")
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
