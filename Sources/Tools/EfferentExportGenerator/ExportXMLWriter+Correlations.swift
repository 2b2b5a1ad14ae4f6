/// `Correlation` elements (food, blood pressure) whose child records repeat top-level ones —
/// the DTD itself says so; an importer must count them once.
extension ExportXMLWriter {
    func writeCorrelations(_ plan: DayPlan, controlCharacter written: inout Bool) {
        let mealNames = ["Breakfast", "Lunch", "Dinner"]
        let energies = plan.samples(.dietaryEnergy), proteins = plan.samples(.dietaryProtein)
        for (index, energy) in energies.enumerated() {
            out.append(" <Correlation type=\"HKCorrelationTypeIdentifierFood\"")
            appendSourceAttributes(.myFitnessPal, plan: plan, address: energy.start, split: false)
            appendDates(start: energy.start, end: energy.end, split: false)
            out.append(">\n")
            var meal = mealNames[index % 3]
            if !written {
                // An XML 1.0-illegal vertical tab, as a food app once wrote one (jameno PR #3).
                meal += "\u{0B}"
                written = true
            }
            appendMetadata("meal", meal, indent: "  ")
            writeRecord(.dietaryEnergy, energy, plan: plan, split: false, indent: "  ")
            if index < proteins.count { writeRecord(.dietaryProtein, proteins[index], plan: plan, split: false, indent: "  ") }
            out.append(" </Correlation>\n")
        }
        let systolic = plan.samples(.systolic), diastolic = plan.samples(.diastolic)
        for (index, reading) in systolic.enumerated() where index < diastolic.count {
            out.append(" <Correlation type=\"HKCorrelationTypeIdentifierBloodPressure\"")
            appendSourceAttributes(.healthMate, plan: plan, address: reading.start, split: false)
            appendDates(start: reading.start, end: reading.end, split: false)
            out.append(">\n")
            out.append("  <MetadataEntry key=\"HKExternalUUID\" value=\"IO009")
            out.appendInt(reading.start)
            out.append("MEA\"/>\n")
            // Apple does not fix the order of the two children.
            if plan.index % 2 == 0 {
                writeRecord(.diastolic, diastolic[index], plan: plan, split: false, indent: "  ")
                writeRecord(.systolic, reading, plan: plan, split: false, indent: "  ")
            } else {
                writeRecord(.systolic, reading, plan: plan, split: false, indent: "  ")
                writeRecord(.diastolic, diastolic[index], plan: plan, split: false, indent: "  ")
            }
            out.append(" </Correlation>\n")
        }
    }
}
