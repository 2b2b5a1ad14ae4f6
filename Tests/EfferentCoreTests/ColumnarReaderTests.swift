import Testing
@testable import EfferentCore

/// The decoder's fast path must read every valid body exactly as the full decoder does, and step
/// aside (to the full decoder's precise error) for everything else.
@Suite struct ColumnarReaderTests {
    @Test func fastPathAgreesWithTheFullDecoderOnRandomDays() throws {
        var random = RandomDays(seed: 0xC0FFEE)
        for _ in 0..<1_000 {
            let body = DayBody(events: random.day(), timeZone: Bool.random(using: &random.rng) ? "Europe/Berlin" : nil)
            let fast = try #require(ColumnarReader.read(body.bytes))
            let object = try #require(try JSONParser.parse(body.bytes).objectValue)
            let full = try DayBodyDecoder.columnar(object)
            #expect(fast == full)
        }
    }

    @Test func stepsAsideForWhatItDoesNotRead() {
        let refused = [
            #"{"series":[],"v":3}"#,                                   // another layout
            #"{"series":[],"v":2,"extra":1}"#,                          // unknown top-level key
            #"{"series":[{"k":"agg","metric":"m","bucket":"day","t0":0,"t":[0],"d":[1],"x":[1]}],"v":2}"#,
            #"{"series":[{"k":"agg","k":"agg","metric":"m","bucket":"day","t0":0,"t":[0],"d":[1]}],"v":2}"#,
            #"{"series":[{"k":"hk","metric":"m","t0":0,"t":[0,1],"d":[1]}],"v":2}"#,   // lengths differ
            #"{"series":[{"k":"hk","metric":"m","t0":0.5,"t":[0],"d":[1]}],"v":2}"#,   // t0 not an integer
            #"{"series":[{"k":"hk","metric":"m","t0":0,"t":[0],"d":[1],"value":["1"]}],"v":2}"#,
            #"{"series":[{"k":"hk","metric":"m","source":null,"t0":0,"t":[0],"d":[1]}],"v":2}"#,
            #"{"series":[{"\u006b":"hk","metric":"m","t0":0,"t":[0],"d":[1]}],"v":2}"#, // escaped name
            #"{"id":"agg:steps:2026-08-07T09:00:00Z:h","v":1}"#,        // a one-line layout-1 day
        ]
        for text in refused { #expect(ColumnarReader.read(Array(text.utf8)) == nil, "\(text)") }
        #expect(ColumnarReader.read(Array(#"{"series":[],"tz":"UTC","v":2}"#.utf8)) == ColumnarDay(series: [], timeZone: "UTC"))
    }

    @Test func shortMemberNamesPackAsTheScannerReadsThem() throws {
        var scanner = JSONScanner(Array(#"{"activity":1,"k":2}"#.utf8))
        try scanner.beginObject()
        #expect(try scanner.nextShortMember() == JSONScanner.pack("activity"))
        #expect(try scanner.readNumber() == 1)
        #expect(try scanner.nextShortMember() == JSONScanner.pack("k"))
        #expect(try scanner.readNumber() == 2)
        #expect(try scanner.nextShortMember() == 0)
        var long = JSONScanner(Array(#"{"ninechars":1}"#.utf8))
        try long.beginObject()
        #expect(throws: JSONError.self) { try long.nextShortMember() }
    }
}

@Suite struct MetricExpansionTests {
    /// Expanding one metric numbers its ids exactly as expanding the whole day does.
    @Test func oneMetricExpandsAsInTheWholeDay() throws {
        var random = RandomDays(seed: 0xBEEF)
        for _ in 0..<500 {
            guard case let .columnar(day) = try DayBody(events: random.day(), timeZone: nil).decoded() else { continue }
            let whole = day.expandedEvents()
            for metric in Set(whole.map(\.event.metric)) {
                #expect(day.expandedEvents(metric: metric) == whole.filter { $0.event.metric == metric })
            }
        }
    }
}
