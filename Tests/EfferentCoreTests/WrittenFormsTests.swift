import EfferentCore
import Testing

/// What people copy between tools: instants as the tables print them, and tokens that no
/// argparse-based tool takes for an option (issue 30).
@Suite struct WrittenFormsTests {
    @Test(arguments: [
        ("2017-12-31T08:02:15Z", "2017-12-31T08:02:15Z"), ("2017-12-31T09:02:15+01:00", "2017-12-31T08:02:15Z"),
        ("2017-12-31T09:02:15+0100", "2017-12-31T08:02:15Z"), ("2017-12-31T03:02:15-05", "2017-12-31T08:02:15Z"),
        ("2018-01-01T02:32:15.250+05:30", "2017-12-31T21:02:15Z"), ("2017-12-31T00:30:00-09:30", "2017-12-31T10:00:00Z"),
    ])
    func anInstantIsReadWithItsOffset(text: String, utc: String) {
        #expect(ISOInstant.secondsWritten(text) == ISOInstant.seconds(utc), "\(text)")
    }

    @Test(arguments: ["2017-12-31T09:02:15", "2017-12-31T09:02:15+1:00", "2017-12-31T09:02:15+01:0", "2017-12-31T09:02:15+25:00",
                      "2017-12-31T09:02:15+01:60", "2017-12-31 09:02:15+01:00", "2017-12-31T09:02:15+010:0", "yesterday"])
    func anythingElseNamesNoInstant(text: String) {
        #expect(ISOInstant.secondsWritten(text) == nil, "\(text)")
    }

    /// A draw whose text would start with `-` (0xF8 >> 2 = 62, the alphabet's `-`) is drawn again.
    @Test func aTokenNeverStartsWithADash() {
        var draws = [[UInt8](repeating: 0xF8, count: 32), [UInt8](repeating: 0xF8, count: 32), [UInt8](repeating: 0x10, count: 32)]
        let token = BearerToken.make { draws.removeFirst() }
        #expect(draws.isEmpty, "two draws refused, the third kept")
        #expect(token.first == "E" && token.count == 43)
        for _ in 0..<2000 { #expect(BearerToken.make().first != "-") }
    }
}
