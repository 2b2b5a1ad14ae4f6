import Testing
@testable import EfferentCore
import EfferentTestSupport

/// The fast paths of issue 18 give exactly what the plain ones they stand beside give: numbers
/// written as `description` writes them, columns read as element-by-element reading reads them,
/// ids numbered as counting the id strings numbers them.
@Suite struct FastPathTests {
    /// The text the writer gave every number before the fast path: digits for an integral value,
    /// else Swift's shortest round-trip `description`.
    static func plainText(_ n: Double) -> String {
        n.rounded(.towardZero) == n && abs(n) < 9.2e18 ? String(Int64(n)) : n.description
    }

    @Test func shortDecimalsAreWrittenAsDescriptionWritesThem() throws {
        var rng = SplitMix64(seed: 0x18)
        var samples: [Double] = [0.001, 0.0015, 0.1, 0.2, 0.3, 1.5, -2.25, 48.8566123, 2.3522, 999_999_999_999_999.5, 123_456_789_012.345,
                                 0.000999, 1e-3 + 1e-18, 9.2e18, 1e15 - 0.5, -0.001, 1.0 / 3, 2.0 / 3, 0.1 + 0.2]
        for _ in 0..<200_000 {
            let digits = Int.random(in: 1...17, using: &rng)
            let mantissa = Double(Int64.random(in: 1..<Int64(pow10(digits)), using: &rng))
            let scale = pow10(Int.random(in: 0...20, using: &rng))
            samples.append((Bool.random(using: &rng) ? -1 : 1) * mantissa / scale)
            let bits = Double(bitPattern: rng.next())
            if bits.isFinite { samples.append(bits) }
        }
        for n in samples {
            var writer = JSONWriter()
            try writer.number(n)
            #expect(String(decoding: writer.bytes, as: UTF8.self) == Self.plainText(n), "\(n)")
        }
    }

    private func pow10(_ exponent: Int) -> Double { (0..<exponent).reduce(1.0) { value, _ in value * 10 } }

    /// A column read element by element through the checked pull interface.
    static func plainColumn(_ text: String) throws(JSONError) -> [Double] {
        var scanner = JSONScanner(Array(text.utf8))
        var out = [Double]()
        try scanner.beginArray()
        while try scanner.nextElement() { out.append(try scanner.readNull() ? .nan : try scanner.readNumber()) }
        try scanner.finish()
        return out
    }

    /// The same column read in one pass, with storage sized for `expected` elements (0: counted
    /// first), as the day reader sizes the columns after its first.
    static func fastColumn(_ text: String, expected: Int = 0) throws(JSONError) -> [Double] {
        var scanner = JSONScanner(Array(text.utf8))
        var out = [Double]()
        try scanner.readNumberColumn(into: &out, expected: expected)
        try scanner.finish()
        return out
    }

    @Test func columnsReadAsElementByElementReadingReadsThem() {
        var rng = SplitMix64(seed: 0x1818)
        let pieces = ["0", "-0", "7", "-12", "48.8566123", "0.5", "-0.001", "1e5", "2.5E-3", "12345678901234567", "123456789012345",
                      "1234567890.12345", "1234567890.123456", "null", "00", "1.", ".5", "-", "nul", "\"1\"", "[1]", "1.0", "9007199254740993"]
        let separators = [",", ",", ",", ", ", " ,", ",\n"]
        var texts = ["[]", "[ ]", "[1,]", "[,1]", "[1 2]", "[1", "[null,null]", "[1,2]x"]
        for _ in 0..<20_000 {
            var text = Bool.random(using: &rng) ? "[" : "[ "
            for index in 0..<Int.random(in: 1...6, using: &rng) {
                if index > 0 { text += separators[Int.random(in: 0..<separators.count, using: &rng)] }
                text += pieces[Int.random(in: 0..<(Int.random(in: 0..<4, using: &rng) == 0 ? pieces.count : 8), using: &rng)]
            }
            texts.append(text + (Bool.random(using: &rng) ? "]" : " ]"))
        }
        for (index, text) in texts.enumerated() {
            let plain = Result { () throws(JSONError) in try Self.plainColumn(text) }
            // Storage too small, about right or too large: the rest is read the checked way.
            let expected = [0, 1, 3, 100][index % 4]
            let fast = Result { () throws(JSONError) in try Self.fastColumn(text, expected: expected) }
            switch (plain, fast) {
            case let (.success(a), .success(b)):
                #expect(a.map(\.bitPattern) == b.map(\.bitPattern), "\(text), \(expected) expected")
            case let (.failure(a), .failure(b)):
                #expect(a == b, "\(text), \(expected) expected")
            default:
                Issue.record("\(text), \(expected) expected: \(plain) against \(fast)")
            }
        }
    }

    @Test func integerColumnsRefuseWhatIsNotAnInteger() throws {
        for (text, expected) in [("[0,1,-2,30]", [Int64(0), 1, -2, 30] as [Int64]?), ("[1.0,2]", [1, 2]), ("[1e2]", [100]),
                                 ("[1.5,2]", nil), ("[9007199254740994]", nil)] {
            for hint in [0, 1, 4] {
                var scanner = JSONScanner(Array(text.utf8))
                var out = [Int64]()
                let integral = try scanner.readIntegerColumn(into: &out, expected: hint)
                #expect((integral ? out : nil) == expected, "\(text), \(hint) expected")
            }
        }
        var scanner = JSONScanner(Array("[1,null]".utf8))
        var out = [Int64]()
        #expect(throws: JSONError.self) { try scanner.readIntegerColumn(into: &out) }
    }

    /// §3.2 rule 4 counted on the id strings themselves, as the first expander did.
    @Test func idsAreNumberedAsCountingTheirTextNumbersThem() throws {
        var random = RandomDays(seed: 0x1D5)
        for _ in 0..<500 {
            guard case let .columnar(day) = try DayBody(events: random.day(), timeZone: nil).decoded() else { continue }
            var bases = [String]()
            for series in day.series {
                let suffix = series.key.bucket == .hour ? ":h" : series.key.bucket == .day ? ":d" : ""
                for event in series.events { bases.append("\(series.key.kind.rawValue):\(series.key.metric):\(ISOInstant.text(event.start))\(suffix)") }
            }
            var counts = [String: Int](), seen = [String: Int]()
            for base in bases { counts[base, default: 0] += 1 }
            let expected = bases.map { base -> String in
                guard counts[base]! > 1 else { return base }
                seen[base, default: 0] += 1
                return base + "#\(seen[base]!)"
            }
            #expect(day.expandedEvents().map(\.id) == expected)
        }
        // Rows out of start order (a body from elsewhere may step back): repeats are not neighbours.
        let body = #"{"series":[{"d":[0,0,0],"k":"hk","metric":"m","t":[5,-5,5],"t0":0}],"v":2}"#
        guard case let .columnar(day) = try DayBody(bytes: Array(body.utf8)).decoded() else { Issue.record("not layout 2"); return }
        #expect(day.expandedEvents().map(\.id) == ["hk:m:1970-01-01T00:00:05Z#1", "hk:m:1970-01-01T00:00:00Z", "hk:m:1970-01-01T00:00:05Z#2"])
    }
}
