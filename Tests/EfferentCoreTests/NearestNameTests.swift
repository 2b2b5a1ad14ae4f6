import Testing
@testable import EfferentCore

/// What a refusal suggests for a mistyped name.
@Suite struct NearestNameTests {
    static let metrics = ["steps", "distanceWalkingRunning", "distanceCycling", "heartRate", "walkingSpeed", "restingHeartRate"]

    @Test func slipsAndCaseFindTheName() {
        #expect(NearestName.closest(to: "stepz", in: Self.metrics) == "steps")
        #expect(NearestName.closest(to: "Steps", in: Self.metrics) == "steps")
        #expect(NearestName.closest(to: "heart_rate", in: Self.metrics) == "heartRate")
        #expect(NearestName.closest(to: "groupBy", in: ["group_by", "metric"]) == "group_by")
    }

    @Test func theSameWordsInAnotherOrderFindTheName() {
        #expect(NearestName.words("walkingRunningDistance") == ["distance", "running", "walking"])
        #expect(NearestName.closest(to: "walkingRunningDistance", in: Self.metrics) == "distanceWalkingRunning")
        #expect(NearestName.closest(to: "cycling_distance", in: Self.metrics) == "distanceCycling")
        #expect(NearestName.closest(to: "HeartRateResting", in: Self.metrics) == "restingHeartRate")
    }

    @Test func farNamesSuggestNothing() {
        #expect(NearestName.closest(to: "bloodGlucose", in: Self.metrics) == nil)
        #expect(NearestName.closest(to: "speed", in: Self.metrics) == nil)
    }
}
