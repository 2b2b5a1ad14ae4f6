import EfferentCore

/// A `Workout`'s children (decision A.9): `WorkoutStatistics` → `workout.<type>.<aggregate>`
/// (`workout.activity.…` inside a `WorkoutActivity`), `WorkoutEvent` → `workout.event`,
/// `WorkoutActivity` → `workout.activity`, measured `MetadataEntry`s → `workout.elevationAscended`
/// and the like, inline `Location`s → route fixes, `FileReference` → the GPX file's source. The
/// legacy `totalDistance`/`totalEnergyBurned` attributes become statistics only when the workout
/// has no `WorkoutStatistics` of the same kind (exports from iOS 16 on carry both for old workouts).
extension HealthExportReader {
    func openWorkout(_ tag: XMLTag) throws {
        guard let workout = pendingWorkout else { return }
        legacyParts.removeAll(keepingCapacity: true)
        metadataParts.removeAll(keepingCapacity: true)
        insideActivity = false
        let activity = WorkoutActivity.number(workout.activity)
        if let distance = tag.rawAttribute("totalDistance").flatMap(DecimalText.parse) {
            let type = WorkoutActivity.distanceType(activity)
            legacyParts.append(part(RecordParts.workoutStatistic(type, .sum), workout.start, workout.end, distance,
                                    tag.attribute("totalDistanceUnit") ?? "km"))
        }
        if let energy = tag.rawAttribute("totalEnergyBurned").flatMap(DecimalText.parse) {
            legacyParts.append(part(RecordParts.workoutStatistic("HKQuantityTypeIdentifierActiveEnergyBurned", .sum), workout.start,
                                    workout.end, energy, tag.attribute("totalEnergyBurnedUnit") ?? "kcal"))
        }
        if let strokes = tag.rawAttribute("totalSwimmingStrokeCount").flatMap(DecimalText.parse) {
            legacyParts.append(part(RecordParts.workoutStatistic("HKQuantityTypeIdentifierSwimmingStrokeCount", .sum), workout.start,
                                    workout.end, strokes, "count"))
        }
        if let flights = tag.rawAttribute("totalFlightsClimbed").flatMap(DecimalText.parse) {
            legacyParts.append(part(RecordParts.workoutStatistic("HKQuantityTypeIdentifierFlightsClimbed", .sum), workout.start,
                                    workout.end, flights, "count"))
        }
    }

    func openInWorkout(_ tag: XMLTag, level: Int) throws {
        guard let workout = pendingWorkout else { return }
        if level == 2 {
            if tag.nameIs("MetadataEntry") {
                if tag.attribute("key", is: "HKTimeZone") {
                    pendingWorkout?.timeZone = tag.attribute("value")
                    if let zone = pendingWorkout?.timeZone { gatheredEvidence.named[zone, default: 0] += 1 }
                } else {
                    try measuredMetadata(tag, workout)
                }
            } else if tag.nameIs("WorkoutRoute") {
                let routeSource = tag.rawAttribute("sourceName") == nil ? workout.source : source(tag)
                pendingRoute = WorkoutRoute(file: nil, source: tag.attribute("sourceName"), points: 0, start: nil, end: nil)
                routeWriter = SampleSeriesWriter(sink: sink, source: routeSource, deviceModel: workout.deviceModel)
            } else if tag.nameIs("WorkoutActivity") {
                let seconds = Self.seconds(tag, "duration", "durationUnit")
                if let seconds { activityDurations += seconds }
                insideActivity = tag.kind == .start
                let start = try date(tag, "startDate")
                workoutParts.append(SourceRecord(kind: .part, type: RecordParts.workoutActivity, source: workout.source,
                                                 deviceModel: workout.deviceModel, start: start, end: try date(tag, "endDate"),
                                                 activity: workout.activity, duration: seconds))
            } else if tag.nameIs("WorkoutEvent") {
                try event(tag, workout)
            } else if tag.nameIs("WorkoutStatistics") {
                try statistics(tag, workout, inActivity: false)
            }
        } else if level == 3 {
            if pendingRoute != nil {
                if tag.nameIs("Location") {
                    try location(tag)
                } else if tag.nameIs("FileReference"), let path = tag.attribute("path") {
                    let file = path.hasPrefix("/") ? String(path.dropFirst()) : path
                    pendingRoute?.file = file
                    referencedRouteFiles.append(file)
                    routeSources[file] = (routeWriter?.source ?? workout.source, workout.deviceModel)
                }
            } else if insideActivity {
                if tag.nameIs("WorkoutEvent") {
                    try event(tag, workout)
                } else if tag.nameIs("WorkoutStatistics") {
                    try statistics(tag, workout, inActivity: true)
                }
            }
        }
    }

    func closeInWorkout(level: Int, _ tag: XMLTag) throws {
        guard level == 2 else { return }
        if let route = pendingRoute {
            pendingRoute = nil
            routeWriter = nil
            // A route with a FileReference is counted when its GPX file is read.
            if route.file == nil, route.points > 0 {
                routeCount += 1
                try sink.workoutRoute(route)
            }
        } else if tag.nameIs("WorkoutActivity") {
            insideActivity = false
        }
    }

    /// The workout record, then its parts; legacy totals only where no statistic says the same.
    func closeWorkout() throws {
        guard var workout = pendingWorkout else { return }
        pendingWorkout = nil
        if workout.duration == nil { workout.duration = activityDurations > 0 ? activityDurations : workout.end - workout.start }
        try sink.record(workout)
        let present = Set(workoutParts.map(\.type))
        for part in workoutParts { try sink.record(part) }
        for key in metadataParts.keys.sorted() { try sink.record(metadataParts[key]!) }
        for part in legacyParts where !present.contains(part.type) { try sink.record(part) }
        workoutParts.removeAll(keepingCapacity: true)
    }

    private func part(_ metric: String, _ start: Double, _ end: Double, _ value: Double?, _ unit: String?) -> SourceRecord {
        SourceRecord(kind: .part, type: metric, source: pendingWorkout?.source ?? "", deviceModel: pendingWorkout?.deviceModel,
                     start: start, end: end, value: value, unit: unit)
    }

    private func statistics(_ tag: XMLTag, _ workout: SourceRecord, inActivity: Bool) throws {
        guard let type = tag.attribute("type") else { return }
        let start = try date(tag, "startDate"), end = try date(tag, "endDate")
        let unit = tag.attribute("unit")
        let aggregates: [(RecordParts.Aggregate, StaticString)] = [(.sum, "sum"), (.average, "average"), (.minimum, "minimum"),
                                                                    (.maximum, "maximum")]
        for (aggregate, attribute) in aggregates {
            guard let value = tag.rawAttribute(attribute).flatMap(DecimalText.parse) else { continue }
            workoutParts.append(part(RecordParts.workoutStatistic(type, aggregate, inActivity: inActivity), start, end, value, unit))
        }
    }

    private func event(_ tag: XMLTag, _ workout: SourceRecord) throws {
        guard let type = tag.attribute("type") else { return }
        guard let number = RecordParts.workoutEventTypes[type] else {
            try sink.leftOut(LeftOut("WorkoutEvent", .unreadable("event type \(type) is not one HealthKit defines")))
            return
        }
        let start = try date(tag, "date")
        workoutParts.append(part(RecordParts.workoutEvent, start, start + (Self.seconds(tag, "duration", "durationUnit") ?? 0),
                                 Double(number), nil))
    }

    /// `HKElevationAscended="6575 cm"`, `HKWeatherTemperature="61.9694 degF"`, `HKIndoorWorkout="1"`:
    /// a number and the unit written after it. `HKWeatherHumidity` is written ×100 (`6400 %` for
    /// 64 %, apple-health-export.md §1.3) and becomes a fraction like every `%`.
    private func measuredMetadata(_ tag: XMLTag, _ workout: SourceRecord) throws {
        guard let key = tag.attribute("key"), let part = RecordParts.workoutMetadata[key], let text = tag.attribute("value") else { return }
        let pieces = text.split(separator: " ", maxSplits: 1)
        guard let first = pieces.first, var value = DecimalText.parse(ArraySlice(first.utf8)) else {
            try sink.leftOut(LeftOut(key, .unreadable("a workout metadata value that is not a number")))
            return
        }
        var unit = pieces.count > 1 ? pieces[1].trimmingCharacters(in: .whitespaces) : part.unit
        if key == "HKWeatherHumidity" {
            value /= value > 100 ? 10_000 : 100
            unit = "%"
        }
        metadataParts[part.metric] = self.part(part.metric, workout.start, workout.end, value, unit)
    }

    private func location(_ tag: XMLTag) throws {
        pendingRoute?.points += 1
        var fix = RouteFix(latitude: tag.rawAttribute("latitude").flatMap(DecimalText.parse),
                           longitude: tag.rawAttribute("longitude").flatMap(DecimalText.parse),
                           altitude: tag.rawAttribute("altitude").flatMap(DecimalText.parse),
                           speed: tag.rawAttribute("speed").flatMap(DecimalText.parse),
                           course: tag.rawAttribute("course").flatMap(DecimalText.parse),
                           horizontalAccuracy: tag.rawAttribute("horizontalAccuracy").flatMap(DecimalText.parse),
                           verticalAccuracy: tag.rawAttribute("verticalAccuracy").flatMap(DecimalText.parse))
        if let raw = tag.rawAttribute("date"), case let .instant(instant) = ExportDate.appleHealth(raw) {
            fix.time = instant
            pendingRoute?.include(instant)
        }
        guard let writer = routeWriter else { return }
        if try !fix.write(to: writer) { try sink.leftOut(LeftOut("workout route fix", .unreadable("no time or no coordinates"))) }
    }
}
