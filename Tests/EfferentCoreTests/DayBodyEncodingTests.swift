import EfferentCompression
import Testing
@testable import EfferentCore

/// The canonical bytes of layout 2 (protocol §3.1, decisions A.4 and A.5).
@Suite struct DayBodyEncodingTests {
    /// The example body of §3.1, whose digest §13 gives.
    static let example = #"{"series":[{"bucket":"hour","d":[3600],"k":"agg","metric":"steps","t":[0],"t0":1786093200,"unit":"count","value":[842]},{"d":[0,0],"k":"hk","metric":"heartRate","source":"Apple Watch","t":[0,42],"t0":1786093200,"unit":"count/min","value":[60,61]},{"d":[1800,3600],"k":"hk","metric":"sleep","source":"Apple Watch","stage":["asleepDeep","asleepCore"],"t":[0,0],"t0":1786053600}],"v":2}"#

    static func exampleEvents() throws -> [DayEvent] {
        [
            try event(.record, "sleep", source: "Apple Watch", start: 1_786_053_600, end: 1_786_057_200, stage: "asleepCore"),
            try event(.record, "heartRate", unit: "count/min", source: "Apple Watch", start: 1_786_093_242, end: 1_786_093_242, value: 61),
            try event(.total, "steps", bucket: .hour, unit: "count", start: 1_786_093_200, end: 1_786_096_800, value: 842),
            try event(.record, "sleep", source: "Apple Watch", start: 1_786_053_600, end: 1_786_055_400, stage: "asleepDeep"),
            try event(.record, "heartRate", unit: "count/min", source: "Apple Watch", start: 1_786_093_200, end: 1_786_093_200, value: 60),
        ]
    }

    @Test func exampleBodyIsByteExactWithItsDigest() throws {
        let body = DayBody(events: try Self.exampleEvents())
        #expect(text(body.bytes) == Self.example)
        #expect(Hex.encode(body.fingerprint) == "c1038de7b39f1b543dc35d86db64786c60c81bd295a1760ca562851f55d46e9f")
    }

    @Test func emptyDayAndTimeZonePlacement() throws {
        #expect(text(DayBody(events: []).bytes) == #"{"series":[],"v":2}"#)
        #expect(text(DayBody(events: [], timeZone: "Europe/Berlin").bytes) == #"{"series":[],"tz":"Europe/Berlin","v":2}"#)
        let one = try event(.total, "steps", bucket: .day, start: 0, end: 86_400, value: 1201)
        #expect(text(DayBody(events: [one], timeZone: "America/Argentina/Buenos_Aires").bytes)
            == #"{"series":[{"bucket":"day","d":[86400],"k":"agg","metric":"steps","t":[0],"t0":0,"value":[1201]}],"tz":"America/Argentina/Buenos_Aires","v":2}"#)
    }

    /// §3.1 / §12 item 2: Swift's order, not the reference packers' JSON-text order.
    @Test func seriesOrderCornerCases() throws {
        let events = [
            try event(.record, "heartRate", source: "iPhone 15", start: 10, end: 10, value: 3),
            try event(.record, "heartRate", source: "iPhone", start: 10, end: 10, value: 2),
            try event(.record, "heartRate", start: 10, end: 10, value: 1),
            try event(.record, "aaa", start: 10, end: 10),
            try event(.total, "zzz", bucket: .hour, start: 10, end: 10),
            try event(.total, "zzz", bucket: .day, start: 10, end: 10),
        ]
        let body = text(DayBody(events: events).bytes)
        let order = [
            #""bucket":"day","d":[0],"k":"agg","metric":"zzz""#,
            #""bucket":"hour","d":[0],"k":"agg","metric":"zzz""#,
            #""metric":"aaa""#,
            #""metric":"heartRate","t""#,
            #""source":"iPhone","t""#,
            #""source":"iPhone 15","t""#,
        ]
        var cursor = body.startIndex
        for piece in order {
            let found = try #require(body.range(of: piece, range: cursor..<body.endIndex), "\(piece) out of order")
            cursor = found.upperBound
        }
    }

    @Test func columnsKeepNullGapsInPlace() throws {
        let events = [
            try event(.record, "workout", start: 100, end: 700, value: 1),
            try event(.record, "workout", start: 200, end: 300, stage: "awake"),
            try event(.record, "workout", start: 300, end: 400, value: 3, activity: "37", duration: 100.5),
        ]
        #expect(text(DayBody(events: events.reversed()).bytes)
            == #"{"series":[{"activity":[null,null,"37"],"d":[600,100,100],"duration":[null,null,100.5],"k":"hk","metric":"workout","stage":[null,"awake",null],"t":[0,100,100],"t0":100,"value":[1,null,3]}],"v":2}"#)
    }

    @Test func rowsOrderByStartEndThenColumnsAbsentFirst() throws {
        let events = [
            try event(.record, "m", start: 5, end: 9, value: 2),
            try event(.record, "m", start: 5, end: 9, value: 1),
            try event(.record, "m", start: 5, end: 9),
            try event(.record, "m", start: 5, end: 6, value: 7),
            try event(.record, "m", start: 5, end: 9, value: 1, stage: "b"),
            try event(.record, "m", start: 5, end: 9, value: 1, stage: "a"),
            try event(.record, "m", start: 1, end: 9, value: -1),
        ]
        #expect(text(DayBody(events: events).bytes)
            == #"{"series":[{"d":[8,1,4,4,4,4,4],"k":"hk","metric":"m","stage":[null,null,null,null,"a","b",null],"t":[0,4,0,0,0,0,0],"t0":1,"value":[-1,7,null,1,1,1,2]}],"v":2}"#)
    }

    @Test func stringsAndNumbersFollowDecisionA5() throws {
        let events = [try event(.record, "a/b", unit: "ü\"\\\n", start: 0, end: 0, value: 0.1, duration: 1e20)]
        #expect(text(DayBody(events: events).bytes)
            == "{\"series\":[{\"d\":[0],\"duration\":[1e+20],\"k\":\"hk\",\"metric\":\"a/b\",\"t\":[0],\"t0\":0,\"unit\":\"ü\\\"\\\\\\n\",\"value\":[0.1]}],\"v\":2}")
    }

    @Test func eventsAreValidatedWithTypedErrors() {
        #expect(throws: DayBodyError.emptyMetric) { try event(.record, "", start: 0, end: 0) }
        #expect(throws: DayBodyError.endBeforeStart) { try event(.record, "m", start: 1, end: 0) }
        #expect(throws: DayBodyError.totalWithoutBucket) { try event(.total, "m", start: 0, end: 0) }
        #expect(throws: DayBodyError.recordWithBucket) { try event(.record, "m", bucket: .hour, start: 0, end: 0) }
        #expect(throws: DayBodyError.nonFiniteNumber) { try event(.record, "m", start: 0, end: 0, value: .nan) }
        #expect(throws: DayBodyError.nonFiniteNumber) { try event(.record, "m", start: 0, end: 0, duration: .infinity) }
        #expect(throws: DayBodyError.instantOutOfRange) { try event(.record, "m", start: 0, end: 253_402_300_800) }
        #expect(DayEvent.floorSeconds(1.9) == 1)
        #expect(DayEvent.floorSeconds(-0.5) == -1)
        #expect(DayEvent.floorSeconds(.nan) == nil)
    }

    @Test func compressionRoundTripsAndIsCapped() throws {
        let body = DayBody(events: try Self.exampleEvents())
        let deflated = try body.deflated(using: try Deflater())
        #expect(try DayBody.inflate(deflated) == body)
        let bomb = try Deflater().compress([UInt8](repeating: 0x20, count: ProtocolLimits.maxInflatedBytes + 1))
        #expect(throws: DayBodyError.deflate(.tooLarge(ProtocolLimits.maxInflatedBytes))) { try DayBody.inflate(bomb) }
        #expect(throws: DayBodyError.self) { try DayBody.inflate(Array(deflated.dropLast(3))) }
    }
}
