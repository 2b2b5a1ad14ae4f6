/// Names a person reads, made from the protocol's metric names (decision A.9 writes them as
/// HealthKit's identifiers in lower camel case): `heartRateVariability` → "Heart rate
/// variability", `workout.heartRate.average` → "Workout: heart rate, average".
extension MetricCatalogue {
    /// Words kept as written rather than lowered.
    static let wordsAsWritten: [String: String] = ["vo2": "VO2", "uv": "UV", "apple": "Apple", "ecg": "ECG", "hrv": "HRV", "spo2": "SpO2"]

    public static func humanName(of metric: String) -> String {
        let parts = metric.split(separator: ".").map { words(of: $0) }
        guard var first = parts.first?.joined(separator: " "), !first.isEmpty else { return metric }
        first = first.prefix(1).uppercased() + first.dropFirst()
        let rest = parts.dropFirst().map { $0.joined(separator: " ") }
        return rest.isEmpty ? first : first + ": " + rest.joined(separator: ", ")
    }

    /// `appleExerciseTimeGoal` → apple(→Apple), exercise, time, goal: a word starts at each capital.
    static func words(of part: Substring) -> [String] {
        var words = [String]()
        var current = ""
        for character in part {
            if character.isUppercase, !current.isEmpty {
                words.append(current)
                current = ""
            }
            current.append(character)
        }
        if !current.isEmpty { words.append(current) }
        return words.map { word in wordsAsWritten[word.lowercased()] ?? word.lowercased() }
    }
}
