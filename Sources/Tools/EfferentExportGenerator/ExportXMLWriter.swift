/// Writes the main XML in the order Apple does — header, records grouped by type then source
/// then time, correlations, workouts, activity summaries — streaming into a sink a megabyte at a
/// time, regenerating each day's plan per stream instead of holding the whole export.
final class ExportXMLWriter {
    let options: ExportOptions
    let timeline: ExportTimeline
    let truths: ExportTruths
    let sink: any ExportSink
    var out = TextBuffer(capacity: 1 << 21)
    private(set) var bytesWritten: Int64 = 0
    var quirks: ExportQuirks { options.quirks }
    var offset: Int { timeline.exportOffset }

    init(options: ExportOptions, timeline: ExportTimeline, truths: ExportTruths, sink: any ExportSink) {
        self.options = options
        self.timeline = timeline
        self.truths = truths
        self.sink = sink
    }

    func write() throws {
        writeHeader()
        var controlCharacterWritten = !quirks.controlCharacter
        for stream in RecordStream.allCases {
            for index in 0..<timeline.dayCount {
                let plan = DayPlan(index: index, timeline: timeline, seed: options.seed)
                let split = quirks.multiLineAttributes && index % 5 == 0
                for sample in plan.samples(stream) {
                    writeRecord(stream, sample, plan: plan, split: split, indent: " ")
                }
                try flushIfFull()
            }
            if stream == .bodyMassManual && quirks.futureDatedRecord {
                let plan = DayPlan(index: timeline.dayCount - 1, timeline: timeline, seed: options.seed)
                let at = FutureRecord.instant
                writeRecord(stream, Sample(start: at, end: at, value: 1602, variant: 1), plan: plan, split: false, indent: " ")
            }
        }
        for index in 0..<timeline.dayCount {
            let plan = DayPlan(index: index, timeline: timeline, seed: options.seed)
            writeCorrelations(plan, controlCharacter: &controlCharacterWritten)
            try flushIfFull()
        }
        for index in 0..<timeline.dayCount {
            let plan = DayPlan(index: index, timeline: timeline, seed: options.seed)
            if let workout = plan.workout { writeWorkout(workout, plan: plan) }
            try flushIfFull()
        }
        for summary in truths.activitySummaries {
            writeSummary(summary)
            try flushIfFull()
        }
        out.append("</HealthData>\n")
        try flush()
    }

    func flushIfFull() throws {
        if out.bytes.count >= 1 << 20 { try flush() }
    }

    func flush() throws {
        guard !out.bytes.isEmpty else { return }
        try sink.write(out.bytes)
        bytesWritten += Int64(out.bytes.count)
        out.bytes.removeAll(keepingCapacity: true)
    }

    private func writeHeader() {
        out.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        out.append(Array(HealthDoctype.text(quirks.doctype).utf8))
        out.append("<HealthData locale=\"en_FR\">\n <ExportDate value=\"")
        out.appendAppleDate(timeline.exportInstant, offset: offset)
        out.append("\"/>\n <Me HKCharacteristicTypeIdentifierDateOfBirth=\"1988-03-14\" HKCharacteristicTypeIdentifierBiologicalSex=\"HKBiologicalSexFemale\" HKCharacteristicTypeIdentifierBloodType=\"HKBloodTypeAPositive\" HKCharacteristicTypeIdentifierFitzpatrickSkinType=\"HKFitzpatrickSkinTypeNotSet\" HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse=\"None\"/>\n")
    }

    /// `sourceName`, `sourceVersion` and `device` of a record by `source` on `plan`'s day.
    func appendSourceAttributes(_ source: ExportSource, plan: DayPlan, address: Int64, split: Bool) {
        out.append(" sourceName=\"")
        out.append(source.attribute(quirks: quirks))
        out.append(split ? "\"\n  sourceVersion=\"" : "\" sourceVersion=\"")
        out.append(Array(source.version(year: plan.date.year).utf8))
        out.append("\"")
        if source.hasDevice {
            out.append(split ? "\n  device=\"" : " device=\"")
            let hash = UInt64(bitPattern: address) &* 0x9E37_79B9_7F4A_7C15
            source.appendDevice(to: &out, address: 0x2_8000_0000 | (hash >> 36), year: plan.date.year)
            out.append("\"")
        }
    }

    /// `creationDate`, `startDate`, `endDate`; the creation date trails the end by a few minutes.
    func appendDates(start: Int64, end: Int64, split: Bool) {
        out.append(split ? "\n  creationDate=\"" : " creationDate=\"")
        out.appendAppleDate(end + 5 + (start &* 7) % 600, offset: offset)
        out.append("\" startDate=\"")
        out.appendAppleDate(start, offset: offset)
        out.append(split ? "\"\n  endDate=\"" : "\" endDate=\"")
        out.appendAppleDate(end, offset: offset)
        out.append("\"")
    }

    func appendMetadata(_ key: String, _ value: String, indent: String) {
        out.append(indent)
        out.append("<MetadataEntry key=\"")
        out.append(key)
        out.append("\" value=\"")
        out.appendEscaped(value)
        out.append("\"/>\n")
    }

    private func writeSummary(_ summary: ExportTruths.ActivitySummary) {
        out.append(" <ActivitySummary dateComponents=\"")
        out.appendDate(summary.date)
        out.append("\" activeEnergyBurned=\"")
        out.appendDecimal(Int64((summary.activeEnergyKcal * 1000).rounded()), scale: 3)
        out.append("\" activeEnergyBurnedGoal=\"500\" activeEnergyBurnedUnit=\"kcal\" appleMoveTime=\"0\" appleMoveTimeGoal=\"0\" appleExerciseTime=\"")
        out.appendInt(summary.exerciseMinutes)
        out.append("\" appleExerciseTimeGoal=\"30\" appleStandHours=\"")
        out.appendInt(summary.standHours)
        out.append("\" appleStandHoursGoal=\"12\"/>\n")
    }
}
