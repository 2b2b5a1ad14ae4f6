@testable import EfferentReader
import Testing

@Suite struct MetricNameTests {
    @Test(arguments: [
        ("heartRateVariability", "Heart rate variability"), ("steps", "Steps"), ("vo2Max", "VO2 max"), ("uvExposure", "UV exposure"),
        ("workout.heartRate.average", "Workout: heart rate, average"), ("workoutRoute.latitude", "Workout route: latitude"),
        ("activitySummary.appleExerciseTimeGoal", "Activity summary: Apple exercise time goal"), ("appleStandHour", "Apple stand hour"),
        ("electrocardiogram.voltage", "Electrocardiogram: voltage"), ("", ""),
    ])
    func namesReadAsWords(metric: String, name: String) {
        #expect(MetricCatalogue.humanName(of: metric) == name)
    }
}
