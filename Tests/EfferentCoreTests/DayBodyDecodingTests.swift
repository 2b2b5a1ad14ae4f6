import Testing
@testable import EfferentCore

/// Reading layout 2 strictly and telling it from layout 1 (protocol §3.2 rule 1, §3.3).
@Suite struct DayBodyDecodingTests {
    func decode(_ body: String) throws(DayBodyError) -> DecodedDay {
        try DayBody(bytes: Array(body.utf8)).decoded()
    }

    func columnar(_ body: String) throws -> ColumnarDay {
        guard case let .columnar(day) = try decode(body) else { Issue.record("not layout 2"); throw DayBodyError.missingField("series") }
        return day
    }

    @Test func exampleDecodesToItsEvents() throws {
        let day = try columnar(DayBodyEncodingTests.example)
        #expect(day.timeZone == nil)
        #expect(day.series.count == 3)
        #expect(tally(day.events) == tally(try DayBodyEncodingTests.exampleEvents()))
        #expect(DayBody(events: day.events).bytes == Array(DayBodyEncodingTests.example.utf8))
    }

    @Test func timeZoneIsRead() throws {
        #expect(try columnar(#"{"series":[],"tz":"Europe/Berlin","v":2}"#).timeZone == "Europe/Berlin")
        #expect(throws: DayBodyError.wrongType(field: "tz", expected: "a string")) { try decode(#"{"series":[],"tz":5,"v":2}"#) }
    }

    @Test func layoutDetection() throws {
        #expect(try decode("") == .lines([]))
        #expect(try decode(" \n\t ") == .lines([]))
        #expect(try decode("  {\"series\":[],\"v\":2}\n") == .columnar(ColumnarDay(series: [], timeZone: nil)))
        // A pretty-printed body holds a newline, so it is layout 1 by the rule of §3.2.
        #expect(try decode("{\"series\":[],\n\"v\":2}") == .lines(["{\"series\":[],", "\"v\":2}"]))
        // Also when the line feed stands inside a column, where the fast reader hands over to the checked one.
        #expect(try decode("{\"series\":[{\"d\":[0,\n0],\"k\":\"hk\",\"metric\":\"m\",\"t\":[0,1],\"t0\":0}],\"v\":2}")
                == .lines(["{\"series\":[{\"d\":[0,", "0],\"k\":\"hk\",\"metric\":\"m\",\"t\":[0,1],\"t0\":0}],\"v\":2}"]))
        #expect(try decode(#"{"id":"a","v":1}"#) == .lines([#"{"id":"a","v":1}"#]))
        #expect(try decode("{\"id\":\"a\",\"v\":1}\r\n\n{\"id\":\"b\",\"v\":1}\n") == .lines([#"{"id":"a","v":1}"#, #"{"id":"b","v":1}"#]))
        #expect(throws: DayBodyError.notUTF8) { try DayBody(bytes: [0x7B, 0xFF, 0x7D]).decoded() }
    }

    @Test func otherLayoutsAreRefusedWithTheProtocolSentence() throws {
        #expect(throws: DayBodyError.unsupportedLayout("3")) { try decode(#"{"series":[],"v":3}"#) }
        do {
            _ = try decode(#"{"series":[],"v":3}"#)
        } catch {
            #expect(error.description == "this day is written in layout 3, and this reader speaks 2")
        }
        #expect(throws: DayBodyError.unsupportedLayout("none")) { try decode(#"{"series":[]}"#) }
        #expect(throws: DayBodyError.unsupportedLayout("\"2\"")) { try decode(#"{"series":[],"v":"2"}"#) }
        #expect(try decode(#"{"series":[],"v":2.0}"#) == .columnar(ColumnarDay(series: [], timeZone: nil)))
    }

    @Test func malformedBodiesThrowTypedErrors() {
        let cases: [(String, DayBodyError)] = [
            (#"{"series":[{"d":[0],"k":"hk","metric":"m","t":[0],"t0":0,"value":[1,2]}],"v":2}"#, .columnLengthMismatch("value")),
            (#"{"series":[{"d":[0,0],"k":"hk","metric":"m","t":[0],"t0":0}],"v":2}"#, .columnLengthMismatch("d")),
            (#"{"series":[{"d":[0],"k":"hk","metric":"m","stage":[],"t":[0],"t0":0}],"v":2}"#, .columnLengthMismatch("stage")),
            (#"{"series":[{"d":[0],"k":"hk","metric":"m","t":[1.5],"t0":0}],"v":2}"#, .notInteger("t")),
            (#"{"series":[{"d":["0"],"k":"hk","metric":"m","t":[0],"t0":0}],"v":2}"#, .notInteger("d")),
            (#"{"series":[{"d":[0],"k":"hk","metric":"m","t":[0],"t0":"0"}],"v":2}"#, .notInteger("t0")),
            (#"{"series":[{"d":[0],"k":"hk","metric":"m","t":[0],"t0":1e300}],"v":2}"#, .notInteger("t0")),
            (#"{"series":[{"d":[0],"k":"hk","metric":"m","t":[0]}],"v":2}"#, .missingField("t0")),
            (#"{"series":[{"d":[0],"k":"hk","metric":"m","t0":0}],"v":2}"#, .missingField("t")),
            (#"{"series":[{"d":[0],"metric":"m","t":[0],"t0":0}],"v":2}"#, .missingField("k")),
            (#"{"series":[{"d":[0],"k":"hk","t":[0],"t0":0}],"v":2}"#, .missingField("metric")),
            (#"{"series":[{"d":[0],"id":"x","k":"hk","metric":"m","t":[0],"t0":0}],"v":2}"#, .unknownField("id")),
            (#"{"series":[],"v":2,"zz":1}"#, .unknownTopLevelField("zz")),
            (#"{"series":[{"d":[0],"k":1,"metric":"m","t":[0],"t0":0}],"v":2}"#, .wrongType(field: "k", expected: "a string")),
            (#"{"series":[{"d":[0],"k":"x","metric":"m","t":[0],"t0":0}],"v":2}"#, .unknownKind),
            (#"{"series":[{"d":[0],"k":"hk","metric":null,"t":[0],"t0":0}],"v":2}"#, .wrongType(field: "metric", expected: "a string")),
            (#"{"series":[{"d":[0],"k":"hk","metric":"","t":[0],"t0":0}],"v":2}"#, .wrongType(field: "metric", expected: "a non-empty string")),
            (#"{"series":[{"d":[0],"k":"hk","metric":"m","source":null,"t":[0],"t0":0}],"v":2}"#, .wrongType(field: "source", expected: "a string")),
            (#"{"series":[{"d":[0],"k":"hk","metric":"m","t":[0],"t0":0,"value":["1"]}],"v":2}"#, .wrongType(field: "value", expected: "an array of numbers and nulls")),
            (#"{"series":[{"d":[0],"k":"hk","metric":"m","t":[0],"t0":0,"value":7}],"v":2}"#, .wrongType(field: "value", expected: "an array of numbers and nulls")),
            (#"{"series":[{"d":[0],"k":"hk","metric":"m","stage":[1],"t":[0],"t0":0}],"v":2}"#, .wrongType(field: "stage", expected: "an array of strings and nulls")),
            (#"{"series":[{"d":[0],"k":"hk","metric":"m","t":5,"t0":0}],"v":2}"#, .wrongType(field: "t", expected: "an array of integers")),
            (#"{"series":{},"v":2}"#, .wrongType(field: "series", expected: "an array")),
            (#"{"series":[1],"v":2}"#, .wrongType(field: "series", expected: "an array of objects")),
            (#"{"series":[{"bucket":"week","d":[0],"k":"agg","metric":"m","t":[0],"t0":0}],"v":2}"#, .unknownBucket),
            (#"{"series":[{"d":[0],"k":"agg","metric":"m","t":[0],"t0":0}],"v":2}"#, .totalWithoutBucket),
            (#"{"series":[{"bucket":"day","d":[0],"k":"hk","metric":"m","t":[0],"t0":0}],"v":2}"#, .recordWithBucket),
            (#"{"series":[{"d":[-1],"k":"hk","metric":"m","t":[0],"t0":0}],"v":2}"#, .endBeforeStart),
            (#"{"series":[{"d":[0,0],"k":"hk","metric":"m","t":[0,9007199254740992],"t0":253402300799}],"v":2}"#, .instantOutOfRange),
            (#"{"series":[{"d":[0],"k":"hk","metric":"m","t":[0],"t0":-62135596801}],"v":2}"#, .instantOutOfRange),
            (#"{"series":[],"v":2,"v":2}"#, .malformedJSON(.duplicateKey("v"))),
            (#"{"series":[],"v":2"#, .malformedJSON(.syntax(offset: 18, what: "the text ends inside an object"))),
        ]
        for (body, expected) in cases {
            #expect(throws: expected, "\(body)") { try decode(body) }
        }
        let deep = "{\"series\":" + String(repeating: "[", count: 200) + String(repeating: "]", count: 200) + ",\"v\":2}"
        #expect(throws: DayBodyError.malformedJSON(.tooDeep)) { try decode(deep) }
    }

    @Test func errorsAreSentencesWithoutValues() {
        let errors: [DayBodyError] = [
            .emptyMetric, .totalWithoutBucket, .recordWithBucket, .endBeforeStart, .instantOutOfRange, .nonFiniteNumber,
            .notUTF8, .malformedJSON(.tooDeep), .missingField("t"), .wrongType(field: "k", expected: "a string"),
            .unknownField("secret"), .unknownTopLevelField("x"), .unknownKind, .unknownBucket,
            .columnLengthMismatch("value"), .notInteger("t"), .lineNotObject(line: 2), .deflate(.corrupt),
        ]
        for error in errors {
            #expect(error.description.hasSuffix("."), "\(error)")
            #expect(error.description.first?.isUppercase == true, "\(error)")
        }
        #expect(DayBodyError.unknownField("foo").description.contains("no column for \"foo\""))
    }
}
