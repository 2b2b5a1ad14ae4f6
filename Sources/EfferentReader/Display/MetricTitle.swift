import EfferentCore

/// A metric's name as a person reads it: the catalogue's metrics by hand (`Resting heart rate`,
/// `Weight`), every other name by splitting its camel case (`bloodPressureSystolic` → `Blood
/// pressure systolic`, `workout.heartRate.average` → `Workout heart rate average`).
public enum MetricTitle {
    static let named: [String: String] = [
        "steps": "Steps", "distanceWalkingRunning": "Walking + running distance", "activeEnergy": "Active energy",
        "basalEnergy": "Resting energy", "flightsClimbed": "Flights climbed", "exerciseTime": "Exercise minutes",
        "standTime": "Stand minutes", "dietaryEnergy": "Dietary energy", "dietaryProtein": "Protein",
        "dietaryCarbohydrates": "Carbohydrates", "dietaryFat": "Fat", "dietaryWater": "Water", "heartRate": "Heart rate",
        "restingHeartRate": "Resting heart rate", "heartRateVariability": "Heart rate variability (SDNN)",
        "respiratoryRate": "Respiratory rate", "oxygenSaturation": "Blood oxygen", "bodyMass": "Weight", "sleep": "Sleep",
        "workout": "Workouts", "vo2Max": "VO₂ max", "bodyMassIndex": "Body mass index",
        "walkingHeartRateAverage": "Walking heart rate average",
    ]

    /// Words kept as written rather than lowered.
    static let acronyms: Set<String> = ["vo2", "ecg", "uv", "sdnn", "bmi", "hr"]

    public static func of(_ metric: String) -> String {
        if let name = named[metric] { return name }
        var words = [String]()
        for part in metric.split(separator: ".") {
            var word = ""
            for character in part {
                if character.isUppercase, !word.isEmpty, !(word.last?.isUppercase ?? false) {
                    words.append(word)
                    word = ""
                }
                word.append(character)
            }
            if !word.isEmpty { words.append(word) }
        }
        let lowered = words.map { acronyms.contains($0.lowercased()) ? $0.uppercased() : $0.lowercased() }
        guard let first = lowered.first else { return metric }
        return ([first.prefix(1).uppercased() + first.dropFirst()] + lowered.dropFirst()).joined(separator: " ")
    }
}
