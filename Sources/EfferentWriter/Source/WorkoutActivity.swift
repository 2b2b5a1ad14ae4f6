/// `HKWorkoutActivityType` names → the raw numbers the wire carries as text (§4.2: `"37"`).
public enum WorkoutActivity {
    /// HealthKit's list: every case of `HKWorkoutActivityType` (the iOS 18 SDK), by the name after
    /// the prefix, and its raw value.
    public static let numbers: [String: Int] = [
        "AmericanFootball": 1, "Archery": 2, "AustralianFootball": 3, "Badminton": 4, "Baseball": 5, "Basketball": 6,
        "Bowling": 7, "Boxing": 8, "Climbing": 9, "Cricket": 10, "CrossTraining": 11, "Curling": 12, "Cycling": 13,
        "Dance": 14, "DanceInspiredTraining": 15, "Elliptical": 16, "EquestrianSports": 17, "Fencing": 18, "Fishing": 19,
        "FunctionalStrengthTraining": 20, "Golf": 21, "Gymnastics": 22, "Handball": 23, "Hiking": 24, "Hockey": 25,
        "Hunting": 26, "Lacrosse": 27, "MartialArts": 28, "MindAndBody": 29, "MixedMetabolicCardioTraining": 30,
        "PaddleSports": 31, "Play": 32, "PreparationAndRecovery": 33, "Racquetball": 34, "Rowing": 35, "Rugby": 36,
        "Running": 37, "Sailing": 38, "SkatingSports": 39, "SnowSports": 40, "Soccer": 41, "Softball": 42, "Squash": 43,
        "StairClimbing": 44, "SurfingSports": 45, "Swimming": 46, "TableTennis": 47, "Tennis": 48, "TrackAndField": 49,
        "TraditionalStrengthTraining": 50, "Volleyball": 51, "Walking": 52, "WaterFitness": 53, "WaterPolo": 54,
        "WaterSports": 55, "Wrestling": 56, "Yoga": 57, "Barre": 58, "CoreTraining": 59, "CrossCountrySkiing": 60,
        "DownhillSkiing": 61, "Flexibility": 62, "HighIntensityIntervalTraining": 63, "JumpRope": 64, "Kickboxing": 65,
        "Pilates": 66, "Snowboarding": 67, "Stairs": 68, "StepTraining": 69, "WheelchairWalkPace": 70,
        "WheelchairRunPace": 71, "TaiChi": 72, "MixedCardio": 73, "HandCycling": 74, "DiscSports": 75,
        "FitnessGaming": 76, "CardioDance": 77, "SocialDance": 78, "Pickleball": 79, "Cooldown": 80,
        "SwimBikeRun": 82, "Transition": 83, "UnderwaterDiving": 84, "Other": 3000,
    ]

    static let lowercased: [String: Int] = Dictionary(uniqueKeysWithValues: numbers.map { ($0.key.lowercased(), $0.value) })

    /// `HKWorkoutActivityTypeRunning`, `running` or `37` → `"37"`; none → `"3000"` (other). A name
    /// this version does not know is kept as it came, never taken for "other": the day says what
    /// the input said, `efferent overview` names it, and a later version that knows it maps it.
    public static func number(_ name: String?) -> String {
        guard let name, !name.isEmpty else { return "3000" }
        if name.allSatisfy(Self.isDigit) { return name }
        return known(name).map(String.init) ?? name
    }

    /// HealthKit's raw value for `HKWorkoutActivityTypeRunning`, `Running`, `running` or `37`; nil
    /// for a name HealthKit's list does not hold.
    public static func known(_ name: String) -> Int? {
        if !name.isEmpty, name.allSatisfy(isDigit) { return Int(name) }
        let bare = name.hasPrefix("HKWorkoutActivityType") ? String(name.dropFirst("HKWorkoutActivityType".count)) : name
        return numbers[bare] ?? lowercased[bare.lowercased()]
    }

    static func isDigit(_ character: Character) -> Bool { character.isASCII && character.isNumber }

    /// HealthKit's umbrella cases and the cases of their families, which a sender may name with one
    /// word (the PulsHealth app's `dance` and `snow_sports`): Dance (14) for dance-inspired
    /// training, cardio dance and social dance; SnowSports (40) for cross-country and downhill
    /// skiing and snowboarding.
    static let families: [Int: [Int]] = [14: [15, 77, 78], 40: [60, 61, 67]]

    /// The other activities that may name the same workout as `number` (decision A.14), as
    /// `,n,m,` for a look-up in SQL: an umbrella case's family, or a family member's umbrella case;
    /// nil for any other activity.
    static func family(_ number: String) -> String? {
        guard let value = Int(number) else { return nil }
        if let members = families[value] { return "," + members.map(String.init).joined(separator: ",") + "," }
        if let umbrella = families.first(where: { $0.value.contains(value) })?.key { return ",\(umbrella)," }
        return nil
    }

    /// The distance type a workout's legacy `totalDistance` counts, by its activity number: what
    /// HealthKit records for that activity (walking and running unless the activity says otherwise).
    public static func distanceType(_ number: String) -> String {
        let type = switch number {
        case "13", "74": "DistanceCycling"
        case "46": "DistanceSwimming"
        case "70", "71": "DistanceWheelchair"
        case "61", "67": "DistanceDownhillSnowSports"
        case "60": "DistanceCrossCountrySkiing"
        case "35": "DistanceRowing"
        case "31": "DistancePaddleSports"
        case "39": "DistanceSkatingSports"
        default: "DistanceWalkingRunning"
        }
        return "HKQuantityTypeIdentifier" + type
    }
}
