import EfferentTestSupport

/// `Record` elements, as Apple writes them for each stream.
extension ExportXMLWriter {
    func writeRecord(_ stream: RecordStream, _ sample: Sample, plan: DayPlan, split: Bool, indent: String) {
        out.append(indent)
        out.append("<Record type=\"")
        out.append(Array(stream.type.utf8))
        out.append("\"")
        appendSourceAttributes(stream.source, plan: plan, address: sample.start &+ Int64(stream.rawValue), split: split)
        switch stream {
        case .standHour:
            appendDates(start: sample.start, end: sample.end, split: split)
            out.append(sample.variant == 0 ? " value=\"HKCategoryValueAppleStandHourStood\"/>\n" : " value=\"HKCategoryValueAppleStandHourIdle\"/>\n")
            return
        case .mindfulSession:
            // Mindful sessions have no value at all (HealthKit's notApplicable).
            appendDates(start: sample.start, end: sample.end, split: split)
            out.append("/>\n")
            return
        case .sleepWatch, .sleepPhone:
            appendDates(start: sample.start, end: sample.end, split: split)
            out.append(" value=\"")
            out.append(Array(SleepStage.allCases[Int(sample.variant)].rawValue.utf8))
            out.append("\">\n")
            out.append(indent)
            appendMetadata("HKTimeZone", ExportTimeline.zoneIdentifier, indent: "  ")
            out.append(indent)
            out.append("</Record>\n")
            return
        default:
            break
        }
        out.append(split ? "\n  unit=\"" : " unit=\"")
        appendUnit(stream, sample)
        out.append("\"")
        appendDates(start: sample.start, end: sample.end, split: split)
        out.append(" value=\"")
        appendValue(stream, sample)
        out.append("\"")
        switch stream {
        case .heartRate:
            out.append(">\n")
            out.append(indent)
            out.append(" <MetadataEntry key=\"HKMetadataKeyHeartRateMotionContext\" value=\"")
            out.appendInt(Int(sample.variant))
            out.append("\"/>\n")
            out.append(indent)
            out.append("</Record>\n")
        case .heartRateVariability:
            out.append(">\n")
            out.append(indent)
            out.append(" <HeartRateVariabilityMetadataList>\n")
            appendBeats(sample, plan: plan, indent: indent)
            out.append(indent)
            out.append(" </HeartRateVariabilityMetadataList>\n")
            out.append(indent)
            out.append("</Record>\n")
        case .bodyMassManual:
            out.append(">\n")
            out.append(indent)
            appendMetadata("HKWasUserEntered", "1", indent: " ")
            out.append(indent)
            out.append("</Record>\n")
        default:
            out.append("/>\n")
        }
    }

    private func appendUnit(_ stream: RecordStream, _ sample: Sample) {
        switch stream {
        case .stepsWatch, .stepsPhone, .flightsWatch, .flightsPhone: out.append("count")
        case .distanceWatch, .distancePhone: out.append("km")
        case .activeEnergy, .basalEnergy: out.append(sample.variant == 1 ? "kJ" : "kcal")
        case .exercise, .stand: out.append("min")
        case .heartRate, .restingHeartRate, .respiratoryRate: out.append("count/min")
        case .heartRateVariability: out.append("ms")
        case .oxygenSaturation: out.append("%")
        case .vo2Max: out.append(quirks.characterReferenceInUnit ? "mL/min&#183;kg" : "mL/min·kg")
        case .bodyMassScale, .bodyMassManual: out.append(sample.variant == 1 ? "lb" : "kg")
        case .dietaryEnergy: out.append("kcal")
        case .dietaryProtein: out.append("g")
        case .systolic, .diastolic: out.append("mmHg")
        case .distanceCycling, .distanceSwimming: out.append("m")
        case .swimmingStrokes: out.append("count")
        case .walkingHeartRateAverage: out.append("count/min")
        case .bodyFat: out.append("%")
        case .audioExposure: out.append("dBASPL")
        case .walkingSpeed: out.append("km/hr")
        case .walkingStepLength: out.append("cm")
        case .sleepWatch, .sleepPhone, .standHour, .mindfulSession: break
        }
    }

    private func appendValue(_ stream: RecordStream, _ sample: Sample) {
        if (stream == .activeEnergy || stream == .basalEnergy) && sample.variant == 1 {
            // millikilocalories × 4.184 J = kJ with six decimals, exactly.
            out.appendDecimal(sample.value * 4184, scale: 6)
        } else {
            out.appendDecimal(sample.value, scale: stream.scale)
        }
    }

    /// Beat-to-beat readings, their times of day in the export locale (en_FR: `08:01:02,35`).
    private func appendBeats(_ sample: Sample, plan: DayPlan, indent: String) {
        var rng = SplitMix64(seed: UInt64(bitPattern: sample.start))
        var centiseconds = Int(sample.start - plan.midnight) * 100
        for _ in 0..<8 {
            let bpm = rng.int(55...80)
            out.append(indent)
            out.append("  <InstantaneousBeatsPerMinute bpm=\"")
            out.appendInt(bpm)
            out.append("\" time=\"")
            let seconds = centiseconds / 100 % 86400
            out.appendTwoDigits(seconds / 3600)
            out.append(":")
            out.appendTwoDigits(seconds / 60 % 60)
            out.append(":")
            out.appendTwoDigits(seconds % 60)
            out.append(",")
            out.appendTwoDigits(centiseconds % 100)
            out.append("\"/>\n")
            centiseconds += 6000 / bpm
        }
    }
}
