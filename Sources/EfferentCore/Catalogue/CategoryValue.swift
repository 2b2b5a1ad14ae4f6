/// HealthKit category values (decision A.9): a category record carries its value as HealthKit's
/// integer, since Apple's export spells it as an enum string (`HKCategoryValueAppleStandHourIdle`)
/// and a PulsHealth batch as the integer itself. Sleep keeps its §4.2 stage strings instead.
public enum CategoryValue {
    /// `HKCategoryValue…` strings → the integer of their Swift enum case.
    public static let integers: [String: Int] = {
        var table: [String: Int] = ["HKCategoryValueNotApplicable": 0]
        func add(_ family: String, _ cases: [(String, Int)]) {
            for (name, value) in cases { table["HKCategoryValue" + family + name] = value }
        }
        add("AppleStandHour", [("Stood", 0), ("Idle", 1)])
        add("Severity", [("Unspecified", 0), ("NotPresent", 1), ("Mild", 2), ("Moderate", 3), ("Severe", 4)])
        add("Presence", [("Present", 0), ("NotPresent", 1)])
        add("AppetiteChanges", [("Unspecified", 0), ("NoChange", 1), ("Decreased", 2), ("Increased", 3)])
        add("CervicalMucusQuality", [("Dry", 1), ("Sticky", 2), ("Creamy", 3), ("Watery", 4), ("EggWhite", 5)])
        add("MenstrualFlow", [("Unspecified", 1), ("Light", 2), ("Medium", 3), ("Heavy", 4), ("None", 5)])
        add("VaginalBleeding", [("Unspecified", 1), ("Light", 2), ("Medium", 3), ("Heavy", 4), ("None", 5)])
        add("OvulationTestResult", [("Negative", 1), ("LuteinizingHormoneSurge", 2), ("Positive", 2), ("Indeterminate", 3),
                                    ("EstrogenSurge", 4)])
        add("PregnancyTestResult", [("Negative", 1), ("Positive", 2), ("Indeterminate", 3)])
        add("ProgesteroneTestResult", [("Negative", 1), ("Positive", 2), ("Indeterminate", 3)])
        add("Contraceptive", [("Unspecified", 1), ("Implant", 2), ("Injection", 3), ("IntrauterineDevice", 4),
                              ("IntravaginalRing", 5), ("Oral", 6), ("Patch", 7)])
        add("EnvironmentalAudioExposureEvent", [("MomentaryLimit", 1)])
        add("AudioExposureEvent", [("LoudEnvironment", 1)])
        add("HeadphoneAudioExposureEvent", [("SevenDayLimit", 1)])
        add("LowCardioFitnessEvent", [("LowFitness", 1)])
        add("AppleWalkingSteadinessEvent", [("InitialLow", 1), ("InitialVeryLow", 2), ("RepeatLow", 3), ("RepeatVeryLow", 4)])
        add("SleepAnalysis", [("InBed", 0), ("Asleep", 1), ("AsleepUnspecified", 1), ("Awake", 2), ("AsleepCore", 3),
                              ("AsleepDeep", 4), ("AsleepREM", 5)])
        return table
    }()

    /// The integer of a category value as an export or a batch writes it: a known enum string, or
    /// the integer itself; nil (no value written) is `HKCategoryValue.notApplicable`, 0. An enum
    /// string this table does not know gives nil, and the record is reported, never guessed.
    public static func integer(_ text: String?) -> Int? {
        guard let text, !text.isEmpty else { return 0 }
        if let known = integers[text] { return known }
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) else { return nil }
        return Int(text)
    }
}
