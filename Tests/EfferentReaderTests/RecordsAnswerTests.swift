import EfferentCore
import Testing
@testable import EfferentReader

@Suite struct RecordsAnswerTests {
    typealias F = Fixture

    func workouts() throws -> EventList {
        EventList([
            try F.workout("2024-01-01", nil, "2024-01-01T07:00:00Z", minutes: 30, activity: "37"),
            try F.workout("2024-01-02", nil, "2024-01-02T07:00:00Z", minutes: 45, activity: "37"),
            try F.workout("2024-01-02", nil, "2024-01-02T18:00:00Z", minutes: 20, activity: "99"),
            try F.workout("2024-01-03", nil, "2024-01-03T18:00:00Z", minutes: 10, activity: nil),
        ])
    }

    @Test func workoutsAreCountedAndTimedByActivity() throws {
        let answer = try WorkoutsAnswer(from: workouts(), range: F.range("2024-01-01", "2024-01-03"))
        #expect(answer.workouts.map(\.activity) == ["running", "running", "activity-99", "activity-unknown"])
        #expect(try F.json(answer) == #"{"byActivity":{"activity-99":{"count":1,"minutes":20},"activity-unknown":{"count":1,"minutes":10},"running":{"count":2,"minutes":75}},"columns":["start","end","activity","day","minutes"],"rows":[["2024-01-01T07:00:00Z","2024-01-01T07:30:00Z","running","2024-01-01",30],["2024-01-02T07:00:00Z","2024-01-02T07:45:00Z","running","2024-01-02",45],["2024-01-02T18:00:00Z","2024-01-02T18:20:00Z","activity-99","2024-01-02",20],["2024-01-03T18:00:00Z","2024-01-03T18:10:00Z","activity-unknown","2024-01-03",10]],"sameOnEveryRow":{"source":"Watch"},"total":4}"#)
        #expect(answer.table.columns == ["start", "end", "activity", "day", "minutes", "source"])
    }

    @Test func workoutsFilterByActivityNameAndNoteWhenNoneMatch() throws {
        let running = try WorkoutsAnswer(from: workouts(), range: F.range("2024-01-02", "2024-01-03"), activity: "running")
        #expect(running.workouts.map(\.minutes) == [45])
        #expect(running.json["sameOnEveryRow"] == .object([:]))
        let none = try WorkoutsAnswer(from: workouts(), range: F.range("2024-01-02", "2024-01-03"), activity: "yoga")
        #expect(none.json["note"] == .string("no yoga workouts between 2024-01-02 and 2024-01-03."))
        #expect(none.emptyNote == "no yoga workouts between 2024-01-02 and 2024-01-03")
        #expect(throws: AnswerError.unknownActivity("jogging")) {
            try WorkoutsAnswer(from: workouts(), range: F.range("2024-01-02", "2024-01-03"), activity: "jogging")
        }
        #expect(try WorkoutsAnswer(from: workouts(), range: F.range("2024-01-01", "2024-01-03"), activity: "activity-99").workouts.count == 1)
    }

    @Test func aWorkoutsDayIsLocalToItsZone() throws {
        // 01:00 UTC on 05-03 is 21:00 on 05-02 in New York.
        let source = EventList([try F.workout("2024-05-02", "America/New_York", "2024-05-03T01:00:00Z", minutes: 30, activity: "52")])
        let answer = try WorkoutsAnswer(from: source, range: F.range("2024-05-02", "2024-05-02"))
        #expect(answer.workouts.map(\.day) == [F.day("2024-05-02")])
        #expect(try WorkoutsAnswer(from: source, range: F.range("2024-05-03", "2024-05-03")).workouts.isEmpty)
    }

    @Test func samplesHoistSharedFieldsAndStopAtTheLimit() throws {
        let source = EventList([
            try F.reading("heartRate", "2024-01-01", nil, "2024-01-01T08:00:00Z", 60),
            try F.reading("heartRate", "2024-01-01", nil, "2024-01-01T08:01:00Z", 61),
            try F.reading("heartRate", "2024-01-01", nil, "2024-01-01T08:02:00Z", 62),
            try F.reading("restingHeartRate", "2024-01-01", nil, "2024-01-01T08:00:00Z", 50),
        ])
        let answer = try SamplesAnswer(from: source, metric: "heartRate", range: F.range("2024-01-01", "2024-01-01"), limit: 2)
        #expect(try F.json(answer) == #"{"columns":["start","end","value"],"matched":3,"metric":"heartRate","next":{"offset":2},"note":"rows 1–2 of 3; ask again with offset 2 for the next page.","returned":2,"rows":[["2024-01-01T08:00:00Z","2024-01-01T08:00:00Z",60],["2024-01-01T08:01:00Z","2024-01-01T08:01:00Z",61]],"sameOnEveryRow":{"day":"2024-01-01","kind":"record","source":"Watch","unit":"count/min"}}"#)
        let one = try SamplesAnswer(from: source, metric: "restingHeartRate", range: F.range("2024-01-01", "2024-01-01"))
        #expect(one.json["sameOnEveryRow"] == .object([:]))
        #expect(one.json["columns"]?.arrayValue?.count == 7)
    }

    @Test func samplesOfADayTotalDoNotLeakIntoTheNextDay() throws {
        let source = EventList([try F.total("steps", "2024-01-01", 1000), try F.total("steps", "2024-01-02", 2000)])
        let answer = try SamplesAnswer(from: source, metric: "steps", range: F.range("2024-01-02", "2024-01-02"))
        #expect(answer.matched == 1)
        #expect(answer.events.first?.event.value == 2000)
    }

    @Test func samplesOfOxygenSaturationSayTheValueIsAFraction() throws {
        let source = EventList([try F.reading("oxygenSaturation", "2024-01-01", nil, "2024-01-01T08:00:00Z", 0.97, unit: "%")])
        let answer = try SamplesAnswer(from: source, metric: "oxygenSaturation", range: F.range("2024-01-01", "2024-01-01"))
        #expect(answer.json["unitNote"]?.stringValue?.hasPrefix("fraction of 1") == true)
    }
}
