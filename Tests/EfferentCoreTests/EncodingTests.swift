import Testing
@testable import EfferentCore

@Suite struct EncodingTests {
    /// Protocol §1.6 / §13: `protocol_test.ts`.
    @Test func base32OfFoobar() {
        #expect(Base32.encodeLower(Array("foobar".utf8)) == "mzxw6ytboi")
        #expect(Base32.encodeLower([UInt8]()) == "")
    }

    @Test func base64URLRoundTripsAndIsStrict() {
        for n in 0..<40 {
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 250) }
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
        #expect(Base64URL.decode("ab=") == nil)
        #expect(Base64URL.decode("a+b/") == nil)
        #expect(Base64URL.decode("a") == nil)
        #expect(Base64URL.decode("-_9") == nil, "non-canonical trailing bits are refused")
    }

    @Test func calendarDays() {
        #expect(CalendarDay("2024-02-29")?.description == "2024-02-29")
        #expect(CalendarDay("2023-02-29") == nil)
        #expect(CalendarDay("2023-2-28") == nil)
        #expect(CalendarDay("2023-13-01") == nil)
        #expect(CalendarDay("１９００-01-01") == nil)
        #expect(CalendarDay("1970-01-01")?.daysSinceEpoch == 0)
        #expect(CalendarDay(unixSeconds: -1).description == "1969-12-31")
        #expect(CalendarDay(unixSeconds: -86_400).description == "1969-12-31")
        #expect(CalendarDay(unixSeconds: -86_401).description == "1969-12-30")
        // Any instant, an agent's Int64.min included, is a day (clamped to years 0001…9999), never a trap.
        #expect(CalendarDay(unixSeconds: .min).description == "0001-01-01")
        #expect(CalendarDay(unixSeconds: .max).description == "9999-12-31")
        #expect(CalendarDay(unixSeconds: 1_786_093_200).description == "2026-08-07")
        var day = CalendarDay("1899-12-25")!
        for _ in 0..<60_000 {
            let next = day.next
            #expect(next > day)
            #expect(next.daysSinceEpoch == day.daysSinceEpoch + 1)
            #expect(CalendarDay(next.description) == next)
            day = next
        }
    }

    @Test func jsonCanonicalForm() throws {
        let value = try JSONParser.parse(#"{"v":2,"a/b":"é\u00e9\n","n":[842,0.1,-0.0,1e16,1e20,1.5e-7,-12]}"#)
        #expect(String(decoding: try value.canonicalBytes(), as: UTF8.self)
                == #"{"a/b":"éé\n","n":[842,0.1,0,10000000000000000,1e+20,1.5e-07,-12],"v":2}"#)
    }

    @Test func jsonRefusals() {
        for bad in ["", "{", #"{"a":1,"a":2}"#, "[1,]", "01", "1.", "\"\u{01}\"", #""\ud800""#, "[1] x", "nan", "-"] {
            #expect(throws: JSONError.self) { try JSONParser.parse(bad) }
        }
        #expect(throws: JSONError.tooDeep) { try JSONParser.parse(String(repeating: "[", count: 100)) }
        #expect(throws: JSONError.syntax(offset: 2, what: "a string is not UTF-8")) { try JSONParser.parse([0x22, 0xFF, 0x22]) }
    }
}
