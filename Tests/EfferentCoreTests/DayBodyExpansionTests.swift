import Testing
@testable import EfferentCore

/// Expanding a day into NDJSON events (protocol §3.2 rules 2–5, vectors of §13).
@Suite struct DayBodyExpansionTests {
    func ndjson(_ body: String, day: CalendarDay? = nil) throws -> String {
        text(try DayBody(bytes: Array(body.utf8)).decoded().ndjson(day: day))
    }

    @Test func hourlyTotalGetsItsBucketLetter() throws {
        let body = #"{"series":[{"bucket":"hour","d":[3600],"k":"agg","metric":"steps","t":[0],"t0":1754557200,"unit":"count","value":[842]}],"v":2}"#
        #expect(try ndjson(body) == #"{"bucket":"hour","end":"2025-08-07T10:00:00Z","id":"agg:steps:2025-08-07T09:00:00Z:h","metric":"steps","start":"2025-08-07T09:00:00Z","unit":"count","v":1,"value":842}"# + "\n")
        #expect(try ndjson(body, day: CalendarDay("2026-08-07")) == #"{"bucket":"hour","day":"2026-08-07","end":"2025-08-07T10:00:00Z","id":"agg:steps:2025-08-07T09:00:00Z:h","metric":"steps","start":"2025-08-07T09:00:00Z","unit":"count","v":1,"value":842}"# + "\n")
    }

    @Test func collidingIdsAreNumberedInProductionOrder() throws {
        let body = #"{"series":[{"d":[1800,3600],"k":"hk","metric":"sleep","source":"Apple Watch","stage":["asleepDeep","asleepCore"],"t":[0,0],"t0":1754517600}],"v":2}"#
        guard case let .columnar(day) = try DayBody(bytes: Array(body.utf8)).decoded() else { Issue.record("not layout 2"); return }
        let expanded = day.expandedEvents()
        #expect(expanded.map(\.id) == ["hk:sleep:2025-08-06T22:00:00Z#1", "hk:sleep:2025-08-06T22:00:00Z#2"])
        #expect(expanded.map(\.event.stage) == ["asleepDeep", "asleepCore"])
        #expect(try ndjson(body) == """
            {"end":"2025-08-06T22:30:00Z","id":"hk:sleep:2025-08-06T22:00:00Z#1","metric":"sleep","source":"Apple Watch","stage":"asleepDeep","start":"2025-08-06T22:00:00Z","v":1}
            {"end":"2025-08-06T23:00:00Z","id":"hk:sleep:2025-08-06T22:00:00Z#2","metric":"sleep","source":"Apple Watch","stage":"asleepCore","start":"2025-08-06T22:00:00Z","v":1}

            """)
    }

    @Test func collisionsCountOverTheWholeDay() throws {
        let events = [
            try event(.record, "heartRate", source: "A", start: 60, end: 60, value: 1),
            try event(.record, "heartRate", source: "B", start: 60, end: 60, value: 2),
            try event(.record, "heartRate", source: "B", start: 120, end: 120, value: 3),
            try event(.total, "steps", bucket: .day, start: 60, end: 120, value: 4),
            try event(.total, "steps", bucket: .hour, start: 60, end: 120, value: 5),
        ]
        guard case let .columnar(day) = try DayBody(events: events).decoded() else { Issue.record("not layout 2"); return }
        #expect(day.expandedEvents().map(\.id) == [
            "agg:steps:1970-01-01T00:01:00Z:d", "agg:steps:1970-01-01T00:01:00Z:h",
            "hk:heartRate:1970-01-01T00:01:00Z#1", "hk:heartRate:1970-01-01T00:01:00Z#2",
            "hk:heartRate:1970-01-01T00:02:00Z",
        ])
    }

    @Test func workoutColumnsAndRawText() throws {
        let events = [try event(.record, "workout", source: "Ärger/☃", start: 0, end: 1800, activity: "37", duration: 1799.5)]
        let lines = text(try DayBody(events: events).decoded().ndjson())
        #expect(lines == #"{"activity":"37","duration":1799.5,"end":"1970-01-01T00:30:00Z","id":"hk:workout:1970-01-01T00:00:00Z","metric":"workout","source":"Ärger/☃","start":"1970-01-01T00:00:00Z","v":1}"# + "\n")
    }

    @Test func layoutOneLinesPassThrough() throws {
        let body = "{\"id\":\"hk:sleep:ABC\",\"v\":1,\"metric\":\"sleep\"}\n{\"id\":\"agg:steps:2026-08-07T09:00:00Z:h\",\"v\":1}\n"
        #expect(try ndjson(body) == body)
        #expect(try ndjson(body, day: CalendarDay("2026-08-07")) == """
            {"day":"2026-08-07","id":"hk:sleep:ABC","metric":"sleep","v":1}
            {"day":"2026-08-07","id":"agg:steps:2026-08-07T09:00:00Z:h","v":1}

            """)
        #expect(throws: DayBodyError.lineNotObject(line: 2)) { try ndjson("{\"v\":1}\n[1]\n", day: CalendarDay("2026-08-07")) }
        #expect(try ndjson("") == "")
        let objects = try DayBody(bytes: Array(body.utf8)).decoded().lineObjects()
        #expect(objects.map { $0["id"]?.stringValue } == ["hk:sleep:ABC", "agg:steps:2026-08-07T09:00:00Z:h"])
        #expect(throws: DayBodyError.self) { try DecodedDay.lines(["{\"v\":"]).lineObjects() }
    }

    @Test func isoInstants() {
        #expect(ISOInstant.text(0) == "1970-01-01T00:00:00Z")
        #expect(ISOInstant.text(-1) == "1969-12-31T23:59:59Z")
        #expect(ISOInstant.text(1_786_093_200) == "2026-08-07T09:00:00Z")
        #expect(ISOInstant.text(951_825_599) == "2000-02-29T11:59:59Z")
        #expect(ISOInstant.text(DayEvent.earliestSecond) == "0001-01-01T00:00:00Z")
        #expect(ISOInstant.text(DayEvent.latestSecond) == "9999-12-31T23:59:59Z")
    }
}
